package policy

import (
	"fmt"
	"net/netip"
	"time"
)

// Conditions narrow when a policy applies. Every present condition must
// hold; an empty list or a nil TimeWindow is no condition.
type Conditions struct {
	// IPCIDRs holds when the client address lies in one of these prefixes
	// (CIDR notation, IPv4 or IPv6; IPv4-mapped IPv6 clients are unmapped
	// first). It cannot be evaluated without a client address.
	IPCIDRs []string
	// TimeWindow holds during a daily UTC window.
	TimeWindow *TimeWindow
	// EnvironmentIn holds when the caller's environment tag (the agent's
	// environment claim) is exactly one of these. A caller without a tag is
	// in none of them.
	EnvironmentIn []string

	// prefixes caches IPCIDRs parsed; it is valid only while prefixSrc
	// equals IPCIDRs element by element (see Policy.Prepare).
	prefixes  []netip.Prefix
	prefixSrc []string
}

// TimeWindow is a daily window in UTC, Start inclusive and End exclusive,
// both "HH:MM" (00:00 to 23:59). End before Start wraps past midnight:
// 22:00–02:00 covers 22:00 to 01:59. Start equal to End is invalid.
type TimeWindow struct {
	Start string
	End   string
	// Days, when not empty, restricts the window to the days on which it
	// opens: a Friday 22:00–02:00 window covers Saturday 01:00 too.
	Days []time.Weekday
}

// truth is a three-valued (Kleene) result: a condition holds, fails, or
// cannot be evaluated.
type truth uint8

const (
	truthHolds truth = iota
	truthFails
	truthUnknown
)

// and combines two results: any failure fails; else any unknown is unknown.
func (t truth) and(u truth) truth {
	if t == truthFails || u == truthFails {
		return truthFails
	}
	if t == truthUnknown || u == truthUnknown {
		return truthUnknown
	}
	return truthHolds
}

func (c *Conditions) validate() error {
	if len(c.IPCIDRs) > MaxIPCIDRs {
		return invalid("conditions.ip_cidrs", fmt.Sprintf("must hold at most %d entries", MaxIPCIDRs))
	}
	for i, s := range c.IPCIDRs {
		if _, err := netip.ParsePrefix(s); err != nil {
			return invalid(fmt.Sprintf("conditions.ip_cidrs[%d]", i), "must be an IPv4 or IPv6 prefix in CIDR notation")
		}
	}
	if w := c.TimeWindow; w != nil {
		start, okS := parseHHMM(w.Start)
		if !okS {
			return invalid("conditions.time_window.start", "must be HH:MM (00:00 to 23:59, UTC)")
		}
		end, okE := parseHHMM(w.End)
		if !okE {
			return invalid("conditions.time_window.end", "must be HH:MM (00:00 to 23:59, UTC)")
		}
		if start == end {
			return invalid("conditions.time_window", "start and end must differ")
		}
		var seen [7]bool
		for _, d := range w.Days {
			if d < time.Sunday || d > time.Saturday {
				return invalid("conditions.time_window.days", "must hold weekdays 0 (Sunday) to 6 (Saturday)")
			}
			if seen[d] {
				return invalid("conditions.time_window.days", "must not repeat a day")
			}
			seen[d] = true
		}
	}
	if len(c.EnvironmentIn) > MaxEnvironments {
		return invalid("conditions.environment_in", fmt.Sprintf("must hold at most %d entries", MaxEnvironments))
	}
	seen := map[string]bool{}
	for i, e := range c.EnvironmentIn {
		if why := textProblem(e, MaxEnvironmentBytes); why != "" {
			return invalid(fmt.Sprintf("conditions.environment_in[%d]", i), why)
		}
		if seen[e] {
			return invalid("conditions.environment_in", "must not repeat an environment")
		}
		seen[e] = true
	}
	return nil
}

// prepare fills the prefix cache; c must already be valid.
func (c *Conditions) prepare() error {
	ps := make([]netip.Prefix, len(c.IPCIDRs))
	for i, s := range c.IPCIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return invalid(fmt.Sprintf("conditions.ip_cidrs[%d]", i), "must be an IPv4 or IPv6 prefix in CIDR notation")
		}
		ps[i] = p.Masked()
	}
	c.prefixes, c.prefixSrc = ps, append([]string(nil), c.IPCIDRs...)
	return nil
}

// cachedPrefixes returns the cached prefixes when they still describe
// IPCIDRs, else nil.
func (c *Conditions) cachedPrefixes() []netip.Prefix {
	if len(c.prefixSrc) != len(c.IPCIDRs) || len(c.prefixes) != len(c.IPCIDRs) {
		return nil
	}
	for i := range c.IPCIDRs {
		if c.prefixSrc[i] != c.IPCIDRs[i] {
			return nil
		}
	}
	return c.prefixes
}

// eval evaluates every present condition against req.
func (c *Conditions) eval(req *Request) truth {
	t := truthHolds
	if len(c.IPCIDRs) > 0 {
		t = t.and(c.evalIP(req.ClientIP))
	}
	if c.TimeWindow != nil {
		t = t.and(c.TimeWindow.eval(req.Now))
	}
	if len(c.EnvironmentIn) > 0 {
		t = t.and(evalEnvironment(c.EnvironmentIn, req.Environment))
	}
	return t
}

func (c *Conditions) evalIP(addr netip.Addr) truth {
	if !addr.IsValid() {
		return truthUnknown
	}
	addr = addr.WithZone("")
	plain := addr.Unmap()
	if ps := c.cachedPrefixes(); ps != nil {
		for _, p := range ps {
			if p.Contains(addr) || p.Contains(plain) {
				return truthHolds
			}
		}
		return truthFails
	}
	for _, s := range c.IPCIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return truthUnknown
		}
		if p = p.Masked(); p.Contains(addr) || p.Contains(plain) {
			return truthHolds
		}
	}
	return truthFails
}

func (w *TimeWindow) eval(now time.Time) truth {
	start, okS := parseHHMM(w.Start)
	end, okE := parseHHMM(w.End)
	if now.IsZero() || !okS || !okE {
		return truthUnknown
	}
	now = now.UTC()
	minute := now.Hour()*60 + now.Minute()
	opened := now.Weekday()
	switch {
	case start < end && start <= minute && minute < end:
	case start > end && minute >= start:
	case start > end && minute < end:
		opened = (opened + 6) % 7 // the window opened yesterday
	default:
		return truthFails
	}
	if len(w.Days) == 0 {
		return truthHolds
	}
	for _, d := range w.Days {
		if d == opened {
			return truthHolds
		}
	}
	return truthFails
}

func evalEnvironment(in []string, env string) truth {
	for _, e := range in {
		if env != "" && e == env {
			return truthHolds
		}
	}
	return truthFails
}

// parseHHMM parses exactly "HH:MM" into minutes after midnight.
func parseHHMM(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	if h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}
