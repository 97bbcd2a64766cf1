package envelope

import (
	"encoding/binary"
	"fmt"
	"strings"
)

const (
	blobV1        = 1
	blobV2        = 2
	blobV3        = 3
	blobHeaderLen = 1 + 4
	// wrappedDEKV3Len is a version-3 wrapped data key: nonce, key, tag.
	wrappedDEKV3Len = gcmNonceSize + dekSize + gcmTagSize
	dekSize         = 32
	gcmNonceSize    = 12
	gcmTagSize      = 16
	aadDomain       = "ocv-envelope-v1"
	aadDomainV2     = "ocv-envelope-v2"
	aadDomainV3     = "ocv-envelope-v3"
	dekAADDomain    = "ocv-dek-v3"
	// MaxSecretTypeLen bounds the secret type a version-2 blob carries.
	MaxSecretTypeLen = 32
)

// Blob formats. Version 1 (legacy, still opened):
//
//	1 | kek version (4) | nonce | ciphertext | tag
//	AAD: "ocv-envelope-v1" | org | vault | path | secret version
//
// Version 2 (every new seal) carries the secret's type in the clear and
// binds it into the AAD, so the enclave reads a type it authenticates
// rather than one the proxy or the database tells it:
//
//	2 | kek version (4) | type length (1) | type | nonce | ciphertext | tag
//	AAD: "ocv-envelope-v2" | org | vault | path | secret version | type
//
// Version 3 (every new seal) adds the intermediate-key generation; the
// data key is wrapped in the enclave under the vault's intermediate key
// (see ikey.go) with AES-256-GCM rather than in the HSM with RFC 3394:
//
//	3 | kek version (4) | ik generation (4) | type length (1) | type | nonce | ciphertext | tag
//	AAD: "ocv-envelope-v3" | org | vault | path | secret version | type
//	wrapped DEK: nonce (12) | encrypted DEK (32) | tag (16)
//	DEK AAD: "ocv-dek-v3" | org | vault | path | secret version | type | kek version | ik generation
//
// The value's AAD leaves the KEK version and generation out, as before, so
// a rotation re-wraps data keys without re-encrypting values; the data
// key's AAD binds them, so an edited header opens nothing.
//
// A version-1 blob has no bound type: the enclave treats it as possibly a
// private key (see TypeOf and docs/threat-model.md "Private keys and the
// intents API").

// Locator names one secret version; it is bound into the AAD.
type Locator struct {
	OrgID         string
	VaultID       string
	Path          string
	SecretVersion uint32
}

// Validate checks that the locator can name a secret: non-empty fields, an
// org and a vault id usable inside a key name.
func (l Locator) Validate() error {
	if l.OrgID == "" || l.Path == "" {
		return fmt.Errorf("%w: empty org or path", ErrInvalidLocator)
	}
	return validKEKOwner(l.OrgID, l.VaultID)
}

// maxKEKIDLen bounds a KEK's key-store id ("kek/<org>/<vault>"): what the
// PKCS#11 store accepts as a key id.
const maxKEKIDLen = 200

// validKEKOwner checks an org and a vault id for use in a KEK id.
func validKEKOwner(orgID, vaultID string) error {
	if err := validID("org", orgID); err != nil {
		return err
	}
	if err := validID("vault", vaultID); err != nil {
		return err
	}
	if len(kekID(orgID, vaultID)) > maxKEKIDLen {
		return fmt.Errorf("%w: org and vault ids too long together", ErrInvalidLocator)
	}
	return nil
}

// validID accepts 1 to 128 characters from [A-Za-z0-9._-]: an org or vault
// id becomes part of a key name in the HSM, so nothing that could shift
// that name (':', '/', spaces, control characters) gets through.
func validID(what, id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("%w: %s id length", ErrInvalidLocator, what)
	}
	if !ValidKeyNamePart(id) {
		return fmt.Errorf("%w: %s id characters", ErrInvalidLocator, what)
	}
	return nil
}

// ValidKeyNamePart reports whether s is non-empty and only [A-Za-z0-9._-]:
// safe as one '/'-separated part of a key-store id.
func ValidKeyNamePart(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) < 0
}

// kekID is the key-store id of a vault's KEK: it names the organization,
// so a request for one organization can never address another's key.
// Keys made before this binding ("kek/<vault>") are not used at all (see
// docs/threat-model.d/keys.md).
func kekID(orgID, vaultID string) string { return "kek/" + orgID + "/" + vaultID }

// appendAAD appends the additional data of a locator (version 1).
func appendAAD(b []byte, l Locator) []byte {
	b = append(b, aadDomain...)
	b = appendField(b, l.OrgID)
	b = appendField(b, l.VaultID)
	b = appendField(b, l.Path)
	return binary.BigEndian.AppendUint32(b, l.SecretVersion)
}

// appendAADV2 appends the additional data of a locator and a secret type
// (version 2).
func appendAADV2(b []byte, l Locator, secretType string) []byte {
	b = append(b, aadDomainV2...)
	b = appendField(b, l.OrgID)
	b = appendField(b, l.VaultID)
	b = appendField(b, l.Path)
	b = binary.BigEndian.AppendUint32(b, l.SecretVersion)
	return appendField(b, secretType)
}

