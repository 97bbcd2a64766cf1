package edgetls

import "errors"

// ErrInvalidKey is returned (wrapped) by PGStorage when a storage key or a
// lock name is empty, too long or not a clean slash-separated path.
var ErrInvalidKey = errors.New("invalid storage key")

// ErrLockNotHeld is returned (wrapped) by PGStorage.Unlock and
// PGStorage.RenewLockLease when this storage does not hold the named lock,
// including when its lease expired and another process took it over.
var ErrLockNotHeld = errors.New("lock not held")

// ErrInvalidHost is returned (wrapped) by DevTLS for a host that is neither
// an IP address nor a DNS name.
var ErrInvalidHost = errors.New("invalid host")

// ErrInvalidDevCA is returned (wrapped) by DevTLS when the CA files on disk
// exist but cannot be used (unparsable, not a CA, key does not match). DevTLS
// never overwrites them silently because a user may have installed the CA
// into a trust store; delete the files to start over.
var ErrInvalidDevCA = errors.New("invalid development CA")

// ErrInvalidConfig is returned (wrapped) by ACMEConfig.Validate and DevTLS
// for a configuration that cannot work; the message names the field.
var ErrInvalidConfig = errors.New("invalid TLS configuration")
