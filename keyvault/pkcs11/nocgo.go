//go:build !cgo

package pkcs11

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/keyvault"
)

// Store is the PKCS#11 KeyStore. Built without cgo it cannot exist: New
// always fails, and the methods only keep the type complete.
type Store struct{}

// New answers keyvault.ErrUnsupported: the PKCS#11 binding needs cgo.
func New(context.Context, Config) (*Store, error) {
	return nil, errNoCgo
}

var errNoCgo = fmt.Errorf("%w: built without cgo", keyvault.ErrUnsupported)

// CreateKey answers keyvault.ErrUnsupported.
func (*Store) CreateKey(context.Context, keyvault.CreateKeyRequest) (keyvault.KeyInfo, error) {
	return keyvault.KeyInfo{}, errNoCgo
}

// Key answers keyvault.ErrUnsupported.
func (*Store) Key(context.Context, keyvault.KeyRef) (keyvault.KeyInfo, error) {
	return keyvault.KeyInfo{}, errNoCgo
}

// Versions answers keyvault.ErrUnsupported.
func (*Store) Versions(context.Context, string) ([]uint32, error) { return nil, errNoCgo }

// Signer answers keyvault.ErrUnsupported.
func (*Store) Signer(context.Context, keyvault.KeyRef) (keyvault.DigestSigner, error) {
	return nil, errNoCgo
}

// DestroyKey answers keyvault.ErrUnsupported.
func (*Store) DestroyKey(context.Context, keyvault.KeyRef) error { return errNoCgo }

// WrapKey answers keyvault.ErrUnsupported.
func (*Store) WrapKey(context.Context, keyvault.KeyRef, []byte) ([]byte, error) {
	return nil, errNoCgo
}

// UnwrapKey answers keyvault.ErrUnsupported.
func (*Store) UnwrapKey(context.Context, keyvault.KeyRef, []byte) ([]byte, error) {
	return nil, errNoCgo
}

// MAC answers keyvault.ErrUnsupported.
func (*Store) MAC(context.Context, keyvault.KeyRef, []byte) ([]byte, error) {
	return nil, errNoCgo
}

// Close does nothing.
func (*Store) Close() error { return nil }

// Interface guards.
var (
	_ keyvault.KeyStore   = (*Store)(nil)
	_ keyvault.KeyWrapper = (*Store)(nil)
	_ keyvault.MACer      = (*Store)(nil)
)

// ImportKey answers keyvault.ErrUnsupported.
func (*Store) ImportKey(context.Context, keyvault.ImportKeyRequest) (keyvault.KeyInfo, error) {
	return keyvault.KeyInfo{}, errNoCgo
}

// ReadRegister answers keyvault.ErrUnsupported.
func (*Store) ReadRegister(context.Context, string) ([]byte, error) { return nil, errNoCgo }

// WriteRegister answers keyvault.ErrUnsupported.
func (*Store) WriteRegister(context.Context, string, []byte) error { return errNoCgo }
