//go:build !cgo

package pkcs11_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
)

func TestNewWithoutCgo(t *testing.T) {
	s, err := pkcs11.New(t.Context(), pkcs11.Config{})
	require.ErrorIs(t, err, keyvault.ErrUnsupported)
	require.Nil(t, s)
}
