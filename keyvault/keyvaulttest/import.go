package keyvaulttest

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// importVectors are private keys with the public keys they must give.
var importVectors = []struct {
	alg     keyvault.Algorithm
	private string
}{
	{keyvault.Secp256k1, "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"},
	{keyvault.Ed25519, "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"}, // RFC 8032 test 1
}

// importKeys checks KeyImporter when the store has it: the imported key
// signs under the public key derived from the private key, a second import
// of the same ref is refused, and bad material is refused.
func (x *exercise) importKeys(t *testing.T) {
	im, ok := x.ks.(keyvault.KeyImporter)
	if !ok {
		t.Skip("the store cannot import keys")
	}
	for _, v := range importVectors {
		t.Run(string(v.alg), func(t *testing.T) {
			ctx := t.Context()
			priv, err := hex.DecodeString(v.private)
			require.NoError(t, err)
			var want any
			if v.alg == keyvault.Secp256k1 {
				want = keyvault.Secp256k1Point(secp256k1.PrivKeyFromBytes(priv).PubKey().SerializeUncompressed())
			} else {
				want = ed25519.NewKeyFromSeed(priv).Public()
			}
			ref := x.ref("import/"+string(v.alg), 1)
			info, err := im.ImportKey(ctx, keyvault.ImportKeyRequest{Ref: ref, Algorithm: v.alg, Private: priv})
			require.NoError(t, err)
			require.Equal(t, want, info.Public)
			got, err := x.ks.Key(ctx, ref)
			require.NoError(t, err)
			require.Equal(t, want, got.Public)

			s, err := x.ks.Signer(ctx, ref)
			require.NoError(t, err)
			in := digest("imported")
			sig, err := s.SignDigest(ctx, in)
			require.NoError(t, err)
			require.NoError(t, Verify(v.alg, want, in, sig))

			_, err = im.ImportKey(ctx, keyvault.ImportKeyRequest{Ref: ref, Algorithm: v.alg, Private: priv})
			require.ErrorIs(t, err, keyvault.ErrAlreadyExists)
		})
	}
	t.Run("invalid", func(t *testing.T) {
		ctx := t.Context()
		for name, req := range map[string]keyvault.ImportKeyRequest{
			"short":       {Ref: x.ref("import/bad", 1), Algorithm: keyvault.Secp256k1, Private: make([]byte, 31)},
			"zero scalar": {Ref: x.ref("import/bad", 2), Algorithm: keyvault.Secp256k1, Private: make([]byte, 32)},
			"over order":  {Ref: x.ref("import/bad", 3), Algorithm: keyvault.Secp256k1, Private: bytesOf(0xff, 32)},
			"aes":         {Ref: x.ref("import/bad", 4), Algorithm: keyvault.AES256, Private: make([]byte, 32)},
		} {
			_, err := im.ImportKey(ctx, req)
			require.Error(t, err, name)
		}
	})
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}
