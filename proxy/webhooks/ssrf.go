package webhooks

import (
	"net/url"
	"strconv"

	"github.com/opencustody/ocv/internal/egress"
)

// Options tunes destination checks and the delivery client.
type Options struct {
	// AllowLoopback admits loopback destinations (127.0.0.0/8, ::1 and
	// their IPv4-mapped forms, and the name "localhost") on any port and
	// over plain http.
	//
	// TEST ONLY. It exists so that end-to-end tests can run a real receiver
	// on 127.0.0.1. Never expose it in production configuration: it turns
	// every webhook into a request forgery against the proxy's own host.
	// Unspecified addresses (0.0.0.0, ::) stay refused even when it is set.
	AllowLoopback bool

	// Allow is the operator's egress allowlist (OCV_EGRESS_ALLOW): other
	// ports, or private networks, a receiver may use.
	Allow egress.Allowlist

	// Resolver, when set, resolves destination names for the client from
	// NewClient instead of the system resolver. It is a seam for tests (a
	// name that resolves to 127.0.0.1) and for a dedicated DNS setup; the
	// connect-time check applies to whatever it returns. ValidateURL does
	// not resolve names and ignores it. *net.Resolver satisfies it.
	Resolver Resolver
}

// Resolver resolves a host name to addresses (egress.Resolver).
type Resolver = egress.Resolver

// policy is the outbound policy of opts.
func (o Options) policy() *egress.Policy {
	return egress.New(egress.Config{Allow: o.Allow, AllowLoopback: o.AllowLoopback, Resolver: o.Resolver})
}

// ValidateURL reports whether raw may be a webhook destination: https (plain
// http only to a loopback receiver, which only AllowLoopback admits), no
// userinfo, and a host and port the outbound policy (internal/egress)
// admits: no local or internal names, no cloud metadata names, no
// non-public address in any spelling, ports 443 and 80 unless allowlisted.
// It does not resolve names: the client from NewClient re-checks the
// resolved address at connect time. Errors wrap ErrRefusedDestination and a
// specific reason, and name at most the host, never the path, query or
// credentials.
func ValidateURL(raw string, opts Options) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, which may hold a token: drop it.
		return egress.Refuse(ErrInvalidURL, "")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !opts.AllowLoopback || !egress.IsLoopbackHost(u.Hostname()) {
			// Plain http would carry the signed event, and whatever the
			// receiver answers, readable and forgeable on the path.
			if err := opts.policy().CheckURL(raw); err != nil {
				return err
			}
			return egress.Refuse(ErrUnsupportedScheme, `"http" (https required)`)
		}
	default:
		return egress.Refuse(ErrUnsupportedScheme, strconv.Quote(u.Scheme))
	}
	return opts.policy().CheckURL(raw)
}
