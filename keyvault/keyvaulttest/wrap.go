package keyvaulttest

import (
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

func (x *exercise) wrap(t *testing.T) {
	kw, ok := x.ks.(keyvault.KeyWrapper)
	if !ok {
		t.Log("store does not implement keyvault.KeyWrapper")
		return
	}
	ctx := t.Context()
	kek := x.ref("wrap/kek", 1)
	otherKEK := x.ref("wrap/kek", 2)
	x.mustCreate(t, kek, keyvault.AES256)
	x.mustCreate(t, otherKEK, keyvault.AES256)

	for _, n := range []int{16, 24, 32} {
		dek := make([]byte, n)
		_, _ = rand.Read(dek)
		wrapped, err := kw.WrapKey(ctx, kek, dek)
		require.NoError(t, err)
		require.Len(t, wrapped, n+8)
		again, err := kw.WrapKey(ctx, kek, dek)
		require.NoError(t, err)
		require.Equal(t, wrapped, again, "RFC 3394 key wrap is deterministic")
		got, err := kw.UnwrapKey(ctx, kek, wrapped)
		require.NoError(t, err)
		require.True(t, equal(dek, got), "round trip of a %d-byte data key", n)

		other, err := kw.WrapKey(ctx, otherKEK, dek)
		require.NoError(t, err)
		require.NotEqual(t, wrapped, other, "each KEK wraps differently")
	}

	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	wrapped, err := kw.WrapKey(ctx, kek, dek)
	require.NoError(t, err)

	t.Run("tampered", func(t *testing.T) {
		// Every byte is covered by the integrity check value.
		for i := range wrapped {
			bad := append([]byte(nil), wrapped...)
			bad[i] ^= 0x01
			_, err := kw.UnwrapKey(ctx, kek, bad)
			require.ErrorIs(t, err, keyvault.ErrUnwrap, "byte %d flipped", i)
		}
	})

	tests := map[string]struct {
		kek     keyvault.KeyRef
		wrapped []byte
		wantErr error
	}{
		"fail other kek":     {kek: otherKEK, wrapped: wrapped, wantErr: keyvault.ErrUnwrap},
		"fail truncated":     {kek: kek, wrapped: wrapped[:len(wrapped)-8], wantErr: keyvault.ErrUnwrap},
		"fail odd length":    {kek: kek, wrapped: wrapped[:len(wrapped)-1], wantErr: keyvault.ErrUnwrap},
		"fail too short":     {kek: kek, wrapped: wrapped[:16], wantErr: keyvault.ErrUnwrap},
		"fail empty":         {kek: kek, wrapped: nil, wantErr: keyvault.ErrUnwrap},
		"fail unknown kek":   {kek: x.ref("wrap/kek", 9), wrapped: wrapped, wantErr: keyvault.ErrKeyNotFound},
		"fail signing key":   {kek: x.ref("wrap/ec", 1), wrapped: wrapped, wantErr: keyvault.ErrUnsupported},
		"fail too long":      {kek: kek, wrapped: append(append([]byte(nil), wrapped...), wrapped[:8]...), wantErr: keyvault.ErrUnwrap},
		"fail destroyed kek": {kek: x.ref("wrap/kek", 3), wrapped: wrapped, wantErr: keyvault.ErrKeyNotFound},
	}
	x.mustCreate(t, x.ref("wrap/ec", 1), keyvault.P256)
	x.mustCreate(t, x.ref("wrap/kek", 3), keyvault.AES256)
	require.NoError(t, x.ks.DestroyKey(ctx, x.ref("wrap/kek", 3)))
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := kw.UnwrapKey(ctx, tc.kek, tc.wrapped)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}

	wrapTests := map[string]struct {
		kek     keyvault.KeyRef
		dek     []byte
		wantErr error // nil: any error (the length sentinel is the implementation's)
	}{
		"fail unknown kek":   {kek: x.ref("wrap/kek", 9), dek: dek, wantErr: keyvault.ErrKeyNotFound},
		"fail destroyed kek": {kek: x.ref("wrap/kek", 3), dek: dek, wantErr: keyvault.ErrKeyNotFound},
		"fail signing key":   {kek: x.ref("wrap/ec", 1), dek: dek, wantErr: keyvault.ErrUnsupported},
		"fail empty dek":     {kek: kek},
		"fail 15-byte dek":   {kek: kek, dek: dek[:15]},
		"fail 33-byte dek":   {kek: kek, dek: append(append([]byte(nil), dek...), 0)},
		"fail 40-byte dek":   {kek: kek, dek: make([]byte, 40)},
	}
	for name, tc := range wrapTests {
		t.Run("wrap "+name, func(t *testing.T) {
			_, err := kw.WrapKey(ctx, tc.kek, tc.dek)
			require.Error(t, err)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
		})
	}
}

// equal compares key material in constant time.
func equal(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := range a {
		v |= a[i] ^ b[i]
	}
	return v == 0
}
