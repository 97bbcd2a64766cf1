package xrp

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	//lint:ignore SA1019 XRPL account ids are defined with RIPEMD-160; there is no substitute.
	"golang.org/x/crypto/ripemd160"
)

const (
	// ed25519Prefix marks an Ed25519 key in the XRPL's 33-byte public key
	// encoding (secp256k1 keys start 0x02 or 0x03 instead).
	ed25519Prefix = 0xED
	// accountIDVersion is the base58check version byte of classic
	// addresses; it makes every classic address start with 'r'.
	accountIDVersion = 0x00
)

// AccountIDSize is the length of an XRPL account id.
const AccountIDSize = 20

// AccountID returns pub's 20-byte XRPL account id:
// RIPEMD-160(SHA-256(0xED ‖ pub)). Transactions carry this form in their
// Account and Destination fields.
func AccountID(pub ed25519.PublicKey) ([AccountIDSize]byte, error) {
	var id [AccountIDSize]byte
	encoded, err := encodedKey(pub)
	if err != nil {
		return id, err
	}
	inner := sha256.Sum256(encoded)
	h := ripemd160.New()
	h.Write(inner[:])
	copy(id[:], h.Sum(nil))
	return id, nil
}

// Address returns pub's XRPL classic address ("r…", 25 to 35 characters):
// base58check of 0x00 ‖ AccountID(pub) in the Ripple alphabet with a
// 4-byte double-SHA-256 checksum. It is not an X-address (XLS-5d): no
// destination tag or network is encoded.
func Address(pub ed25519.PublicKey) (string, error) {
	id, err := AccountID(pub)
	if err != nil {
		return "", err
	}
	return checkEncode(accountIDVersion, id[:]), nil
}

// PublicKeyHex returns pub as the XRPL writes an Ed25519 key in
// SigningPubKey and in rippled's and xrpl.js's output: "ED" followed by the
// 32 key bytes in upper-case hex (66 characters).
func PublicKeyHex(pub ed25519.PublicKey) (string, error) {
	encoded, err := encodedKey(pub)
	if err != nil {
		return "", err
	}
	return strings.ToUpper(hex.EncodeToString(encoded)), nil
}

// encodedKey validates pub and returns the 33-byte 0xED ‖ pub.
//
// Only the length is checked. The key comes from the HSM, which generated
// it; like xrpl.js's deriveAddress, this does not decode the curve point.
func encodedKey(pub ed25519.PublicKey) ([]byte, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: want %d bytes, got %d",
			ErrInvalidPublicKey, ed25519.PublicKeySize, len(pub))
	}
	return append([]byte{ed25519Prefix}, pub...), nil
}
