package keyvaulttest

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

func (x *exercise) mac(t *testing.T) {
	m, ok := x.ks.(keyvault.MACer)
	if !ok {
		t.Log("store does not implement keyvault.MACer")
		return
	}
	ctx := t.Context()
	key := x.ref("mac/key", 1)
	otherKey := x.ref("mac/key", 2)
	info := x.mustCreate(t, key, keyvault.HMACSHA256)
	require.Nil(t, info.Public, "a MAC key has no public half")
	x.mustCreate(t, otherKey, keyvault.HMACSHA256)

	big := make([]byte, 256<<10)
	_, _ = rand.Read(big)
	for name, data := range map[string][]byte{"empty": nil, "short": []byte("ocv"), "256 KiB": big} {
		t.Run(name, func(t *testing.T) {
			tag, err := m.MAC(ctx, key, data)
			require.NoError(t, err)
			require.Len(t, tag, 32)
			again, err := m.MAC(ctx, key, data)
			require.NoError(t, err)
			require.Equal(t, tag, again, "HMAC is deterministic")
			other, err := m.MAC(ctx, otherKey, data)
			require.NoError(t, err)
			require.NotEqual(t, tag, other, "each key MACs differently")
		})
	}
	a, err := m.MAC(ctx, key, []byte("policy set a"))
	require.NoError(t, err)
	b, err := m.MAC(ctx, key, []byte("policy set b"))
	require.NoError(t, err)
	require.NotEqual(t, a, b, "the tag covers the data")

	x.mustCreate(t, x.ref("mac/ec", 1), keyvault.P256)
	x.mustCreate(t, x.ref("mac/aes", 1), keyvault.AES256)
	x.mustCreate(t, x.ref("mac/key", 3), keyvault.HMACSHA256)
	require.NoError(t, x.ks.DestroyKey(ctx, x.ref("mac/key", 3)))
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	tests := map[string]struct {
		ctx     context.Context
		key     keyvault.KeyRef
		wantErr error
	}{
		"fail unknown key":   {ctx: ctx, key: x.ref("mac/key", 9), wantErr: keyvault.ErrKeyNotFound},
		"fail destroyed key": {ctx: ctx, key: x.ref("mac/key", 3), wantErr: keyvault.ErrKeyNotFound},
		"fail signing key":   {ctx: ctx, key: x.ref("mac/ec", 1), wantErr: keyvault.ErrUnsupported},
		"fail aes key":       {ctx: ctx, key: x.ref("mac/aes", 1), wantErr: keyvault.ErrUnsupported},
		"fail canceled":      {ctx: canceled, key: key, wantErr: context.Canceled},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := m.MAC(tc.ctx, tc.key, []byte("data"))
			require.ErrorIs(t, err, tc.wantErr)
		})
	}

	t.Run("mac key neither signs nor wraps", func(t *testing.T) {
		_, err := x.ks.Signer(ctx, key)
		require.ErrorIs(t, err, keyvault.ErrUnsupported)
		if kw, ok := x.ks.(keyvault.KeyWrapper); ok {
			_, err = kw.WrapKey(ctx, key, bytes.Repeat([]byte{1}, 32))
			require.ErrorIs(t, err, keyvault.ErrUnsupported)
		}
	})
}
