package ops

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"fmt"
	"math/big"
)

var (
	p256N     = elliptic.P256().Params().N
	p256HalfN = new(big.Int).Rsh(p256N, 1)
)

// canonicalES256 turns the HSM's raw r‖s into the canonical form: s
// replaced by n−s when it is in the upper half (both verify; one byte
// string per signature is what we hand out). It then verifies the result
// under pub, so a faulty HSM signature never leaves the enclave.
func canonicalES256(pub *ecdsa.PublicKey, digest, sig []byte) ([]byte, error) {
	if len(sig) != 64 {
		return nil, fmt.Errorf("signature length %d: %w", len(sig), errBadSignature)
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:])
	if s.Cmp(p256HalfN) > 0 {
		s.Sub(p256N, s)
	}
	if !ecdsa.Verify(pub, digest, r, s) {
		return nil, errBadSignature
	}
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out, nil
}
