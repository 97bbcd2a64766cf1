package evm

import (
	"errors"
	"fmt"
)

// Sentinel errors of this package; returned errors wrap them.
var (
	// ErrInvalidTx reports a malformed or inconsistent transaction request.
	ErrInvalidTx = errors.New("invalid transaction request")
	// ErrTooLarge reports a request over MaxRequestSize (also wraps ErrInvalidTx).
	ErrTooLarge = errors.New("request too large")
	// ErrInvalidPublicKey reports a key that is not an uncompressed secp256k1 point.
	ErrInvalidPublicKey = errors.New("invalid secp256k1 public key")
	// ErrInvalidSignature reports a signature that is malformed or does not
	// belong to the expected key.
	ErrInvalidSignature = errors.New("invalid signature")
	// ErrInvalidTypedData reports EIP-712 data that cannot be hashed safely.
	ErrInvalidTypedData = errors.New("invalid typed data")
	// ErrInvalidAmount reports an amount or quantity that is malformed,
	// negative or does not fit in 256 bits.
	ErrInvalidAmount = errors.New("invalid amount")
)

// FieldError names the request field that failed validation. It wraps
// ErrInvalidTx, so callers test it with errors.Is and may show Field to the
// client (it never holds secrets).
type FieldError struct {
	Field  string // JSON name, e.g. "access_list[1].storage_keys[0]"
	Reason string
}

// Error implements error.
func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s: %s", ErrInvalidTx, e.Field, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidTx) true.
func (e *FieldError) Unwrap() error { return ErrInvalidTx }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
