package evm

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/opencustody/ocv/keyvault"
)

// Address returns the Ethereum address of an uncompressed secp256k1 public
// key: the last 20 bytes of keccak256(X ‖ Y). The point must be on the curve.
func Address(pub keyvault.Secp256k1Point) (common.Address, error) {
	if err := checkPoint(pub); err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}

// checkPoint accepts only 0x04 ‖ X ‖ Y with (X, Y) on secp256k1.
func checkPoint(pub keyvault.Secp256k1Point) error {
	if len(pub) != 65 || pub[0] != 0x04 {
		return fmt.Errorf("%w: want 65-byte uncompressed point, got %d bytes", ErrInvalidPublicKey, len(pub))
	}
	if _, err := crypto.UnmarshalPubkey(pub); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPublicKey, err)
	}
	return nil
}
