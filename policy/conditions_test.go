package policy

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTimeWindow(t *testing.T) {
	at := func(day, hh, mm int) time.Time { // 2026-03-01 is a Sunday
		return time.Date(2026, 3, 1+day, hh, mm, 0, 0, time.UTC)
	}
	fri, sat := int(time.Friday), int(time.Saturday)
	tests := map[string]struct {
		w    TimeWindow
		now  time.Time
		want truth
	}{
		"inside":                  {w: TimeWindow{Start: "09:00", End: "17:00"}, now: at(1, 12, 0), want: truthHolds},
		"start inclusive":         {w: TimeWindow{Start: "09:00", End: "17:00"}, now: at(1, 9, 0), want: truthHolds},
		"end exclusive":           {w: TimeWindow{Start: "09:00", End: "17:00"}, now: at(1, 17, 0), want: truthFails},
		"before":                  {w: TimeWindow{Start: "09:00", End: "17:00"}, now: at(1, 8, 59), want: truthFails},
		"wrap late evening":       {w: TimeWindow{Start: "22:00", End: "02:00"}, now: at(1, 23, 30), want: truthHolds},
		"wrap after midnight":     {w: TimeWindow{Start: "22:00", End: "02:00"}, now: at(1, 1, 59), want: truthHolds},
		"wrap end exclusive":      {w: TimeWindow{Start: "22:00", End: "02:00"}, now: at(1, 2, 0), want: truthFails},
		"wrap midday":             {w: TimeWindow{Start: "22:00", End: "02:00"}, now: at(1, 12, 0), want: truthFails},
		"day listed":              {w: TimeWindow{Start: "09:00", End: "17:00", Days: []time.Weekday{time.Monday}}, now: at(1, 10, 0), want: truthHolds},
		"day not listed":          {w: TimeWindow{Start: "09:00", End: "17:00", Days: []time.Weekday{time.Tuesday}}, now: at(1, 10, 0), want: truthFails},
		"wrap counts opening day": {w: TimeWindow{Start: "22:00", End: "02:00", Days: []time.Weekday{time.Friday}}, now: at(sat, 1, 0), want: truthHolds},
		"wrap not next opening":   {w: TimeWindow{Start: "22:00", End: "02:00", Days: []time.Weekday{time.Saturday}}, now: at(sat, 1, 0), want: truthFails},
		"wrap sunday from sat":    {w: TimeWindow{Start: "22:00", End: "02:00", Days: []time.Weekday{time.Saturday}}, now: at(7, 0, 30), want: truthHolds}, // weekday wraps 0 → 6
		"wrap evening on friday":  {w: TimeWindow{Start: "22:00", End: "02:00", Days: []time.Weekday{time.Friday}}, now: at(fri, 22, 0), want: truthHolds},
		"non-UTC now converted": { // 12:00 at UTC+5 is 07:00 UTC
			w: TimeWindow{Start: "09:00", End: "17:00"}, now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.FixedZone("x", 5*3600)), want: truthFails,
		},
		"zero now unknown": {w: TimeWindow{Start: "09:00", End: "17:00"}, now: time.Time{}, want: truthUnknown},
		"bad start unknown": { // only reachable for unvalidated input; never holds
			w: TimeWindow{Start: "9", End: "17:00"}, now: at(1, 12, 0), want: truthUnknown,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.w.eval(tc.now))
		})
	}
}

func TestIPCondition(t *testing.T) {
	tests := map[string]struct {
		cidrs []string
		ip    string // "" = missing
		want  truth
	}{
		"v4 inside":            {cidrs: []string{"10.0.0.0/8"}, ip: "10.9.9.9", want: truthHolds},
		"v4 outside":           {cidrs: []string{"10.0.0.0/8"}, ip: "11.0.0.1", want: truthFails},
		"unmasked prefix":      {cidrs: []string{"10.1.2.3/16"}, ip: "10.1.200.1", want: truthHolds},
		"v6 inside":            {cidrs: []string{"2001:db8::/32"}, ip: "2001:db8::1", want: truthHolds},
		"v6 outside":           {cidrs: []string{"2001:db8::/32"}, ip: "2001:db9::1", want: truthFails},
		"v4-mapped v6 client":  {cidrs: []string{"10.0.0.0/8"}, ip: "::ffff:10.0.0.1", want: truthHolds}, // no bypass by mapping
		"v4-mapped v6 prefix":  {cidrs: []string{"::ffff:10.0.0.0/104"}, ip: "::ffff:10.0.0.1", want: truthHolds},
		"zoned v6 client":      {cidrs: []string{"fe80::/10"}, ip: "fe80::1%eth0", want: truthHolds},
		"v4 not in v6 prefix":  {cidrs: []string{"::/0"}, ip: "10.0.0.1", want: truthFails},
		"second prefix":        {cidrs: []string{"192.168.0.0/16", "10.0.0.0/8"}, ip: "10.0.0.1", want: truthHolds},
		"missing client":       {cidrs: []string{"10.0.0.0/8"}, want: truthUnknown},
		"unparsable unchecked": {cidrs: []string{"nonsense"}, ip: "10.0.0.1", want: truthUnknown},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var addr netip.Addr
			if tc.ip != "" {
				addr = netip.MustParseAddr(tc.ip)
			}
			c := Conditions{IPCIDRs: tc.cidrs}
			require.Equal(t, tc.want, c.evalIP(addr), "unprepared")
			if c.validate() == nil {
				require.NoError(t, c.prepare())
				require.NotNil(t, c.cachedPrefixes())
				require.Equal(t, tc.want, c.evalIP(addr), "prepared")
			}
		})
	}
}

// TestPrepareCacheNeverStale changes the CIDRs after Prepare: the cache must
// be ignored rather than answer for the old prefixes.
func TestPrepareCacheNeverStale(t *testing.T) {
	p := validPolicy()
	p.Conditions.IPCIDRs = []string{"10.0.0.0/8"}
	require.NoError(t, p.Prepare())
	req := readReq("prod/db")
	require.True(t, Evaluate([]Policy{p}, req).Allowed)

	p.Conditions.IPCIDRs[0] = "192.168.0.0/16" // in place, same length
	require.Nil(t, p.Conditions.cachedPrefixes())
	require.False(t, Evaluate([]Policy{p}, req).Allowed)

	p.Conditions.IPCIDRs = append(p.Conditions.IPCIDRs, "10.0.0.0/8")
	require.Nil(t, p.Conditions.cachedPrefixes())
	require.True(t, Evaluate([]Policy{p}, req).Allowed)
}

func TestTruthAnd(t *testing.T) {
	tests := map[string]struct{ a, b, want truth }{
		"holds and holds":     {truthHolds, truthHolds, truthHolds},
		"holds and unknown":   {truthHolds, truthUnknown, truthUnknown},
		"unknown and fails":   {truthUnknown, truthFails, truthFails},
		"fails and holds":     {truthFails, truthHolds, truthFails},
		"unknown and unknown": {truthUnknown, truthUnknown, truthUnknown},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.a.and(tc.b))
			require.Equal(t, tc.want, tc.b.and(tc.a))
		})
	}
}
