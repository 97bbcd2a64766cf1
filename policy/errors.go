package policy

import "errors"

// Sentinel errors of the policy package. Errors returned by this package wrap
// one or more of them; messages name the offending field and never echo a
// secret value.
var (
	// ErrInvalidPath reports a secret path that breaks the path rules.
	ErrInvalidPath = errors.New("invalid secret path")
	// ErrInvalidPattern reports a path pattern that breaks the pattern rules.
	ErrInvalidPattern = errors.New("invalid path pattern")
	// ErrInvalidPolicy reports a policy with an invalid field.
	ErrInvalidPolicy = errors.New("invalid policy")
	// ErrInvalidRole reports a role string that is not exactly owner, admin or member.
	ErrInvalidRole = errors.New("invalid role")
	// ErrInvalidEncoding reports a policy-set encoding that DecodeSet refuses.
	ErrInvalidEncoding = errors.New("invalid policy set encoding")
	// ErrDenied reports a request that the policies do not allow (see Decision.Err).
	ErrDenied = errors.New("denied by policy")
)
