package egress

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Ports every destination may use without an allowlist entry.
const (
	PortHTTPS = 443
	PortHTTP  = 80
)

// Resolver resolves a host name to addresses. network is "ip", "ip4" or
// "ip6", as for (*net.Resolver).LookupNetIP. Implementations must be safe for
// concurrent use and honour ctx.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config is a Policy's settings.
type Config struct {
	// Allow is the operator's allowlist (ParseAllowlist).
	Allow Allowlist
	// AllowLoopback admits loopback destinations (127.0.0.0/8, ::1, their
	// IPv4-mapped forms and the name localhost) on any port.
	//
	// TEST ONLY: end-to-end tests run their servers on 127.0.0.1. In
	// production it would turn every admin-set URL into a request forgery
	// against the proxy's own host. Unspecified addresses, metadata
	// addresses and loopback reached through NAT64 or 6to4 stay refused.
	AllowLoopback bool
	// Resolver, when set, resolves names at connect time instead of the
	// system resolver (a test seam, or a dedicated DNS setup); the
	// connect-time check applies to whatever it answers.
	Resolver Resolver
}

// Policy is the outbound connection policy. The zero value is not usable;
// New makes one. A Policy is immutable and safe for concurrent use.
type Policy struct {
	cfg Config
}

// New returns the policy of cfg.
func New(cfg Config) *Policy {
	cfg.Allow = cfg.Allow.clone()
	return &Policy{cfg: cfg}
}

// AllowsLoopback reports whether the TEST ONLY loopback allowance is on.
func (p *Policy) AllowsLoopback() bool { return p.cfg.AllowLoopback }

// WithHostPort returns a copy of p whose allowlist also admits hostport
// ("host:port"): an operator-configured server (the SMTP relay, the S3
// endpoint) may use its port. Its addresses must still pass the policy.
func (p *Policy) WithHostPort(hostport string) (*Policy, error) {
	e, err := parseEntry(hostport, true)
	if err != nil {
		return nil, err
	}
	cfg := p.cfg
	cfg.Allow = cfg.Allow.clone()
	cfg.Allow.entries = append(cfg.Allow.entries, e)
	return &Policy{cfg: cfg}, nil
}

// defaultPorts are the ports of the URL schemes the policy knows.
var defaultPorts = map[string]uint16{"https": PortHTTPS, "wss": PortHTTPS, "http": PortHTTP, "ws": PortHTTP}

// CheckURL judges a URL an admin or operator set, without resolving names:
// scheme http, https, ws or wss, no userinfo, a valid host that is not
// refused, and a port the policy admits. Callers add their own scheme rules
// (webhooks require https). Errors wrap ErrRefused and a reason, and name at
// most the host or port, never the path, query or credentials.
func (p *Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, which may hold a token: drop it.
		return refuse(ErrInvalidURL, "")
	}
	def, known := defaultPorts[u.Scheme]
	if !known {
		return refuse(ErrUnsupportedScheme, strconv.Quote(u.Scheme))
	}
	if u.Opaque != "" {
		return refuse(ErrInvalidURL, "opaque url")
	}
	if u.User != nil {
		// Credentials in the URL would be sent to the server and stored
		// as plain configuration; they also hide the real host from people
		// reading "http://trusted.example@10.0.0.1/".
		return refuse(ErrUserinfo, "")
	}
	port := def
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			return refuse(ErrInvalidURL, "port")
		}
		port = uint16(n)
	}
	if u.Hostname() == "" {
		return refuse(ErrEmptyHost, "")
	}
	return p.checkHost(u.Hostname(), port)
}

// CheckHostPort judges an operator's host:port (an SMTP relay) as CheckURL
// judges a URL's host and port.
func (p *Policy) CheckHostPort(hostport string) error {
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		return refuse(ErrInvalidURL, "want host:port")
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return refuse(ErrInvalidURL, "port")
	}
	if host == "" {
		return refuse(ErrEmptyHost, "")
	}
	return p.checkHost(host, uint16(n))
}

// checkHost judges a host and port from configuration.
func (p *Policy) checkHost(host string, port uint16) error {
	kind, name, a, err := parseHost(host)
	if err != nil {
		return err
	}
	if kind == hostAddr {
		return p.checkPeer(a, port, p.cfg.Allow.hostAllows(a.Unmap().String(), port))
	}
	listed := p.cfg.Allow.hostAllows(name, port)
	if !listed {
		// A listed name is the operator's word; its addresses are still
		// judged at connect time.
		if err := checkName(name, p.cfg.AllowLoopback); err != nil {
			return err
		}
	}
	if listed || port == PortHTTPS || port == PortHTTP || p.cfg.AllowLoopback && isLocalhostName(name) {
		return nil
	}
	return refuse(ErrPortNotAllowed, strconv.Itoa(int(port)))
}

