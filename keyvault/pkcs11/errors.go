package pkcs11

import "errors"

// Sentinel errors of this package. Errors of the keyvault contract
// (keyvault.ErrKeyNotFound, ErrAlreadyExists, ErrUnsupported, ErrUnwrap,
// ErrClosed) are returned wrapped as the contract says.
var (
	// ErrInvalidConfig reports a Config that fails Validate.
	ErrInvalidConfig = errors.New("invalid pkcs11 config")
	// ErrTokenNotFound reports that no token carries the configured label,
	// or that more than one does.
	ErrTokenNotFound = errors.New("token not found")
	// ErrInvalidKeyRef reports a KeyRef with an empty, oversized or
	// unprintable ID, or version 0.
	ErrInvalidKeyRef = errors.New("invalid key ref")
	// ErrInvalidLength reports a digest or data key of the wrong length.
	ErrInvalidLength = errors.New("invalid length")
)
