package evm

import (
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// TestRecoverableSignatureMatchesGoEthereum checks the one-recovery path
// against go-ethereum's crypto.Sign and crypto.Ecrecover on many random
// keys and digests, with the HSM's S in both halves, so that both recovery
// ids (and so both branches) occur many times.
func TestRecoverableSignatureMatchesGoEthereum(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 40
	}
	var ids [2]int
	for range n {
		k, err := crypto.GenerateKey()
		require.NoError(t, err)
		s := testSigner{key: k, pub: crypto.FromECDSAPub(&k.PublicKey)}
		for range 4 {
			digest := make([]byte, 32)
			_, err := rand.Read(digest)
			require.NoError(t, err)
			for _, high := range []bool{false, true} {
				sig := s.signRecoverable(t, digest, high)
				got, err := crypto.Ecrecover(digest, sig)
				require.NoError(t, err)
				require.Equal(t, []byte(s.pub), got)
				ids[sig[64]]++
			}
		}
	}
	require.NotZero(t, ids[0])
	require.NotZero(t, ids[1])
}

// TestRecoverableSignatureEdgeDigests covers digests that reduce to zero or
// overflow the group order, where e·G degenerates.
func TestRecoverableSignatureEdgeDigests(t *testing.T) {
	s := newTestSigner(t, testKeyHex)
	nPlus1 := new(big.Int).Add(secp256k1N, big.NewInt(1))
	ff := make([]byte, 32)
	for i := range ff {
		ff[i] = 0xff
	}
	digests := map[string][]byte{
		"zero":  make([]byte, 32),
		"one":   new(big.Int).SetInt64(1).FillBytes(make([]byte, 32)),
		"N":     secp256k1N.FillBytes(make([]byte, 32)),
		"N+1":   nPlus1.FillBytes(make([]byte, 32)),
		"N/2":   secp256k1HalfN.FillBytes(make([]byte, 32)),
		"2^256": ff,
	}
	for name, d := range digests {
		t.Run(name, func(t *testing.T) {
			for _, high := range []bool{false, true} {
				s.signRecoverable(t, d, high)
			}
		})
	}
}

// TestRecoverableSignatureRejectsWrongKey feeds signatures by other keys,
// and signatures over other digests, many times: whichever recovery id the
// v = 0 recovery misses, the v = 1 check must not accept a key it does not
// recover to.
func TestRecoverableSignatureRejectsWrongKey(t *testing.T) {
	s := newTestSigner(t, testKeyHex)
	for i := range 64 {
		other, err := crypto.GenerateKey()
		require.NoError(t, err)
		o := testSigner{key: other, pub: crypto.FromECDSAPub(&other.PublicKey)}
		digest := crypto.Keccak256([]byte{byte(i), 'w'})
		high := i%2 == 1
		_, err = RecoverableSignature(digest, o.rawRS(t, digest, high), s.pub)
		require.ErrorIs(t, err, ErrInvalidSignature)
		wrongDigest := crypto.Keccak256([]byte{byte(i), 'x'})
		_, err = RecoverableSignature(wrongDigest, s.rawRS(t, digest, high), s.pub)
		require.ErrorIs(t, err, ErrInvalidSignature)
	}
}

// TestOtherRecoveryIs checks the Q₀ + Q₁ identity directly: it holds for
// the v = 1 key and for no other key.
func TestOtherRecoveryIs(t *testing.T) {
	for i := range 64 {
		k, err := crypto.GenerateKey()
		require.NoError(t, err)
		pub := crypto.FromECDSAPub(&k.PublicKey)
		digest := crypto.Keccak256([]byte{byte(i), 'o'})
		sig, err := crypto.Sign(digest, k)
		require.NoError(t, err)
		// q0 is the key that the other recovery id yields.
		flipped := append([]byte(nil), sig...)
		flipped[64] ^= 1
		q0, err := crypto.Ecrecover(digest, flipped)
		require.NoError(t, err)
		// Seen from the flipped signature, pub is its other recovery.
		require.True(t, otherRecoveryIs(digest, sig[:32], q0, pub))
		require.False(t, otherRecoveryIs(digest, sig[:32], q0, q0))
		require.False(t, otherRecoveryIs(crypto.Keccak256(digest), sig[:32], q0, pub))
		require.False(t, otherRecoveryIs(digest, sig[:32], pub[:33], pub), "malformed point")
	}
}
