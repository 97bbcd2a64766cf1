package bitcoin

import (
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"

	"github.com/opencustody/ocv/keyvault"
)

// uncompressedLen is the length of 0x04 ‖ X ‖ Y.
const uncompressedLen = 65

// Address returns the native SegWit version-0 pay-to-witness-public-key-hash
// (P2WPKH, BIP-141/BIP-173) address of pub on net: bech32 of
// HASH160(compressed pub) with net's segwit HRP, so "bc1q…" on
// chaincfg.MainNetParams, "tb1q…" on TestNet3Params and "bcrt1q…" on
// RegressionNetParams.
//
// The witness program always hashes the 33-byte COMPRESSED key: BIP-143
// makes outputs paid to a P2WPKH of an uncompressed key unspendable under
// standard policy, so hashing the 65-byte form would lose funds.
func Address(pub keyvault.Secp256k1Point, net *chaincfg.Params) (string, error) {
	if net == nil {
		return "", ErrNoNetwork
	}
	compressed, err := compress(pub)
	if err != nil {
		return "", err
	}
	addr, err := btcutil.NewAddressWitnessPubKeyHash(btcutil.Hash160(compressed), net)
	if err != nil {
		return "", fmt.Errorf("building P2WPKH address on %s: %w", net.Name, err)
	}
	return addr.EncodeAddress(), nil
}

// CompressedPublicKey returns the 33-byte SEC1 compressed form of pub
// (0x02 or 0x03 by the parity of Y, then X), or nil when pub is not a valid
// uncompressed secp256k1 point. Witnesses of P2WPKH spends carry this form.
func CompressedPublicKey(pub keyvault.Secp256k1Point) []byte {
	c, err := compress(pub)
	if err != nil {
		return nil
	}
	return c
}

// compress validates pub as an uncompressed point on the curve and returns
// its compressed encoding.
func compress(pub keyvault.Secp256k1Point) ([]byte, error) {
	// Only the uncompressed form is accepted: that is what the HSM returns,
	// and refusing the other SEC1 forms keeps one canonical input.
	if len(pub) != uncompressedLen || pub[0] != 0x04 {
		return nil, fmt.Errorf("%w: want %d bytes starting 0x04, got %d bytes",
			ErrInvalidPublicKey, uncompressedLen, len(pub))
	}
	// ParsePubKey checks that (X, Y) lies on secp256k1.
	key, err := btcec.ParsePubKey(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPublicKey, err)
	}
	return key.SerializeCompressed(), nil
}
