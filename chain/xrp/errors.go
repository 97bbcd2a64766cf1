package xrp

import "errors"

// ErrInvalidPublicKey reports a key that is not 32 bytes long. Returned
// errors wrap it.
var ErrInvalidPublicKey = errors.New("invalid ed25519 public key")
