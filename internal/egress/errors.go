package egress

import "errors"

// ErrRefused is wrapped by every refusal of the policy, at check time and at
// connect time; the specific reason is one of the errors below.
var ErrRefused = errors.New("refused outbound destination")

// Reasons for refusing a destination, each wrapped together with ErrRefused.
var (
	// ErrInvalidURL means the URL does not parse or has a bad port.
	ErrInvalidURL = errors.New("invalid url")
	// ErrUnsupportedScheme means the scheme is not one the caller accepts.
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
	// ErrPortNotAllowed means the port is neither 443 nor 80 and no
	// allowlist entry admits it.
	ErrPortNotAllowed = errors.New("port not allowed")
)

// refusal is a refused destination: it matches ErrRefused and its kind.
// detail names a host, an address or a port, never a path, query or
// userinfo.
type refusal struct {
	kind   error
	detail string
}

// Refuse returns an error wrapping ErrRefused and kind (one of the reasons
// above); detail must not carry a URL's path, query or credentials.
func Refuse(kind error, detail string) error { return &refusal{kind: kind, detail: detail} }

func refuse(kind error, detail string) error { return Refuse(kind, detail) }

func (e *refusal) Error() string {
	if e.detail == "" {
		return ErrRefused.Error() + ": " + e.kind.Error()
	}
	return ErrRefused.Error() + ": " + e.kind.Error() + ": " + e.detail
}

func (e *refusal) Unwrap() []error { return []error{ErrRefused, e.kind} }

// Describe is a sentence for an API answer about a refused URL: it names the
// rule, never the URL (which may carry credentials or tokens). It is "" for
// an error that is not a refusal.
func Describe(err error) string {
	switch {
	case !errors.Is(err, ErrRefused):
		return ""
	case errors.Is(err, ErrUnsupportedScheme):
		return "url uses a scheme that is not allowed here"
	case errors.Is(err, ErrUserinfo):
		return "url must not carry user credentials"
	case errors.Is(err, ErrEmptyHost), errors.Is(err, ErrInvalidHost), errors.Is(err, ErrInvalidURL):
		return "url is not a valid absolute URL with a host"
	case errors.Is(err, ErrForbiddenHost):
		return "url names a loopback, local, internal or cloud metadata host"
	case errors.Is(err, ErrForbiddenAddress):
		return "url points to a loopback, private, link-local, reserved or cloud metadata address"
	case errors.Is(err, ErrPortNotAllowed):
		return "url port is not allowed (443 and 80 only, unless the operator's OCV_EGRESS_ALLOW lists it)"
	}
	return "url is not an allowed outbound destination"
}
