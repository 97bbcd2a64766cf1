package egress

import (
	"net/netip"
)

type namedPrefix struct {
	p    netip.Prefix
	name string
}

func prefixes(pairs ...string) []namedPrefix {
	out := make([]namedPrefix, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, namedPrefix{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// metadataAddrs are cloud instance metadata services (AWS, GCP, Azure and
// others on 169.254.169.254; AWS IPv6; Alibaba). They fall in refused
// ranges anyway and are named for a clearer error.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true,
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("100.100.100.200"): true,
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
}

var loopback4 = netip.MustParsePrefix("127.0.0.0/8")

// forbidden4 are the IPv4 ranges that are not public unicast (IANA special
// purpose registry).
var forbidden4 = prefixes(
	"0.0.0.0/8", "unspecified or this network",
	"10.0.0.0/8", "private",
	"100.64.0.0/10", "carrier-grade nat",
	"127.0.0.0/8", "loopback",
	"169.254.0.0/16", "link-local",
	"172.16.0.0/12", "private",
	"192.0.0.0/24", "ietf protocol assignments",
	"192.0.2.0/24", "documentation",
	"192.88.99.0/24", "6to4 relay anycast",
	"192.168.0.0/16", "private",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation",
	"203.0.113.0/24", "documentation",
	"224.0.0.0/4", "multicast",
	"240.0.0.0/4", "reserved or broadcast",
)

// forbidden6 are IPv6 ranges refused outright. Forms that embed an IPv4
// address are handled in embeddedV4 before this list.
var forbidden6 = prefixes(
	"::/96", "ipv4-compatible (deprecated) or unspecified",
	"64:ff9b:1::/48", "local-use nat64",
	"100::/64", "discard",
	"2001::/32", "teredo",
	"2001:2::/48", "benchmarking",
	"2001:10::/28", "orchid",
	"2001:20::/28", "orchid",
	"2001:db8::/32", "documentation",
	"3fff::/20", "documentation",
	"fc00::/7", "unique-local",
	"fe80::/10", "link-local",
	"fec0::/10", "site-local",
	"ff00::/8", "multicast",
)

var (
	global6 = netip.MustParsePrefix("2000::/3")
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	siit    = netip.MustParsePrefix("::ffff:0:0:0/96")
	sixTo4  = netip.MustParsePrefix("2002::/16")
)

// checkAddr judges an address a connection would go to. Loopback passes
// only with allowLoopback (test only); everything else must be public.
// Operator allowlist entries are applied by the caller, not here.
func checkAddr(a netip.Addr, allowLoopback bool) error {
	if a.Zone() != "" {
		// A zone makes sense only for link-local and other scoped
		// addresses, none of which are acceptable.
		return refuse(ErrForbiddenAddress, "scoped address")
	}
	// ::ffff:a.b.c.d is the IPv4 address itself (the kernel connects to it
	// over IPv4), so it is judged as IPv4, loopback rule included.
	a = a.Unmap()
	if metadataAddrs[a] {
		return refuse(ErrForbiddenAddress, a.String()+" (cloud metadata)")
	}
	if a.Is4() {
		return check4(a, allowLoopback)
	}
	if a == netip.IPv6Loopback() {
		if allowLoopback {
			return nil
		}
		return refuse(ErrForbiddenAddress, a.String()+" (loopback)")
	}
	if v4, ok := embeddedV4(a); ok {
		// Translation and tunnel prefixes reach the embedded IPv4 address:
		// 64:ff9b::10.0.0.1 is 10.0.0.1 behind a NAT64 gateway. Loopback is
		// never allowed through them.
		if err := check4(v4, false); err != nil {
			return refuse(ErrForbiddenAddress, a.String()+" (embeds "+v4.String()+")")
		}
		return nil
	}
	for _, f := range forbidden6 {
		if f.p.Contains(a) {
			return refuse(ErrForbiddenAddress, a.String()+" ("+f.name+")")
		}
	}
	if !global6.Contains(a) {
		// Outside 2000::/3 nothing is allocated as global unicast.
		return refuse(ErrForbiddenAddress, a.String()+" (not global unicast)")
	}
	return nil
}

func check4(a netip.Addr, allowLoopback bool) error {
	if metadataAddrs[a] {
		return refuse(ErrForbiddenAddress, a.String()+" (cloud metadata)")
	}
	if allowLoopback && loopback4.Contains(a) {
		return nil
	}
	for _, f := range forbidden4 {
		if f.p.Contains(a) {
			return refuse(ErrForbiddenAddress, a.String()+" ("+f.name+")")
		}
	}
	return nil
}

// embeddedV4 returns the IPv4 address carried by NAT64 (64:ff9b::/96),
// SIIT (::ffff:0:a.b.c.d) and 6to4 (2002:AABB:CCDD::/48) addresses.
func embeddedV4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a), siit.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixTo4.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}