// ValidSecretType reports whether t can be bound into a blob: empty (an
// untyped value), or 1 to MaxSecretTypeLen characters from [a-z0-9_].
func ValidSecretType(t string) bool {
	if len(t) > MaxSecretTypeLen {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// parsedBlob is a blob's header and AEAD part. The type is not
// authenticated until the AEAD part opens under the AAD that binds it.
type parsedBlob struct {
	version    byte
	kekVersion uint32
	ikGen      uint32 // version 3 only
	secretType string
	sealed     []byte
}

// parseBlob splits a blob into its header and its AEAD part. It never
// panics on short or unknown input.
func parseBlob(blob []byte) (parsedBlob, error) {
	if len(blob) == 0 {
		return parsedBlob{}, fmt.Errorf("%w: empty blob", ErrIntegrity)
	}
	p := parsedBlob{version: blob[0]}
	if p.version != blobV1 && p.version != blobV2 && p.version != blobV3 {
		return parsedBlob{}, fmt.Errorf("%w: version %d", ErrUnsupportedFormat, blob[0])
	}
	if len(blob) < blobHeaderLen {
		return parsedBlob{}, fmt.Errorf("%w: short blob", ErrIntegrity)
	}
	p.kekVersion = binary.BigEndian.Uint32(blob[1:5])
	if p.kekVersion == 0 {
		return parsedBlob{}, fmt.Errorf("%w: kek version 0", ErrIntegrity)
	}
	rest := blob[blobHeaderLen:]
	if p.version == blobV3 {
		if len(rest) < 4 {
			return parsedBlob{}, fmt.Errorf("%w: short blob", ErrIntegrity)
		}
		p.ikGen = binary.BigEndian.Uint32(rest[:4])
		if p.ikGen == 0 {
			return parsedBlob{}, fmt.Errorf("%w: ik generation 0", ErrIntegrity)
		}
		rest = rest[4:]
	}
	if p.version >= blobV2 {
		if len(rest) == 0 || int(rest[0]) > MaxSecretTypeLen || len(rest) < 1+int(rest[0]) {
			return parsedBlob{}, fmt.Errorf("%w: bad type field", ErrIntegrity)
		}
		n := int(rest[0])
		p.secretType = string(rest[1 : 1+n])
		if !ValidSecretType(p.secretType) {
			return parsedBlob{}, fmt.Errorf("%w: bad type field", ErrIntegrity)
		}
		rest = rest[1+n:]
	}
	if len(rest) < gcmNonceSize+gcmTagSize {
		return parsedBlob{}, fmt.Errorf("%w: short blob", ErrIntegrity)
	}
	p.sealed = rest
	return p, nil
}

// TypeOf reads the secret type a blob claims, without opening it: typed is
// false for a version-1 blob, which binds no type. The type is NOT yet
// authenticated: Open fails (ErrIntegrity) on a blob whose type was
// edited, so a caller that refuses some types checks TypeOf before Open
// and opens only what it would hand out under that type.
func TypeOf(blob []byte) (secretType string, typed bool, err error) {
	p, err := parseBlob(blob)
	if err != nil {
		return "", false, err
	}
	return p.secretType, p.version >= blobV2, nil
}

// appendBlobHeader appends the version-1 header.
func appendBlobHeader(b []byte, kekVersion uint32) []byte {
	b = append(b, blobV1)
	return binary.BigEndian.AppendUint32(b, kekVersion)
}

// appendBlobHeaderV2 appends the version-2 header; secretType is valid.
func appendBlobHeaderV2(b []byte, kekVersion uint32, secretType string) []byte {
	b = append(b, blobV2)
	b = binary.BigEndian.AppendUint32(b, kekVersion)
	b = append(b, byte(len(secretType)))
	return append(b, secretType...)
}

// appendBlobHeaderV3 appends the version-3 header; secretType is valid.
func appendBlobHeaderV3(b []byte, kekVersion, ikGen uint32, secretType string) []byte {
	b = append(b, blobV3)
	b = binary.BigEndian.AppendUint32(b, kekVersion)
	b = binary.BigEndian.AppendUint32(b, ikGen)
	b = append(b, byte(len(secretType)))
	return append(b, secretType...)
}

// appendAADV3 appends the additional data of a version-3 value.
func appendAADV3(b []byte, l Locator, secretType string) []byte {
	b = append(b, aadDomainV3...)
	b = appendField(b, l.OrgID)
	b = appendField(b, l.VaultID)
	b = appendField(b, l.Path)
	b = binary.BigEndian.AppendUint32(b, l.SecretVersion)
	return appendField(b, secretType)
}

// appendDEKAAD appends the additional data of a version-3 wrapped data key.
func appendDEKAAD(b []byte, l Locator, secretType string, kekVersion, ikGen uint32) []byte {
	b = append(b, dekAADDomain...)
	b = appendField(b, l.OrgID)
	b = appendField(b, l.VaultID)
	b = appendField(b, l.Path)
	b = binary.BigEndian.AppendUint32(b, l.SecretVersion)
	b = appendField(b, secretType)
	b = binary.BigEndian.AppendUint32(b, kekVersion)
	return binary.BigEndian.AppendUint32(b, ikGen)
}
