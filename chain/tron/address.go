package tron

import (
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/sha3"

	"github.com/opencustody/ocv/keyvault"
)

const (
	// addressPrefix is the version byte of every TRON mainnet account address.
	addressPrefix = 0x41
	// uncompressedLen is the length of 0x04 ‖ X ‖ Y.
	uncompressedLen = 65
)

// Address returns the TRON base58check account address of pub ("T…", 34
// characters): the last 20 bytes of Keccak-256(X ‖ Y) behind the version
// byte 0x41, encoded with the Bitcoin base58 alphabet and a 4-byte
// double-SHA-256 checksum.
func Address(pub keyvault.Secp256k1Point) (string, error) {
	id, err := accountID(pub)
	if err != nil {
		return "", err
	}
	return base58.CheckEncode(id, addressPrefix), nil
}

// HexAddress returns the hex form of pub's TRON address as the TRON HTTP API
// and TronWeb print it: "41" followed by the 20-byte account id in lower-case
// hex (42 characters, no checksum).
func HexAddress(pub keyvault.Secp256k1Point) (string, error) {
	id, err := accountID(pub)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%02x%s", addressPrefix, hex.EncodeToString(id)), nil
}

// accountID validates pub and returns Keccak-256(X ‖ Y)[12:], the same
// 20 bytes as the Ethereum address of the key.
func accountID(pub keyvault.Secp256k1Point) ([]byte, error) {
	if len(pub) != uncompressedLen || pub[0] != 0x04 {
		return nil, fmt.Errorf("%w: want %d bytes starting 0x04, got %d bytes",
			ErrInvalidPublicKey, uncompressedLen, len(pub))
	}
	// An off-curve point would still hash to an address, one that no key
	// can ever sign for: refuse it so funds cannot be sent there.
	if _, err := secp256k1.ParsePubKey(pub); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPublicKey, err)
	}
	h := sha3.NewLegacyKeccak256()
	h.Write(pub[1:])
	return h.Sum(nil)[12:], nil
}
