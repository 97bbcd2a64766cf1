package envelope

import "errors"

// Sentinel errors.
var (
	// ErrIntegrity is every failure to open: a wrong locator, a swapped or
	// damaged wrapped key, an edited ciphertext. It says nothing more, on
	// purpose.
	ErrIntegrity = errors.New("envelope: integrity check failed")
	// ErrKEKDestroyed is an Open of a value whose KEK version is gone from
	// the key store (destroyed, or lost with the token): the value can
	// never be opened again. It is told apart from ErrIntegrity because
	// the owner needs to know the value is shredded, not tampered with;
	// a KEK version newer than every version the store holds (one that
	// never existed) is still ErrIntegrity.
	ErrKEKDestroyed = errors.New("envelope: key-encryption key destroyed")
	// ErrUnsupportedFormat is a blob whose version byte this code does not
	// know.
	ErrUnsupportedFormat = errors.New("envelope: unsupported blob format")
	// ErrInvalidLocator is an empty or malformed org, vault or path.
	ErrInvalidLocator = errors.New("envelope: invalid locator")
	// ErrInvalidConfig is a Config that New refuses.
	ErrInvalidConfig = errors.New("envelope: invalid config")
)
