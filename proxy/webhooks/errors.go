package webhooks

import "errors"

// ErrRefusedDestination is wrapped by every error from ValidateURL and by the
// connect-time check: the destination may not receive webhooks. Handlers map
// it to a validation problem; the specific reason is one of the errors below.
var ErrRefusedDestination = errors.New("refused webhook destination")

// Reasons for refusing a destination, each wrapped together with
// ErrRefusedDestination.
var (
	// ErrInvalidURL means the URL does not parse or has a bad port.
	ErrInvalidURL = errors.New("invalid url")
	// ErrUnsupportedScheme means the scheme is not http or https.
	ErrUnsupportedScheme = errors.New("unsupported scheme")
	// ErrUserinfo means the URL carries user:password@ credentials.
	ErrUserinfo = errors.New("url carries credentials")
	// ErrEmptyHost means the URL has no host.
	ErrEmptyHost = errors.New("empty host")
	// ErrInvalidHost means the host is neither a valid name nor an address.
	ErrInvalidHost = errors.New("invalid host")
	// ErrForbiddenHost means the host name is local, internal or a cloud
	// metadata name.
	ErrForbiddenHost = errors.New("forbidden host name")
	// ErrForbiddenAddress means the address is private, loopback,
	// link-local, reserved, multicast, unspecified or a metadata address.
	ErrForbiddenAddress = errors.New("forbidden address")
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

// refusal is a refused destination: it matches ErrRefusedDestination and its
// kind. detail names a host or an address, never a path, query or userinfo.
type refusal struct {
	kind   error
	detail string
}

func refuse(kind error, detail string) error { return &refusal{kind: kind, detail: detail} }

func (e *refusal) Error() string {
	if e.detail == "" {
		return ErrRefusedDestination.Error() + ": " + e.kind.Error()
	}
	return ErrRefusedDestination.Error() + ": " + e.kind.Error() + ": " + e.detail
}

func (e *refusal) Unwrap() []error { return []error{ErrRefusedDestination, e.kind} }
