package sim

import "errors"

var (
	// ErrInvalidConfig means a Config is unusable.
	ErrInvalidConfig = errors.New("invalid simulator config")
	// ErrCorruptCA means the CA files on disk are inconsistent (a root
	// certificate without its key, or a key that does not match). They are
	// never overwritten automatically: verifiers may have pinned the root.
	ErrCorruptCA = errors.New("corrupt simulator CA")
	// ErrInputTooLarge means a public key or nonce exceeds the sizes an NSM
	// accepts.
	ErrInputTooLarge = errors.New("attestation input too large")
)
