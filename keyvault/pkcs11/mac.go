//go:build cgo

package pkcs11

import (
	"context"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// hmacKeyLen is the size of a generated HMAC-SHA256 key (CKK_GENERIC_SECRET):
// the hash's output size, which SoftHSM also requires as a minimum.
const hmacKeyLen = 32

// mechHMAC is CKM_SHA256_HMAC, built once: miekg/pkcs11 only reads it.
var mechHMAC = []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_SHA256_HMAC, nil)}

// MAC computes HMAC-SHA256 of data inside the token with the HMACSHA256 key
// ref (single-part C_Sign).
func (s *Store) MAC(ctx context.Context, ref keyvault.KeyRef, data []byte) ([]byte, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	var tag []byte
	err := s.withKey(ctx, ref, func(ss *session, e *keyEntry) error {
		if e.alg != keyvault.HMACSHA256 {
			return fmt.Errorf("%w: %s is a %s key", keyvault.ErrUnsupported, objectLabel(ref), e.alg)
		}
		if err := s.ctx.SignInit(ss.h, mechHMAC, e.key); err != nil {
			return err
		}
		var err error
		tag, err = s.ctx.Sign(ss.h, data)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("computing mac with %s: %w", objectLabel(ref), err)
	}
	if len(tag) != 32 {
		return nil, fmt.Errorf("computing mac with %s: token returned %d bytes", objectLabel(ref), len(tag))
	}
	return tag, nil
}
