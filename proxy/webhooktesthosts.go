package proxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// testHostsResolver is the webhook client's resolver when
// OCV_WEBHOOKS_TEST_HOSTS is set (TEST ONLY): the names it lists resolve to
// their fixed address, any other name through the system resolver. It lets
// end-to-end tests make a name that passed create-time validation resolve
// to 127.0.0.1 at connect time (DNS rebinding) without a DNS server; the
// connect-time check still applies to whatever it answers.
type testHostsResolver map[string]netip.Addr

// parseTestHosts reads "name=ip,name=ip" (names case-insensitive, no
// trailing dot).
func parseTestHosts(v string) (testHostsResolver, error) {
	out := testHostsResolver{}
	for _, pair := range strings.Split(v, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, ip, ok := strings.Cut(pair, "=")
		a, err := netip.ParseAddr(strings.TrimSpace(ip))
		name = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(name), "."))
		if !ok || err != nil || name == "" {
			return nil, fmt.Errorf("OCV_WEBHOOKS_TEST_HOSTS: want name=ip pairs separated by commas")
		}
		out[name] = a
	}
	return out, nil
}

// LookupNetIP answers the listed names and asks the system resolver for
// the others.
func (r testHostsResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := r[strings.ToLower(strings.TrimSuffix(host, "."))]; ok {
		if network == "ip4" && !a.Is4() || network == "ip6" && a.Is4() {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return []netip.Addr{a}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, network, host)
}
