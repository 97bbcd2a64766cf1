package idempotency

import "errors"

// ErrInvalidKey: an Idempotency-Key that is empty, longer than 255 bytes or
// holds a character outside printable ASCII.
var ErrInvalidKey = errors.New("invalid idempotency key")
