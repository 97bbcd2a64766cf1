package bitcoin

import "errors"

// Sentinel errors of this package; returned errors wrap them.
var (
	// ErrInvalidPublicKey reports a key that is not a 65-byte uncompressed
	// secp256k1 point (0x04 ‖ X ‖ Y) on the curve.
	ErrInvalidPublicKey = errors.New("invalid secp256k1 public key")
	// ErrNoNetwork reports a nil *chaincfg.Params.
	ErrNoNetwork = errors.New("no bitcoin network parameters")
)
