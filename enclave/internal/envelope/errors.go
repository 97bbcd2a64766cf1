package envelope

import "errors"

// Sentinel errors.
var (
	// ErrIntegrity is every failure to open: a wrong locator, a swapped or
	// damaged wrapped key, an edited ciphertext. It says nothing more, on
	// purpose.
	ErrIntegrity = errors.New("envelope: integrity check failed")
	// ErrUnsupportedFormat is a blob whose version byte this code does not
	// know.
	ErrUnsupportedFormat = errors.New("envelope: unsupported blob format")
	// ErrInvalidLocator is an empty or malformed org, vault or path.
	ErrInvalidLocator = errors.New("envelope: invalid locator")
	// ErrInvalidConfig is a Config that New refuses.
	ErrInvalidConfig = errors.New("envelope: invalid config")
)
