package cardano

import (
	"crypto/ed25519"
	"fmt"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"golang.org/x/crypto/blake2b"
)

// KeyHashSize is the length of a Cardano payment key hash (Blake2b-224).
const KeyHashSize = 28

// CIP-19 header bytes of an enterprise address whose payment credential is a
// key hash: address type 6 in the high nibble, network id in the low one.
const (
	headerEnterpriseTestnet = 0x60 // network id 0: preprod, preview, testnets
	headerEnterpriseMainnet = 0x61 // network id 1: mainnet
)

// CIP-5 human-readable prefixes of Shelley payment addresses.
const (
	hrpMainnet = "addr"
	hrpTestnet = "addr_test"
)

// PaymentKeyHash returns Blake2b-224(pub), the payment credential Cardano
// derives from an Ed25519 verification key. Transaction witnesses and
// required-signer fields refer to keys by this hash.
func PaymentKeyHash(pub ed25519.PublicKey) ([KeyHashSize]byte, error) {
	var out [KeyHashSize]byte
	if len(pub) != ed25519.PublicKeySize {
		return out, fmt.Errorf("%w: want %d bytes, got %d",
			ErrInvalidPublicKey, ed25519.PublicKeySize, len(pub))
	}
	h, err := blake2b.New(KeyHashSize, nil)
	if err != nil {
		// Unreachable: New fails only for a bad size or key, both constant.
		return out, fmt.Errorf("creating blake2b-224: %w", err)
	}
	h.Write(pub)
	copy(out[:], h.Sum(nil))
	return out, nil
}

// Address returns pub's Shelley ENTERPRISE address (CIP-19 type 6): the
// 29 bytes header ‖ Blake2b-224(pub), header 0x61 on mainnet and 0x60 on the
// test networks, in bech32 with prefix "addr" ("addr1v…", 58 characters) or
// "addr_test" ("addr_test1v…", 63 characters).
//
// An enterprise address has no stake part: funds held there cannot be
// delegated, which suits an agent's signing account. The result is shorter
// than bech32's 90-character limit, so strict BIP-173 decoders read it too.
//
// Only the length of pub is checked. The key comes from the HSM, which
// generated it; like the Cardano serialization library, Address does not
// decode the curve point.
func Address(pub ed25519.PublicKey, mainnet bool) (string, error) {
	hash, err := PaymentKeyHash(pub)
	if err != nil {
		return "", err
	}
	header, hrp := byte(headerEnterpriseTestnet), hrpTestnet
	if mainnet {
		header, hrp = headerEnterpriseMainnet, hrpMainnet
	}
	raw := append([]byte{header}, hash[:]...)
	groups, err := bech32.ConvertBits(raw, 8, 5, true)
	if err != nil {
		return "", fmt.Errorf("converting address to 5-bit groups: %w", err)
	}
	addr, err := bech32.Encode(hrp, groups)
	if err != nil {
		return "", fmt.Errorf("encoding enterprise address in bech32: %w", err)
	}
	return addr, nil
}