// checkPeer judges an address and port a connection would go to; listedHost
// says the port was admitted by a host:port entry of the name being dialed.
func (p *Policy) checkPeer(a netip.Addr, port uint16, listedHost bool) error {
	if isMetadata(a) {
		// Refused before the allowlist: no entry admits a metadata
		// service, not even one reached through NAT64 or 6to4.
		return refuse(ErrForbiddenAddress, a.Unmap().String()+" (cloud metadata)")
	}
	if a.Zone() == "" && p.cfg.Allow.cidrAllows(a.Unmap(), port) {
		return nil
	}
	if err := checkAddr(a, p.cfg.AllowLoopback); err != nil {
		return err
	}
	if listedHost || port == PortHTTPS || port == PortHTTP || p.cfg.AllowLoopback && a.Unmap().IsLoopback() {
		return nil
	}
	return refuse(ErrPortNotAllowed, strconv.Itoa(int(port)))
}

// isMetadata reports whether a is a cloud metadata address, directly,
// IPv4-mapped or embedded in a NAT64, SIIT or 6to4 address.
func isMetadata(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if metadataAddrs[a] {
		return true
	}
	v4, ok := embeddedV4(a)
	return ok && metadataAddrs[v4]
}

// Allowlist is the operator's list of extra destinations (OCV_EGRESS_ALLOW).
// The zero value admits nothing extra.
type Allowlist struct {
	entries []entry
}

// entry is one allowlist entry: a host name or a prefix, and a port.
type entry struct {
	host   string       // lowercase name or canonical address, no trailing dot; "" for a prefix
	prefix netip.Prefix // valid for a CIDR entry
	port   uint16
}

// ParseAllowlist reads allowlist entries: "host:port" (a DNS name or an
// address, IPv6 in brackets) or "CIDR:port" ("10.0.0.0/8:8545",
// "[fd00:1::/64]:8545"). Empty entries are skipped.
func ParseAllowlist(entries []string) (Allowlist, error) {
	var l Allowlist
	for _, s := range entries {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		e, err := parseEntry(s, false)
		if err != nil {
			return Allowlist{}, err
		}
		l.entries = append(l.entries, e)
	}
	return l, nil
}

// Len is the number of entries.
func (l Allowlist) Len() int { return len(l.entries) }

func (l Allowlist) clone() Allowlist {
	return Allowlist{entries: append([]entry(nil), l.entries...)}
}

// parseEntry reads one entry. portOnly makes an address literal a host
// entry (its port is admitted, the address is still judged) rather than a
// one-address prefix.
func parseEntry(s string, portOnly bool) (entry, error) {
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		return entry{}, fmt.Errorf("egress allowlist entry %q: want host:port or CIDR:port", s)
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return entry{}, fmt.Errorf("egress allowlist entry %q: port must be 1 to 65535", s)
	}
	if strings.Contains(host, "/") {
		pfx, err := netip.ParsePrefix(host)
		if err != nil {
			return entry{}, fmt.Errorf("egress allowlist entry %q: bad CIDR", s)
		}
		return entry{prefix: pfx.Masked(), port: uint16(n)}, nil
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return entry{}, fmt.Errorf("egress allowlist entry %q: empty host", s)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		if portOnly {
			return entry{host: a.String(), port: uint16(n)}, nil
		}
		// An address entry of the operator's allowlist is the one-address
		// prefix: it admits that address on that port, as a CIDR does.
		return entry{prefix: netip.PrefixFrom(a, a.BitLen()), port: uint16(n)}, nil
	}
	return entry{host: host, port: uint16(n)}, nil
}

func (l Allowlist) hostAllows(name string, port uint16) bool {
	for _, e := range l.entries {
		if e.host != "" && e.host == name && e.port == port {
			return true
		}
	}
	return false
}

func (l Allowlist) cidrAllows(a netip.Addr, port uint16) bool {
	for _, e := range l.entries {
		if e.prefix.IsValid() && e.port == port && e.prefix.Contains(a) {
			return true
		}
	}
	return false
}
