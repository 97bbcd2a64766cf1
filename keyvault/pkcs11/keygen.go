//go:build cgo

package pkcs11

import (
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// generate makes the key req asks for and reads back its entry. Every key is
// a token object, private (login needed to use it), sensitive and not
// extractable: it can be used inside the token, never read out.
func generate(ctx *pkcs11.Ctx, sh pkcs11.SessionHandle, req keyvault.CreateKeyRequest) (*keyEntry, error) {
	label := objectLabel(req.Ref)
	private := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
		pkcs11.NewAttribute(pkcs11.CKA_ID, label),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
	if req.Algorithm == keyvault.HMACSHA256 {
		private = append(private,
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_GENERIC_SECRET),
			pkcs11.NewAttribute(pkcs11.CKA_VALUE_LEN, hmacKeyLen),
			// A MAC key only signs and verifies (CKM_SHA256_HMAC): no
			// encryption, wrapping or derivation with it.
			pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
			pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
			pkcs11.NewAttribute(pkcs11.CKA_ENCRYPT, false),
			pkcs11.NewAttribute(pkcs11.CKA_DECRYPT, false),
			pkcs11.NewAttribute(pkcs11.CKA_WRAP, false),
			pkcs11.NewAttribute(pkcs11.CKA_UNWRAP, false),
			pkcs11.NewAttribute(pkcs11.CKA_DERIVE, false),
		)
		mech := []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_GENERIC_SECRET_KEY_GEN, nil)}
		h, err := ctx.GenerateKey(sh, mech, private)
		if err != nil {
			return nil, fmt.Errorf("generating hmac-sha256 key %s: %w", label, err)
		}
		return &keyEntry{alg: keyvault.HMACSHA256, key: h}, nil
	}
	if req.Algorithm == keyvault.AES256 {
		private = append(private,
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_SECRET_KEY),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_AES),
			pkcs11.NewAttribute(pkcs11.CKA_VALUE_LEN, 32),
			// A KEK only wraps and unwraps: no C_Encrypt/C_Decrypt with
			// it, so it cannot serve as a raw block-cipher oracle.
			pkcs11.NewAttribute(pkcs11.CKA_WRAP, true),
			pkcs11.NewAttribute(pkcs11.CKA_UNWRAP, true),
			pkcs11.NewAttribute(pkcs11.CKA_ENCRYPT, false),
			pkcs11.NewAttribute(pkcs11.CKA_DECRYPT, false),
		)
		mech := []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_AES_KEY_GEN, nil)}
		h, err := ctx.GenerateKey(sh, mech, private)
		if err != nil {
			return nil, fmt.Errorf("generating aes-256 key %s: %w", label, err)
		}
		return &keyEntry{alg: keyvault.AES256, key: h}, nil
	}

	keyType, genMech, params := uint(pkcs11.CKK_EC), uint(pkcs11.CKM_EC_KEY_PAIR_GEN), oidP256
	switch req.Algorithm {
	case keyvault.P256:
	case keyvault.Secp256k1:
		params = oidSecp256k1
	case keyvault.Ed25519:
		keyType, genMech, params = ckkECEdwards, ckmECEdwardsKeyPairGen, oidEd25519
	default:
		return nil, fmt.Errorf("%w: algorithm %q", keyvault.ErrUnsupported, req.Algorithm)
	}
	private = append(private,
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, keyType),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_DERIVE, false),
	)
	public := publicTemplate(keyType, params, label)
	mech := []*pkcs11.Mechanism{pkcs11.NewMechanism(genMech, nil)}
	pub, priv, err := ctx.GenerateKeyPair(sh, mech, public, private)
	if err != nil {
		return nil, fmt.Errorf("generating %s key %s: %w", req.Algorithm, label, err)
	}
	attrs, err := ctx.GetAttributeValue(sh, pub, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_EC_POINT, nil)})
	if err == nil {
		var e keyEntry
		e.alg, e.key = req.Algorithm, priv
		if e.public, err = parseECPoint(req.Algorithm, attrs[0].Value); err == nil {
			return &e, nil
		}
	}
	// Leave no half-made key behind: a later CreateKey of the ref must work.
	_ = ctx.DestroyObject(sh, priv)
	_ = ctx.DestroyObject(sh, pub)
	return nil, fmt.Errorf("reading public key of %s: %w", label, err)
}

// publicTemplate is the template of a public key token object: public,
// verify only, named like its private key.
func publicTemplate(keyType uint, params []byte, label string) []*pkcs11.Attribute {
	return []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PUBLIC_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, keyType),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, false),
		pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
		pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, params),
		pkcs11.NewAttribute(pkcs11.CKA_ID, label),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
	}
}
