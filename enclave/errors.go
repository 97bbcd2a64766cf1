package enclave

import "errors"

// Sentinel errors.
var (
	// ErrInvalidConfig is a configuration that New or Validate refuses; the
	// message names the field.
	ErrInvalidConfig = errors.New("invalid enclave config")
	// ErrAddressInUse is a Unix socket path another live enclave listens on.
	ErrAddressInUse = errors.New("enclave address in use")
)
