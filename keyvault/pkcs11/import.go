//go:build cgo

package pkcs11

import (
	"context"
	"crypto/ed25519"
	"encoding/asn1"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// ImportKey stores an existing secp256k1 or Ed25519 private key on the
// token as a sensitive, unextractable token object with its public key
// beside it, as CreateKey would have made it.
func (s *Store) ImportKey(ctx context.Context, req keyvault.ImportKeyRequest) (keyvault.KeyInfo, error) {
	if err := checkRef(req.Ref); err != nil {
		return keyvault.KeyInfo{}, err
	}
	point, public, keyType, params, err := importedPublic(req)
	if err != nil {
		return keyvault.KeyInfo{}, err
	}
	derPoint, err := asn1.Marshal(point)
	if err != nil {
		return keyvault.KeyInfo{}, fmt.Errorf("encoding public point: %w", err)
	}
	label := objectLabel(req.Ref)
	priv := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, keyType),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_DERIVE, false),
		pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, params),
		pkcs11.NewAttribute(pkcs11.CKA_VALUE, req.Private),
		pkcs11.NewAttribute(pkcs11.CKA_ID, label),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	pub := append(publicTemplate(keyType, params, label), pkcs11.NewAttribute(pkcs11.CKA_EC_POINT, derPoint))
	return s.makeKey(ctx, req.Ref, func(ss *session) (*keyEntry, error) {
		ph, err := s.ctx.CreateObject(ss.h, pub)
		if err != nil {
			return nil, fmt.Errorf("importing public key %s: %w", label, err)
		}
		key, err := s.ctx.CreateObject(ss.h, priv)
		if err != nil {
			_ = s.ctx.DestroyObject(ss.h, ph)
			return nil, fmt.Errorf("importing private key %s: %w", label, err)
		}
		return &keyEntry{alg: req.Algorithm, key: key, public: public}, nil
	})
}

// importedPublic derives the public key of an imported private key: the raw
// point for CKA_EC_POINT, the keyvault form, and the PKCS#11 key type and
// curve parameters.
func importedPublic(req keyvault.ImportKeyRequest) (point []byte, public any, keyType uint, params []byte, err error) {
	if len(req.Private) != 32 {
		return nil, nil, 0, nil, fmt.Errorf("%w: a private key is 32 bytes", keyvault.ErrInvalidKey)
	}
	switch req.Algorithm {
	case keyvault.Secp256k1:
		var scalar secp256k1.ModNScalar
		if overflow := scalar.SetByteSlice(req.Private); overflow || scalar.IsZero() {
			return nil, nil, 0, nil, fmt.Errorf("%w: secp256k1 scalar out of range", keyvault.ErrInvalidKey)
		}
		pk := secp256k1.NewPrivateKey(&scalar)
		pt := pk.PubKey().SerializeUncompressed()
		pk.Zero()
		return pt, keyvault.Secp256k1Point(pt), pkcs11.CKK_EC, oidSecp256k1, nil
	case keyvault.Ed25519:
		pub := ed25519.NewKeyFromSeed(req.Private).Public().(ed25519.PublicKey)
		return pub, pub, ckkECEdwards, oidEd25519, nil
	}
	return nil, nil, 0, nil, fmt.Errorf("%w: importing %q keys", keyvault.ErrUnsupported, req.Algorithm)
}
