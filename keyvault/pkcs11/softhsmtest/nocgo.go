//go:build !cgo

package softhsmtest

import (
	"testing"

	"github.com/opencustody/ocv/keyvault/pkcs11"
)

// New fails the test: SoftHSM2 is reached through cgo.
func New(t testing.TB) pkcs11.Config {
	t.Helper()
	t.Fatal("softhsmtest: built without cgo; SoftHSM2 tests need CGO_ENABLED=1")
	return pkcs11.Config{}
}
