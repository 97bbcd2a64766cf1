//go:build cgo

package pkcs11

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/miekg/pkcs11"

	"github.com/opencustody/ocv/keyvault"
)

// Edwards-curve constants of PKCS#11 3.0, absent from miekg/pkcs11 v1.1.2.
const (
	ckkECEdwards           = 0x40
	ckmECEdwardsKeyPairGen = 0x1055
	ckmEdDSA               = 0x1057
)

// DER-encoded curve OIDs for CKA_EC_PARAMS.
var (
	oidP256      = []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07} // 1.2.840.10045.3.1.7
	oidSecp256k1 = []byte{0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a}                   // 1.3.132.0.10
	oidEd25519   = []byte{0x06, 0x03, 0x2b, 0x65, 0x70}                               // 1.3.101.112
)

// keyEntry is what the handle cache keeps per KeyRef.
type keyEntry struct {
	alg keyvault.Algorithm
	// key is the private key (signing) or the secret key (wrapping, MAC).
	key    pkcs11.ObjectHandle
	public crypto.PublicKey
}

func (e *keyEntry) info(ref keyvault.KeyRef) keyvault.KeyInfo {
	return keyvault.KeyInfo{Ref: ref, Algorithm: e.alg, Public: e.public}
}

// findHandles returns every token object whose CKA_ID names ref.
func findHandles(ctx *pkcs11.Ctx, sh pkcs11.SessionHandle, ref keyvault.KeyRef) ([]pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_ID, objectLabel(ref)),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
	}
	if err := ctx.FindObjectsInit(sh, tmpl); err != nil {
		return nil, fmt.Errorf("finding objects: %w", err)
	}
	// A ref has at most a key pair; a few more would be debris worth seeing.
	hs, _, err := ctx.FindObjects(sh, 8)
	if ferr := ctx.FindObjectsFinal(sh); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		return nil, fmt.Errorf("finding objects: %w", err)
	}
	return hs, nil
}

// loadEntry finds ref on the token and reads what the cache needs.
func loadEntry(ctx *pkcs11.Ctx, sh pkcs11.SessionHandle, ref keyvault.KeyRef) (*keyEntry, error) {
	hs, err := findHandles(ctx, sh, ref)
	if err != nil {
		return nil, err
	}
	var (
		e       keyEntry
		keyType uint
		pub     pkcs11.ObjectHandle
	)
	for _, h := range hs {
		attrs, err := ctx.GetAttributeValue(sh, h, []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, nil),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, nil),
		})
		if err != nil {
			return nil, fmt.Errorf("reading attributes of %s: %w", objectLabel(ref), err)
		}
		class, kt := attrULong(attrs[0]), attrULong(attrs[1])
		switch class {
		case pkcs11.CKO_SECRET_KEY, pkcs11.CKO_PRIVATE_KEY:
			e.key, keyType = h, kt
		case pkcs11.CKO_PUBLIC_KEY:
			pub = h
		}
	}
	if e.key == 0 {
		return nil, fmt.Errorf("%w: %s", keyvault.ErrKeyNotFound, objectLabel(ref))
	}
	switch keyType {
	case pkcs11.CKK_AES:
		e.alg = keyvault.AES256
		return &e, nil
	case pkcs11.CKK_GENERIC_SECRET:
		e.alg = keyvault.HMACSHA256
		return &e, nil
	case pkcs11.CKK_EC, ckkECEdwards:
	default:
		return nil, fmt.Errorf("%w: %s has key type %#x", keyvault.ErrUnsupported, objectLabel(ref), keyType)
	}
	if pub == 0 {
		return nil, fmt.Errorf("reading %s: public key object missing", objectLabel(ref))
	}
	attrs, err := ctx.GetAttributeValue(sh, pub, []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, nil),
		pkcs11.NewAttribute(pkcs11.CKA_EC_POINT, nil),
	})
	if err != nil {
		return nil, fmt.Errorf("reading public key of %s: %w", objectLabel(ref), err)
	}
	if e.alg, err = ecAlgorithm(keyType, attrs[0].Value); err != nil {
		return nil, fmt.Errorf("reading %s: %w", objectLabel(ref), err)
	}
	if e.public, err = parseECPoint(e.alg, attrs[1].Value); err != nil {
		return nil, fmt.Errorf("reading public key of %s: %w", objectLabel(ref), err)
	}
	return &e, nil
}

func ecAlgorithm(keyType uint, params []byte) (keyvault.Algorithm, error) {
	switch {
	case keyType == ckkECEdwards:
		// Some modules store a curve name instead of the OID; the point
		// length check in parseECPoint still applies.
		return keyvault.Ed25519, nil
	case bytes.Equal(params, oidP256):
		return keyvault.P256, nil
	case bytes.Equal(params, oidSecp256k1):
		return keyvault.Secp256k1, nil
	}
	return "", fmt.Errorf("%w: unknown curve parameters", keyvault.ErrUnsupported)
}

// parseECPoint turns CKA_EC_POINT into the public key type of the keyvault
// contract. PKCS#11 says the point is DER OCTET STRING-wrapped (SoftHSM does
// so); some modules return it bare, which is accepted when the length fits.
func parseECPoint(alg keyvault.Algorithm, raw []byte) (crypto.PublicKey, error) {
	want := 65
	if alg == keyvault.Ed25519 {
		want = 32
	}
	pt := raw
	var inner []byte
	if rest, err := asn1.Unmarshal(raw, &inner); err == nil && len(rest) == 0 && len(inner) == want {
		pt = inner
	}
	if len(pt) != want {
		return nil, fmt.Errorf("parsing ec point: %d bytes", len(pt))
	}
	switch alg {
	case keyvault.P256:
		pk, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pt)
		if err != nil {
			return nil, fmt.Errorf("parsing p-256 point: %w", err)
		}
		return pk, nil
	case keyvault.Secp256k1:
		if pt[0] != 0x04 {
			return nil, errors.New("parsing secp256k1 point: not uncompressed")
		}
		return keyvault.Secp256k1Point(bytes.Clone(pt)), nil
	default:
		return ed25519.PublicKey(bytes.Clone(pt)), nil
	}
}

// attrULong decodes a CK_ULONG attribute (native byte order and size).
func attrULong(a *pkcs11.Attribute) uint {
	switch len(a.Value) {
	case 8:
		return uint(binary.NativeEndian.Uint64(a.Value))
	case 4:
		return uint(binary.NativeEndian.Uint32(a.Value))
	}
	return ^uint(0)
}
