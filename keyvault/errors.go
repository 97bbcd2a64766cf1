package keyvault

import "errors"

// Sentinel errors every KeyStore implementation returns (wrapped).
var (
	ErrKeyNotFound   = errors.New("key not found")
	ErrAlreadyExists = errors.New("key already exists")
	ErrUnsupported   = errors.New("operation not supported")
	ErrUnwrap        = errors.New("unwrapping key failed")
	ErrClosed        = errors.New("key store closed")
	ErrInvalidKey    = errors.New("invalid key material")
)
