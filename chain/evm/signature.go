package evm

import (
	"bytes"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/opencustody/ocv/keyvault"
)

var (
	secp256k1N     = crypto.S256().Params().N
	secp256k1HalfN = new(big.Int).Rsh(secp256k1N, 1)
)

// RecoverableSignature turns the raw 64-byte r‖s an HSM produced over digest
// into Ethereum's 65-byte r‖s‖v with v in {0, 1}.
//
// HSMs do not normalise s, but Ethereum rejects high-S signatures
// (EIP-2), so s is replaced by N−s when s > N/2. The recovery id is then
// found by recovering with v = 0 and v = 1 and comparing against pub; an
// error wrapping ErrInvalidSignature is returned when neither matches, which
// also catches an HSM that signed with another key.
func RecoverableSignature(digest, rawRS []byte, pub keyvault.Secp256k1Point) ([]byte, error) {
	if len(digest) != 32 {
		return nil, fmt.Errorf("%w: digest is %d bytes, want 32", ErrInvalidSignature, len(digest))
	}
	if len(rawRS) != 64 {
		return nil, fmt.Errorf("%w: raw signature is %d bytes, want 64", ErrInvalidSignature, len(rawRS))
	}
	if err := checkPoint(pub); err != nil {
		return nil, err
	}
	r := new(big.Int).SetBytes(rawRS[:32])
	s := new(big.Int).SetBytes(rawRS[32:])
	if r.Sign() == 0 || s.Sign() == 0 || r.Cmp(secp256k1N) >= 0 || s.Cmp(secp256k1N) >= 0 {
		return nil, fmt.Errorf("%w: r or s out of range", ErrInvalidSignature)
	}
	if s.Cmp(secp256k1HalfN) > 0 {
		s.Sub(secp256k1N, s)
	}
	sig := make([]byte, 65)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	for v := byte(0); v <= 1; v++ {
		sig[64] = v
		got, err := crypto.Ecrecover(digest, sig)
		if err == nil && bytes.Equal(got, pub) {
			return sig, nil
		}
	}
	return nil, fmt.Errorf("%w: does not recover to the signing key", ErrInvalidSignature)
}

// checkSig65 accepts r‖s‖v with v in {0, 1}, r and s in range and s low.
func checkSig65(sig []byte) error {
	if len(sig) != 65 {
		return fmt.Errorf("%w: signature is %d bytes, want 65", ErrInvalidSignature, len(sig))
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(sig[64], r, s, true) {
		return fmt.Errorf("%w: v must be 0 or 1 and s low", ErrInvalidSignature)
	}
	return nil
}
