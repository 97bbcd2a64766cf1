package memstore

import "errors"

// Sentinel errors of this package; the keyvault contract's own sentinels are
// returned wrapped where the contract names them.
var (
	// ErrNotInTest reports a New outside a test binary.
	ErrNotInTest = errors.New("memstore used outside tests")
	// ErrInvalidKeyRef reports a KeyRef with an empty ID or version 0.
	ErrInvalidKeyRef = errors.New("invalid key ref")
	// ErrInvalidLength reports a digest or data key of the wrong length.
	ErrInvalidLength = errors.New("invalid length")
)
