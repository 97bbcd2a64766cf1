package proxy

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// trustedProxies are the CIDRs of the reverse proxies whose
// X-Forwarded-For header is believed (config trusted_proxies).
type trustedProxies []netip.Prefix

// parseTrustedProxies reads CIDRs or bare addresses (a /32 or /128).
func parseTrustedProxies(list []string) (trustedProxies, error) {
	var out trustedProxies
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("parsing trusted proxy %q: %w", s, err)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("parsing trusted proxy %q: %w", s, err)
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (t trustedProxies) contains(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHostAddr reads an address with or without a port ("192.0.2.1",
// "[2001:db8::1]:443"), unmapped and without zone; invalid when it is none.
func parseHostAddr(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// clientAddr is the client's address: the direct peer, unless the peer is
// a trusted proxy; then the right-most X-Forwarded-For entry that is not
// itself a trusted proxy (the left-most when all are). Any unparsable entry
// met on the way makes the header untrustworthy: the peer is used.
func (t trustedProxies) clientAddr(remoteAddr string, xff []string) netip.Addr {
	peer := parseHostAddr(remoteAddr)
	if !peer.IsValid() || !t.contains(peer) {
		return peer
	}
	var hops []string
	for _, v := range xff {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseHostAddr(hops[i])
		if !a.IsValid() {
			return peer
		}
		client = a
		if !t.contains(a) {
			return a
		}
	}
	return client
}

// clientIP is the textual client address of r, the one thing every part of
// the proxy uses as "the caller's IP": the audit event's client_ip, the IP
// filter and the enclave's policy conditions all read it from the audit
// entry, which records it once per request.
func (s *Server) clientIP(r *http.Request) string {
	if a := s.trusted.clientAddr(r.RemoteAddr, r.Header.Values("X-Forwarded-For")); a.IsValid() {
		return a.String()
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
