package egress

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// errNotIPv4 is internal: the caller turns it into ErrInvalidHost.
var errNotIPv4 = errors.New("not an ipv4 address")

// endsInNumber reports whether a host (no trailing dot) is to be parsed as
// an IPv4 address, following the WHATWG URL standard's "ends in a number":
// its last label is all decimal digits or a valid 0x-hex / octal number.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number parses one part of a legacy IPv4 address: "0x" or "0X"
// prefix is hexadecimal (an empty rest is 0), a leading "0" is octal,
// anything else decimal. A syntactically valid number too large for 64 bits
// returns the maximum, which every range check rejects.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return ^uint64(0), true
		}
		return 0, false
	}
	return v, true
}

// parseLegacyIPv4 parses host as inet_aton and browsers do: one to four
// parts, each decimal, octal or hex; every part but the last is one byte
// and the last fills the remaining bytes. "2130706433", "0177.0.0.1",
// "0x7f.1" and "127.1" all give 127.0.0.1.
func parseLegacyIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, errNotIPv4
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, errNotIPv4
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, errNotIPv4
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, errNotIPv4
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}
