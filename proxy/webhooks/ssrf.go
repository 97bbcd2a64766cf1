package webhooks

import (
	"context"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Options tunes destination checks and the delivery client.
type Options struct {
	// AllowLoopback admits loopback destinations (127.0.0.0/8, ::1 and
	// their IPv4-mapped forms, and the name "localhost").
	//
	// TEST ONLY. It exists so that end-to-end tests can run a real receiver
	// on 127.0.0.1. Never expose it in production configuration: it turns
	// every webhook into a request forgery against the proxy's own host.
	// Unspecified addresses (0.0.0.0, ::) stay refused even when it is set.
	AllowLoopback bool

	// Resolver, when set, resolves destination names for the client from
	// NewClient instead of the system resolver. It is a seam for tests (a
	// name that resolves to 127.0.0.1) and for a dedicated DNS setup; the
	// connect-time check applies to whatever it returns. ValidateURL does
	// not resolve names and ignores it. *net.Resolver satisfies it.
	Resolver Resolver
}

// Resolver resolves a host name to addresses. network is "ip", "ip4" or
// "ip6", as for (*net.Resolver).LookupNetIP. Implementations must be safe
// for concurrent use and honour ctx.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// forbiddenSuffixes are name suffixes that never name a public receiver:
// special-use and private-use zones (RFC 6761, RFC 6762 appendix G,
// RFC 8375) and the zone of the cloud metadata names.
var forbiddenSuffixes = []string{
	".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".arpa",
	".lan", ".home", ".corp", ".intranet", ".private",
}

// metadataNames are cloud instance metadata endpoints by name. Most are
// caught by the suffix or single-label rules too; they are listed so the
// intent survives a change of those rules.
var metadataNames = map[string]bool{
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"metadata":                   true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// ValidateURL reports whether raw may be a webhook destination. It refuses
// non-HTTP(S) schemes, userinfo, an empty or malformed host, local and
// internal names, cloud metadata names and every non-public address in any
// spelling a resolver or browser accepts (see doc.go). It does not resolve
// names: the client from NewClient re-checks the resolved address at connect
// time. Errors wrap ErrRefusedDestination and a specific reason, and name at
// most the host, never the path, query or credentials.
func ValidateURL(raw string, opts Options) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, which may hold a token: drop it.
		return refuse(ErrInvalidURL, "")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return refuse(ErrUnsupportedScheme, strconv.Quote(u.Scheme))
	}
	if u.Opaque != "" {
		return refuse(ErrInvalidURL, "opaque url")
	}
	if u.User != nil {
		// Credentials in the URL would be sent to the receiver and stored
		// as plain configuration; they also hide the real host from people
		// reading "http://trusted.example@10.0.0.1/".
		return refuse(ErrUserinfo, "")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return refuse(ErrInvalidURL, "port")
		}
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return refuse(ErrEmptyHost, "")
	}
	return checkHost(host, opts)
}

// checkHost judges a host from a URL: an IPv6 literal, an IPv4 address in
// any legacy spelling, or a DNS name.
func checkHost(host string, opts Options) error {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return refuse(ErrInvalidHost, strconv.Quote(host))
		}
		return checkAddr(a, opts.AllowLoopback)
	}
	// One trailing dot is the absolute form of the same name ("localhost."
	// is localhost); more than one is not a name.
	name := strings.TrimSuffix(host, ".")
	if name == "" || strings.HasSuffix(name, ".") {
		return refuse(ErrInvalidHost, strconv.Quote(host))
	}
	if endsInNumber(name) {
		// A browser (WHATWG URL) and inet_aton read such a host as an IPv4
		// address, so judge it as one; if it is not a valid one, it is
		// not a valid host either ("1.2.3.4.5", "example.123").
		a, err := parseLegacyIPv4(name)
		if err != nil {
			return refuse(ErrInvalidHost, strconv.Quote(host))
		}
		return checkAddr(a, opts.AllowLoopback)
	}
	return checkName(name, opts.AllowLoopback)
}

// checkName judges a DNS name (lowercase, no trailing dot).
func checkName(name string, allowLoopback bool) error {
	if len(name) > 253 {
		return refuse(ErrInvalidHost, "name too long")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return refuse(ErrInvalidHost, strconv.Quote(name))
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			// ASCII only: an internationalized name must arrive in its
			// punycode (xn--) form, so that no Unicode mapping (fullwidth
			// "ｌｏｃａｌｈｏｓｔ", dotless i) can turn an accepted name into
			// a forbidden one later in the resolver.
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return refuse(ErrInvalidHost, strconv.Quote(name))
			}
		}
	}
	if metadataNames[name] {
		return refuse(ErrForbiddenHost, name+" (cloud metadata)")
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if allowLoopback {
			return nil
		}
		return refuse(ErrForbiddenHost, name+" (loopback)")
	}
	for _, s := range forbiddenSuffixes {
		if strings.HasSuffix(name, s) {
			return refuse(ErrForbiddenHost, name+" (local or internal zone)")
		}
	}
	if !strings.Contains(name, ".") {
		// A single-label name is completed by the resolver's search
		// domains, i.e. it names something on the local network.
		return refuse(ErrForbiddenHost, name+" (single label)")
	}
	return nil
}
