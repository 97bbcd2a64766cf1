package memstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	decredecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/opencustody/ocv/keyvault"
)

// Signer returns a signer for an asymmetric key.
func (s *Store) Signer(ctx context.Context, ref keyvault.KeyRef) (keyvault.DigestSigner, error) {
	k, err := s.get(ctx, ref)
	if err != nil {
		return nil, err
	}
	if k.alg == keyvault.AES256 || k.alg == keyvault.HMACSHA256 {
		return nil, fmt.Errorf("%w: %s v%d is a %s key, not a signing key", keyvault.ErrUnsupported, ref.ID, ref.Version, k.alg)
	}
	return &signer{s: s, ref: ref, key: k, alg: k.alg, public: k.public}, nil
}

type signer struct {
	s      *Store
	ref    keyvault.KeyRef
	key    *key
	alg    keyvault.Algorithm
	public crypto.PublicKey
}

// Algorithm returns the key's algorithm.
func (g *signer) Algorithm() keyvault.Algorithm { return g.alg }

// Public returns the key's public half.
func (g *signer) Public() crypto.PublicKey { return g.public }

// SignDigest signs a 32-byte digest (ECDSA, raw r‖s) or a message (Ed25519).
// It looks the key up on each call, so a destroyed key stops signing.
func (g *signer) SignDigest(ctx context.Context, digest []byte) ([]byte, error) {
	if g.alg != keyvault.Ed25519 && len(digest) != 32 {
		return nil, fmt.Errorf("signing: %w: digest of %d bytes", ErrInvalidLength, len(digest))
	}
	k, err := g.s.get(ctx, g.ref)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	if k != g.key {
		// The key was destroyed and the ref now names another key.
		return nil, fmt.Errorf("signing: %w: %s v%d was replaced", keyvault.ErrKeyNotFound, g.ref.ID, g.ref.Version)
	}
	switch k.alg {
	case keyvault.P256:
		r, s, err := ecdsa.Sign(rand.Reader, k.p256, digest)
		if err != nil {
			return nil, fmt.Errorf("signing: %w", err)
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return sig, nil
	case keyvault.Secp256k1:
		return signSecp256k1(k.k1, digest), nil
	default:
		return ed25519.Sign(k.ed25519, digest), nil
	}
}

// signSecp256k1 signs like an HSM does: r‖s with no preference for low S.
// decred signs deterministically with low S; flipping S to N-S at random
// (both verify) gives callers the high-S signatures an HSM gives them.
func signSecp256k1(k *secp256k1.PrivateKey, digest []byte) []byte {
	sig := decredecdsa.Sign(k, digest)
	r, s := sig.R(), sig.S()
	var coin [1]byte
	_, _ = rand.Read(coin[:])
	if coin[0]&1 == 1 {
		s.Negate()
	}
	out := make([]byte, 64)
	r.PutBytesUnchecked(out[:32])
	s.PutBytesUnchecked(out[32:])
	return out
}
