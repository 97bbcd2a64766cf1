package evm

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// testKeyHex is the well-known key of the web3 documentation; its address
// is 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23.
const testKeyHex = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

// testSigner stands in for the HSM: it signs digests with a software key
// and returns raw r‖s, optionally in high-S form as HSMs often do.
type testSigner struct {
	key *ecdsa.PrivateKey
	pub keyvault.Secp256k1Point
}

func newTestSigner(t testing.TB, hexKey string) testSigner {
	t.Helper()
	k, err := crypto.HexToECDSA(hexKey)
	require.NoError(t, err)
	return testSigner{key: k, pub: crypto.FromECDSAPub(&k.PublicKey)}
}

// sign returns go-ethereum's r‖s‖v for digest.
func (s testSigner) sign(t testing.TB, digest []byte) []byte {
	t.Helper()
	sig, err := crypto.Sign(digest, s.key)
	require.NoError(t, err)
	return sig
}

// rawRS returns the 64-byte r‖s as an HSM would, with s flipped to its
// high form when high is set.
func (s testSigner) rawRS(t testing.TB, digest []byte, high bool) []byte {
	t.Helper()
	sig := s.sign(t, digest)
	raw := append([]byte(nil), sig[:64]...)
	if high {
		v := new(big.Int).SetBytes(raw[32:])
		v.Sub(secp256k1N, v)
		v.FillBytes(raw[32:])
	}
	return raw
}

// signRecoverable runs the enclave's path: raw HSM output (high-S when
// asked) through RecoverableSignature, checked against crypto.Sign.
func (s testSigner) signRecoverable(t testing.TB, digest []byte, high bool) []byte {
	t.Helper()
	sig, err := RecoverableSignature(digest, s.rawRS(t, digest, high), s.pub)
	require.NoError(t, err)
	require.Equal(t, s.sign(t, digest), sig, "normalised signature must equal go-ethereum's")
	return sig
}

func ptr[T any](v T) *T { return &v }
