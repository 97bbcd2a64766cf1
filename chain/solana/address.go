package solana

import (
	"crypto/ed25519"
	"fmt"

	solanago "github.com/gagliardetto/solana-go"
)

// Address returns the Solana address of pub: the base58 encoding (Bitcoin
// alphabet, no checksum) of the raw 32-byte Ed25519 public key, 32 to 44
// characters. On Solana the public key is the account address; there is no
// hashing step.
//
// Only the length is checked. The key comes from the HSM, which generated
// it; like the Solana SDKs, Address does not decode the curve point.
func Address(pub ed25519.PublicKey) (string, error) {
	if len(pub) != ed25519.PublicKeySize {
		return "", fmt.Errorf("%w: want %d bytes, got %d",
			ErrInvalidPublicKey, ed25519.PublicKeySize, len(pub))
	}
	// PublicKeyFromBytes panics on any other length; checked above.
	return solanago.PublicKeyFromBytes(pub).String(), nil
}
