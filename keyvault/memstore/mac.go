package memstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"

	"github.com/opencustody/ocv/keyvault"
)

// hmacKeyLen is the size of a generated HMAC-SHA256 key: the hash's output
// size, the length RFC 2104 recommends.
const hmacKeyLen = 32

// MAC returns HMAC-SHA256 of data under the HMACSHA256 key ref.
func (s *Store) MAC(ctx context.Context, ref keyvault.KeyRef, data []byte) ([]byte, error) {
	k, err := s.get(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("computing mac: %w", err)
	}
	if k.alg != keyvault.HMACSHA256 {
		return nil, fmt.Errorf("computing mac: %w: %s v%d is a %s key", keyvault.ErrUnsupported, ref.ID, ref.Version, k.alg)
	}
	m := hmac.New(sha256.New, k.hmac)
	m.Write(data)
	return m.Sum(nil), nil
}
