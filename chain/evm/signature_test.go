package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

func TestRecoverableSignature(t *testing.T) {
	s := newTestSigner(t, testKeyHex)
	other := newTestSigner(t, "4646464646464646464646464646464646464646464646464646464646464646")
	// Enough digests that both recovery ids and both S halves occur.
	for i := range 16 {
		digest := crypto.Keccak256([]byte{byte(i)})
		for _, high := range []bool{false, true} {
			sig := s.signRecoverable(t, digest, high)
			require.LessOrEqual(t, sig[64], byte(1))
			require.LessOrEqual(t, new(big.Int).SetBytes(sig[32:64]).Cmp(secp256k1HalfN), 0)
		}
	}

	digest := crypto.Keccak256([]byte("digest"))
	good := s.rawRS(t, digest, false)
	zeroR := append([]byte(nil), good...)
	clear(zeroR[:32])
	bigS := append([]byte(nil), good...)
	secp256k1N.FillBytes(bigS[32:])

	tests := map[string]struct {
		digest, raw []byte
		pub         []byte
		wantErr     error
	}{
		"ok":                {digest: digest, raw: good, pub: s.pub},
		"fail short raw":    {digest: digest, raw: good[:63], pub: s.pub, wantErr: ErrInvalidSignature},
		"fail 65-byte raw":  {digest: digest, raw: append(good, 0), pub: s.pub, wantErr: ErrInvalidSignature},
		"fail short digest": {digest: digest[:31], raw: good, pub: s.pub, wantErr: ErrInvalidSignature},
		"fail r zero":       {digest: digest, raw: zeroR, pub: s.pub, wantErr: ErrInvalidSignature},
		"fail s = N":        {digest: digest, raw: bigS, pub: s.pub, wantErr: ErrInvalidSignature},
		// The HSM signed with another key than the one we expect: no id matches.
		"fail other key":    {digest: digest, raw: other.rawRS(t, digest, false), pub: s.pub, wantErr: ErrInvalidSignature},
		"fail other digest": {digest: crypto.Keccak256([]byte("x")), raw: good, pub: s.pub, wantErr: ErrInvalidSignature},
		"fail bad pub":      {digest: digest, raw: good, pub: s.pub[:33], wantErr: ErrInvalidPublicKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sig, err := RecoverableSignature(tc.digest, tc.raw, tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Len(t, sig, 65)
			}
		})
	}
}
