package webhooks

import (
	"errors"

	"github.com/opencustody/ocv/internal/egress"
)

// ErrRefusedDestination is wrapped by every error from ValidateURL and by the
// connect-time check: the destination may not receive webhooks. Handlers map
// it to a validation problem; the specific reason is one of the errors below.
// The destination rules are OCV's outbound policy (internal/egress).
var ErrRefusedDestination = egress.ErrRefused

// Reasons for refusing a destination, each wrapped together with
// ErrRefusedDestination.
var (
	// ErrInvalidURL means the URL does not parse or has a bad port.
	ErrInvalidURL = egress.ErrInvalidURL
	// ErrUnsupportedScheme means the scheme is not https (or http to a
	// loopback receiver in tests).
	ErrUnsupportedScheme = egress.ErrUnsupportedScheme
	// ErrUserinfo means the URL carries user:password@ credentials.
	ErrUserinfo = egress.ErrUserinfo
	// ErrEmptyHost means the URL has no host.
	ErrEmptyHost = egress.ErrEmptyHost
	// ErrInvalidHost means the host is neither a valid name nor an address.
	ErrInvalidHost = egress.ErrInvalidHost
	// ErrForbiddenHost means the host name is local, internal or a cloud
	// metadata name.
	ErrForbiddenHost = egress.ErrForbiddenHost
	// ErrForbiddenAddress means the address is private, loopback,
	// link-local, reserved, multicast, unspecified or a metadata address.
	ErrForbiddenAddress = egress.ErrForbiddenAddress
	// ErrPortNotAllowed means the port is neither 443 nor 80 and the
	// operator's allowlist does not admit it.
	ErrPortNotAllowed = egress.ErrPortNotAllowed
)

// Errors from Verify.
var (
	// ErrBadSignature means the signature is malformed or does not match.
	ErrBadSignature = errors.New("bad webhook signature")
	// ErrBadTimestamp means the signed body has no valid timestamp.
	ErrBadTimestamp = errors.New("bad webhook timestamp")
	// ErrStaleTimestamp means the signed timestamp is outside the tolerance
	// (a replay, or a badly skewed clock).
	ErrStaleTimestamp = errors.New("webhook timestamp outside tolerance")
)

// ErrInvalidConfig means a WorkerConfig is unusable.
var ErrInvalidConfig = errors.New("invalid webhook worker config")
