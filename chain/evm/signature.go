package evm

import (
	"bytes"
	"fmt"
	"math/big"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
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
// (EIP-2), so s is replaced by N−s when s > N/2 (which flips R's y parity;
// the recovery id is computed on the normalised signature, so v follows).
// The recovery id is found with one public-key recovery: v = 0 is recovered
// and compared against pub; when it differs, pub is checked to be the v = 1
// key through the identity Q₀ + Q₁ = −2·r⁻¹·e·G, which costs one fixed-base
// multiplication instead of a second recovery. An error wrapping
// ErrInvalidSignature is returned when neither id yields pub, which also
// catches an HSM that signed with another key.
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
	q0, err := crypto.Ecrecover(digest, sig)
	if err == nil {
		if bytes.Equal(q0, pub) {
			return sig, nil
		}
		if otherRecoveryIs(digest, sig[:32], q0, pub) {
			sig[64] = 1
			return sig, nil
		}
		return nil, fmt.Errorf("%w: does not recover to the signing key", ErrInvalidSignature)
	}
	// v = 0 did not recover (r is no x-coordinate, or Q₀ is the point at
	// infinity): only a full recovery with v = 1 can tell.
	sig[64] = 1
	if q1, err := crypto.Ecrecover(digest, sig); err == nil && bytes.Equal(q1, pub) {
		return sig, nil
	}
	return nil, fmt.Errorf("%w: does not recover to the signing key", ErrInvalidSignature)
}

// otherRecoveryIs reports whether pub is the key recovered with v = 1 from
// a signature (r, s) over digest whose v = 0 recovery is q0.
//
// With R₀ = (r, even y) and R₁ = −R₀, recovery gives
// Qᵥ = r⁻¹·(s·Rᵥ − e·G), so Q₀ + Q₁ = −2·r⁻¹·e·G and Q₁ = −(Q₀ + 2·r⁻¹·e·G),
// where e is the digest reduced modulo N as libsecp256k1 does.
func otherRecoveryIs(digest, rBytes, q0, pub []byte) bool {
	q0Key, err := secp256k1.ParsePubKey(q0)
	if err != nil {
		return false
	}
	pubKey, err := secp256k1.ParsePubKey(pub)
	if err != nil {
		return false
	}
	var e, k secp256k1.ModNScalar
	e.SetByteSlice(digest)
	if k.SetByteSlice(rBytes) || k.IsZero() {
		return false
	}
	k.InverseNonConst().Mul(&e)
	k.Add(&k)
	var kG, q0J, q1, pubJ secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&k, &kG)
	q0Key.AsJacobian(&q0J)
	secp256k1.AddNonConst(&q0J, &kG, &q1)
	q1.Y.Normalize().Negate(1).Normalize()
	pubKey.AsJacobian(&pubJ)
	return pubJ.EquivalentNonConst(&q1)
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
