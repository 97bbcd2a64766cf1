package metering

import "errors"

// Sentinel errors (returned wrapped).
var (
	// ErrUnknownTier: a tier name that is none of the five.
	ErrUnknownTier = errors.New("unknown tier")
	// ErrResourceLimit: the organization's tier allows no more of a
	// resource. Errors wrapping it are *LimitError and map to 403
	// resource_limit_exceeded through httperr.Problem.
	ErrResourceLimit = errors.New("resource limit exceeded")
	// ErrInvalidConfig: a metering setting is out of range.
	ErrInvalidConfig = errors.New("invalid metering configuration")
	// ErrContention: a usage lease kept losing races at the quota edge.
	ErrContention = errors.New("usage counter contention")
)
