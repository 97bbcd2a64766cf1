package memstore_test

import (
	"crypto/sha256"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/keyvaulttest"
	"github.com/opencustody/ocv/keyvault/memstore"
)

func TestMemstore(t *testing.T) {
	t.Parallel()
	s, err := memstore.New()
	require.NoError(t, err)
	keyvaulttest.Exercise(t, s)
}

// An HSM does not normalise ECDSA signatures; memstore must not either, or
// callers' low-S normalisation would go untested. 64 signatures all low-S
// (or all high-S) would happen with probability 2^-63.
func TestSecp256k1SignaturesNotNormalised(t *testing.T) {
	t.Parallel()
	s, err := memstore.New()
	require.NoError(t, err)
	ctx := t.Context()
	ref := keyvault.KeyRef{ID: "k1", Version: 1}
	info, err := s.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.Secp256k1})
	require.NoError(t, err)
	sg, err := s.Signer(ctx, ref)
	require.NoError(t, err)
	high := 0
	for i := range 64 {
		d := sha256.Sum256([]byte{byte(i)})
		sig, err := sg.SignDigest(ctx, d[:])
		require.NoError(t, err)
		require.NoError(t, keyvaulttest.Verify(keyvault.Secp256k1, info.Public, d[:], sig))
		var sc secp256k1.ModNScalar
		require.False(t, sc.SetByteSlice(sig[32:]))
		if sc.IsOverHalfOrder() {
			high++
		}
	}
	require.Positive(t, high)
	require.Less(t, high, 64)
}
