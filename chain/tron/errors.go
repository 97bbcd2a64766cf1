package tron

import "errors"

// ErrInvalidPublicKey reports a key that is not a 65-byte uncompressed
// secp256k1 point (0x04 ‖ X ‖ Y) on the curve. Returned errors wrap it.
var ErrInvalidPublicKey = errors.New("invalid secp256k1 public key")
