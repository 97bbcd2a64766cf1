package pkcs11_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/softhsmtest"
)

func TestRegisters(t *testing.T) {
	t.Parallel()
	cfg := softhsmtest.New(t)
	ctx := t.Context()
	a, err := pkcs11.New(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })

	_, err = a.ReadRegister(ctx, "floor/never")
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)

	require.NoError(t, a.WriteRegister(ctx, "floor/x", []byte("one")))
	require.NoError(t, a.WriteRegister(ctx, "floor/x", []byte("two")))
	got, err := a.ReadRegister(ctx, "floor/x")
	require.NoError(t, err)
	require.Equal(t, []byte("two"), got)

	// A second store on the same token (a restarted or second enclave)
	// reads the same value.
	b, err := pkcs11.New(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	got, err = b.ReadRegister(ctx, "floor/x")
	require.NoError(t, err)
	require.Equal(t, []byte("two"), got)

	require.Error(t, a.WriteRegister(ctx, "floor/x", bytes.Repeat([]byte{1}, keyvault.MaxRegisterLen+1)))
	require.Error(t, a.WriteRegister(ctx, "", []byte("x")))
	require.Error(t, a.WriteRegister(ctx, "bad\nname", []byte("x")))
}
