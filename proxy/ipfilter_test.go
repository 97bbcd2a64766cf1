package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

func rule(typ, cidr string) store.IPRule {
	return store.IPRule{RuleType: typ, CIDR: netip.MustParsePrefix(cidr)}
}

func TestIPRuleSetAllows(t *testing.T) {
	tests := map[string]struct {
		rules []store.IPRule
		addr  string
		want  bool
	}{
		"no rules":                     {addr: "203.0.113.1", want: true},
		"no rules, unknown address":    {addr: "", want: true},
		"block matches":                {rules: []store.IPRule{rule("block", "203.0.113.0/24")}, addr: "203.0.113.1"},
		"block elsewhere":              {rules: []store.IPRule{rule("block", "198.51.100.0/24")}, addr: "203.0.113.1", want: true},
		"block beats allow":            {rules: []store.IPRule{rule("allow", "203.0.113.0/24"), rule("block", "203.0.113.1/32")}, addr: "203.0.113.1"},
		"allow list admits":            {rules: []store.IPRule{rule("allow", "10.0.0.0/8"), rule("allow", "203.0.113.0/24")}, addr: "203.0.113.1", want: true},
		"allow list refuses others":    {rules: []store.IPRule{rule("allow", "10.0.0.0/8")}, addr: "203.0.113.1"},
		"ipv6 allow":                   {rules: []store.IPRule{rule("allow", "2001:db8::/32")}, addr: "2001:db8::5", want: true},
		"ipv6 block":                   {rules: []store.IPRule{rule("block", "2001:db8::/32")}, addr: "2001:db8:0:1::5"},
		"ipv4 rule ignores ipv6":       {rules: []store.IPRule{rule("allow", "10.0.0.0/8")}, addr: "2001:db8::5"},
		"ipv4-mapped unmapped (block)": {rules: []store.IPRule{rule("block", "10.0.0.0/8")}, addr: "::ffff:10.1.2.3"},
		"ipv4-mapped unmapped (allow)": {rules: []store.IPRule{rule("allow", "10.0.0.0/8")}, addr: "::ffff:10.1.2.3", want: true},
		"unknown address, block only":  {rules: []store.IPRule{rule("block", "10.0.0.0/8")}, addr: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a, _ := netip.ParseAddr(tc.addr)
			require.Equal(t, tc.want, newIPRuleSet(tc.rules).allows(a))
		})
	}
}

// fakeRules is an IPRuleSource counting its loads.
type fakeRules struct {
	mu    sync.Mutex
	rules map[string][]store.IPRule
	err   error
	loads int
}

func (f *fakeRules) OrgIPRules(_ context.Context, orgID string) ([]store.IPRule, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads++
	return f.rules[orgID], f.err
}

func TestIPRuleCache(t *testing.T) {
	src := &fakeRules{rules: map[string][]store.IPRule{"o1": {rule("block", "10.0.0.0/8")}}}
	c := NewIPRuleCache(src, time.Hour)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		set, err := c.rules(ctx, "o1")
		require.NoError(t, err)
		require.Len(t, set.block, 1)
	}
	require.Equal(t, 1, src.loads, "cached")
	src.rules["o1"] = nil
	c.Invalidate("o1")
	set, err := c.rules(ctx, "o1")
	require.NoError(t, err)
	require.Empty(t, set.block, "an invalidation reloads")
	c.Flush()
	_, _ = c.rules(ctx, "o1")
	require.Equal(t, 3, src.loads)

	src.err = errors.New("database down")
	c.Flush()
	_, err = c.rules(ctx, "o1")
	require.Error(t, err)
}

func TestIPFilterMiddleware(t *testing.T) {
	src := &fakeRules{rules: map[string][]store.IPRule{"o1": {rule("allow", "127.0.0.0/8")}, "o2": {rule("block", "127.0.0.1/32")}}}
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), ipRules: NewIPRuleCache(src, time.Hour)}
	h := s.ipFilter(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	tests := map[string]struct {
		access Access
		org    string
		ip     string
		dbErr  error
		want   int
	}{
		"public route passes":           {access: Public, org: "o2", ip: "127.0.0.1", want: 204},
		"allowed":                       {access: Any, org: "o1", ip: "127.0.0.1", want: 204},
		"outside the allow list":        {access: Any, org: "o1", ip: "198.51.100.1", want: 403},
		"blocked":                       {access: UserOnly, org: "o2", ip: "127.0.0.1", want: 403},
		"org without rules":             {access: Any, org: "o3", ip: "127.0.0.1", want: 204},
		"database error fails closed":   {access: Any, org: "o4", ip: "127.0.0.1", dbErr: errors.New("down"), want: 500},
		"unknown address with an allow": {access: Any, org: "o1", ip: "", want: 403},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			src.mu.Lock()
			src.err = tc.dbErr
			src.mu.Unlock()
			r := httptest.NewRequest("GET", "/x", nil)
			ctx := context.WithValue(r.Context(), routeKey{}, &Route{Access: tc.access})
			ctx = auth.WithPrincipal(ctx, auth.Principal{Type: auth.PrincipalUser, ID: "u", OrgID: tc.org})
			ctx = auditlog.WithEntry(ctx, &auditlog.Entry{Event: auditchain.Event{ClientIP: tc.ip}})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r.WithContext(ctx))
			require.Equal(t, tc.want, w.Code)
			if tc.want == 403 {
				require.Contains(t, w.Body.String(), `"ip_denied"`)
			}
			if tc.want == 500 {
				require.Contains(t, w.Body.String(), `"internal_error"`)
			}
		})
	}
}
