package keyvaulttest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	decredecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

func (x *exercise) sign(t *testing.T) {
	for _, alg := range signingAlgorithms {
		t.Run(string(alg), func(t *testing.T) {
			ctx := t.Context()
			ref := x.ref("sign/"+string(alg), 1)
			info := x.mustCreate(t, ref, alg)
			s, err := x.ks.Signer(ctx, ref)
			require.NoError(t, err)
			require.Equal(t, alg, s.Algorithm())
			require.Equal(t, info.Public, s.Public())

			for _, msg := range []string{"first", "second", "third"} {
				in := digest(msg)
				sig, err := s.SignDigest(ctx, in)
				require.NoError(t, err)
				require.Len(t, sig, 64)
				require.NoError(t, Verify(alg, s.Public(), in, sig))
				// The verifier is not a rubber stamp.
				require.Error(t, Verify(alg, s.Public(), digest("other"), sig))
			}
			if alg != keyvault.Ed25519 {
				// An ECDSA signer takes a 32-byte digest, nothing else.
				_, err = s.SignDigest(ctx, make([]byte, 31))
				require.Error(t, err)
				_, err = s.SignDigest(ctx, make([]byte, 64))
				require.Error(t, err)
			}
		})
	}
	t.Run("fail symmetric key", func(t *testing.T) {
		ref := x.ref("sign/aes", 1)
		x.mustCreate(t, ref, keyvault.AES256)
		_, err := x.ks.Signer(t.Context(), ref)
		require.ErrorIs(t, err, keyvault.ErrUnsupported)
	})
}

// Verify checks sig over digest (the message, for Ed25519) against pub the
// way a chain or JWT verifier would: ECDSA sig is raw r‖s, high S accepted.
func Verify(alg keyvault.Algorithm, pub crypto.PublicKey, digest, sig []byte) error {
	if len(sig) != 64 {
		return fmt.Errorf("verifying: signature of %d bytes", len(sig))
	}
	switch alg {
	case keyvault.P256:
		pk, ok := pub.(*ecdsa.PublicKey)
		if !ok {
			return fmt.Errorf("verifying: p-256 public key is %T", pub)
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(pk, digest, r, s) {
			return errors.New("verifying: bad p-256 signature")
		}
	case keyvault.Secp256k1:
		pt, ok := pub.(keyvault.Secp256k1Point)
		if !ok {
			return fmt.Errorf("verifying: secp256k1 public key is %T", pub)
		}
		pk, err := secp256k1.ParsePubKey(pt)
		if err != nil {
			return fmt.Errorf("verifying: %w", err)
		}
		var r, s secp256k1.ModNScalar
		if r.SetByteSlice(sig[:32]) || s.SetByteSlice(sig[32:]) {
			return errors.New("verifying: r or s not below the group order")
		}
		if !decredecdsa.NewSignature(&r, &s).Verify(digest, pk) {
			return errors.New("verifying: bad secp256k1 signature")
		}
	case keyvault.Ed25519:
		pk, ok := pub.(ed25519.PublicKey)
		if !ok {
			return fmt.Errorf("verifying: ed25519 public key is %T", pub)
		}
		if !ed25519.Verify(pk, digest, sig) {
			return errors.New("verifying: bad ed25519 signature")
		}
	default:
		return fmt.Errorf("verifying: algorithm %q", alg)
	}
	return nil
}

func requirePublicType(t *testing.T, alg keyvault.Algorithm, pub crypto.PublicKey) {
	t.Helper()
	switch alg {
	case keyvault.AES256, keyvault.HMACSHA256:
		require.Nil(t, pub)
	case keyvault.P256:
		pk, ok := pub.(*ecdsa.PublicKey)
		require.True(t, ok, "public key is %T", pub)
		require.Equal(t, "P-256", pk.Curve.Params().Name)
	case keyvault.Secp256k1:
		pt, ok := pub.(keyvault.Secp256k1Point)
		require.True(t, ok, "public key is %T", pub)
		require.Len(t, pt, 65)
		_, err := secp256k1.ParsePubKey(pt)
		require.NoError(t, err)
	case keyvault.Ed25519:
		pk, ok := pub.(ed25519.PublicKey)
		require.True(t, ok, "public key is %T", pub)
		require.Len(t, pk, ed25519.PublicKeySize)
	}
}

func digest(msg string) []byte {
	d := sha256.Sum256([]byte(msg))
	return d[:]
}
