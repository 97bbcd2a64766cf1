package tokens

import "errors"

// Sentinel errors. Messages never carry the token or a claim value.
var (
	// ErrInvalidToken reports a token that is malformed, not signed by one
	// of the enclave's token-signing keys, meant for another audience,
	// missing a required claim, not yet valid or expired.
	ErrInvalidToken = errors.New("invalid access token")
	// ErrExpired reports an expired token; it always comes wrapped together
	// with ErrInvalidToken.
	ErrExpired = errors.New("access token expired")
	// ErrInvalidConfig reports a Config that New refuses.
	ErrInvalidConfig = errors.New("tokens: invalid config")
)
