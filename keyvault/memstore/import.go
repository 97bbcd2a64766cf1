package memstore

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/opencustody/ocv/keyvault"
)

// ImportKey keeps a copy of an existing secp256k1 or Ed25519 private key.
func (s *Store) ImportKey(ctx context.Context, req keyvault.ImportKeyRequest) (keyvault.KeyInfo, error) {
	if err := checkRef(req.Ref); err != nil {
		return keyvault.KeyInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return keyvault.KeyInfo{}, err
	}
	if len(req.Private) != 32 {
		return keyvault.KeyInfo{}, fmt.Errorf("%w: a private key is 32 bytes", keyvault.ErrInvalidKey)
	}
	k := &key{alg: req.Algorithm}
	switch req.Algorithm {
	case keyvault.Secp256k1:
		var scalar secp256k1.ModNScalar
		if overflow := scalar.SetByteSlice(req.Private); overflow || scalar.IsZero() {
			return keyvault.KeyInfo{}, fmt.Errorf("%w: secp256k1 scalar out of range", keyvault.ErrInvalidKey)
		}
		k.k1 = secp256k1.NewPrivateKey(&scalar)
		k.public = keyvault.Secp256k1Point(k.k1.PubKey().SerializeUncompressed())
	case keyvault.Ed25519:
		k.ed25519 = ed25519.NewKeyFromSeed(bytes.Clone(req.Private))
		k.public = k.ed25519.Public()
	default:
		return keyvault.KeyInfo{}, fmt.Errorf("%w: importing %q keys", keyvault.ErrUnsupported, req.Algorithm)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return keyvault.KeyInfo{}, keyvault.ErrClosed
	}
	if _, ok := s.keys[req.Ref]; ok {
		return keyvault.KeyInfo{}, fmt.Errorf("%w: %s v%d", keyvault.ErrAlreadyExists, req.Ref.ID, req.Ref.Version)
	}
	s.keys[req.Ref] = k
	return k.info(req.Ref), nil
}
