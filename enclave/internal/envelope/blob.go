package envelope

import (
	"encoding/binary"
	"fmt"
	"strings"
)

const (
	blobV1        = 1
	blobHeaderLen = 1 + 4
	dekSize       = 32
	gcmNonceSize  = 12
	gcmTagSize    = 16
	aadDomain     = "ocv-envelope-v1"
)

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

// appendAAD appends the additional data of a locator.
func appendAAD(b []byte, l Locator) []byte {
	b = append(b, aadDomain...)
	b = appendField(b, l.OrgID)
	b = appendField(b, l.VaultID)
	b = appendField(b, l.Path)
	return binary.BigEndian.AppendUint32(b, l.SecretVersion)
}

func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// parseBlob splits a blob into its KEK version and its AEAD part. It never
// panics on short or unknown input.
func parseBlob(blob []byte) (kekVersion uint32, sealed []byte, err error) {
	if len(blob) == 0 {
		return 0, nil, fmt.Errorf("%w: empty blob", ErrIntegrity)
	}
	if blob[0] != blobV1 {
		return 0, nil, fmt.Errorf("%w: version %d", ErrUnsupportedFormat, blob[0])
	}
	if len(blob) < blobHeaderLen+gcmNonceSize+gcmTagSize {
		return 0, nil, fmt.Errorf("%w: short blob", ErrIntegrity)
	}
	kekVersion = binary.BigEndian.Uint32(blob[1:5])
	if kekVersion == 0 {
		return 0, nil, fmt.Errorf("%w: kek version 0", ErrIntegrity)
	}
	return kekVersion, blob[blobHeaderLen:], nil
}

// appendBlobHeader appends the version-1 header.
func appendBlobHeader(b []byte, kekVersion uint32) []byte {
	b = append(b, blobV1)
	return binary.BigEndian.AppendUint32(b, kekVersion)
}
