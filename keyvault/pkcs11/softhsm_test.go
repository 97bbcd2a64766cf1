package pkcs11_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault/keyvaulttest"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/softhsmtest"
)

// newStore opens a Store on a fresh SoftHSM token, closed when t ends.
func newStore(t testing.TB, mutate ...func(*pkcs11.Config)) *pkcs11.Store {
	t.Helper()
	cfg := softhsmtest.New(t)
	for _, m := range mutate {
		m(&cfg)
	}
	s, err := pkcs11.New(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func TestSoftHSM(t *testing.T) {
	keyvaulttest.Exercise(t, newStore(t))
}
