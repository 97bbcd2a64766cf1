package egress

import (
	"net/netip"
	"strconv"
	"strings"
)

// forbiddenSuffixes are name suffixes that never name a public service:
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

// hostKind is what a URL host turned out to be.
type hostKind int

const (
	hostName hostKind = iota
	hostAddr
)

// parseHost reads a host from a URL or a host:port (lowercase): an IPv6
// literal, an IPv4 address in any legacy spelling (returned as an address),
// or a DNS name (returned without its trailing dot).
func parseHost(host string) (hostKind, string, netip.Addr, error) {
	host = strings.ToLower(host)
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return 0, "", netip.Addr{}, refuse(ErrInvalidHost, strconv.Quote(host))
		}
		return hostAddr, "", a, nil
	}
	// One trailing dot is the absolute form of the same name ("localhost."
	// is localhost); more than one is not a name.
	name := strings.TrimSuffix(host, ".")
	if name == "" || strings.HasSuffix(name, ".") {
		return 0, "", netip.Addr{}, refuse(ErrInvalidHost, strconv.Quote(host))
	}
	if endsInNumber(name) {
		// A browser (WHATWG URL) and inet_aton read such a host as an IPv4
		// address, so judge it as one; if it is not a valid one, it is
		// not a valid host either ("1.2.3.4.5", "example.123").
		a, err := parseLegacyIPv4(name)
		if err != nil {
			return 0, "", netip.Addr{}, refuse(ErrInvalidHost, strconv.Quote(host))
		}
		return hostAddr, "", a, nil
	}
	return hostName, name, netip.Addr{}, nil
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
	if isLocalhostName(name) {
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

func isLocalhostName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// IsLoopbackHost reports whether a URL host is localhost (or a name under
// it) or a loopback address in any spelling, IPv4-mapped forms included.
// Callers use it to admit plain http to a loopback destination, which the
// policy itself admits only in test builds.
func IsLoopbackHost(host string) bool {
	kind, name, a, err := parseHost(host)
	switch {
	case err != nil:
		return false
	case kind == hostName:
		return isLocalhostName(name)
	}
	return a.Zone() == "" && a.Unmap().IsLoopback()
}
