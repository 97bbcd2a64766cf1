//go:build cgo

package pkcs11

import (
	"bytes"
	"context"
	"crypto"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// Signing mechanisms, built once: miekg/pkcs11 only reads them.
var (
	mechECDSA = []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_ECDSA, nil)}
	mechEdDSA = []*pkcs11.Mechanism{pkcs11.NewMechanism(ckmEdDSA, nil)}
)

// Signer returns a signer for an asymmetric key. The signer signs through
// the Store: it answers keyvault.ErrClosed once the Store is closed and
// keyvault.ErrKeyNotFound once the key is destroyed.
func (s *Store) Signer(ctx context.Context, ref keyvault.KeyRef) (keyvault.DigestSigner, error) {
	info, err := s.Key(ctx, ref)
	if err != nil {
		return nil, err
	}
	g := &signer{s: s, ref: ref, alg: info.Algorithm, public: info.Public}
	switch info.Algorithm {
	case keyvault.P256, keyvault.Secp256k1:
		g.mech = mechECDSA
	case keyvault.Ed25519:
		g.mech = mechEdDSA
	default:
		return nil, fmt.Errorf("%w: %s is a %s key, not a signing key", keyvault.ErrUnsupported, objectLabel(ref), info.Algorithm)
	}
	return g, nil
}

type signer struct {
	s      *Store
	ref    keyvault.KeyRef
	alg    keyvault.Algorithm
	public crypto.PublicKey
	mech   []*pkcs11.Mechanism
}

// Algorithm returns the key's algorithm.
func (g *signer) Algorithm() keyvault.Algorithm { return g.alg }

// Public returns the key's public half.
func (g *signer) Public() crypto.PublicKey { return g.public }

// SignDigest signs inside the token: CKM_ECDSA over a 32-byte digest (raw
// r‖s as the token made it, not low-S normalised) or CKM_EDDSA over the
// message.
func (g *signer) SignDigest(ctx context.Context, digest []byte) ([]byte, error) {
	if g.alg != keyvault.Ed25519 && len(digest) != 32 {
		return nil, fmt.Errorf("signing with %s: %w: digest of %d bytes", objectLabel(g.ref), ErrInvalidLength, len(digest))
	}
	var sig []byte
	err := g.s.withKey(ctx, g.ref, func(ss *session, e *keyEntry) error {
		if e.alg != g.alg || !samePublic(e.public, g.public) {
			// The key this signer was made for was destroyed, and the
			// ref now names another key (maybe made by another process).
			return fmt.Errorf("%w: %s was replaced", keyvault.ErrKeyNotFound, objectLabel(g.ref))
		}
		if err := g.s.ctx.SignInit(ss.h, g.mech, e.key); err != nil {
			return err
		}
		var err error
		sig, err = g.s.ctx.Sign(ss.h, digest)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("signing with %s: %w", objectLabel(g.ref), err)
	}
	if len(sig) != 64 {
		return nil, fmt.Errorf("signing with %s: token returned %d bytes", objectLabel(g.ref), len(sig))
	}
	return sig, nil
}

// samePublic compares two public keys of the keyvault contract's types.
func samePublic(a, b crypto.PublicKey) bool {
	switch a := a.(type) {
	case keyvault.Secp256k1Point:
		b, ok := b.(keyvault.Secp256k1Point)
		return ok && bytes.Equal(a, b)
	case interface{ Equal(crypto.PublicKey) bool }:
		return a.Equal(b)
	}
	return false
}
