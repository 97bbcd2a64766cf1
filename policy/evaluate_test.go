package policy

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// monday10 is a Monday, 10:00 UTC.
var monday10 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func pol(id string, effect Effect, priority int, pattern string, perms ...Permission) Policy {
	return Policy{
		ID: id, Pattern: pattern, PrincipalType: PrincipalAgent, PrincipalID: "agent-1",
		Permissions: perms, Effect: effect, Priority: priority,
	}
}

func withPolicy(p Policy, edit func(*Policy)) Policy {
	edit(&p)
	return p
}

func readReq(path string) Request {
	return Request{
		PrincipalType: PrincipalAgent, PrincipalID: "agent-1", Path: path, Permission: PermissionRead,
		ClientIP: netip.MustParseAddr("10.1.2.3"), Environment: "production", Now: monday10,
	}
}

func TestEvaluate(t *testing.T) {
	past := monday10.Add(-time.Second)
	future := monday10.Add(time.Hour)
	allowProd := pol("a", EffectAllow, 10, "prod/**", PermissionRead)
	tests := map[string]struct {
		policies   []Policy
		req        Request
		wantAllow  bool
		wantPolicy string
		wantReason string
	}{
		"no policies": {req: readReq("prod/db"), wantReason: ReasonNoMatch},
		"simple allow": {
			policies: []Policy{allowProd}, req: readReq("prod/db"),
			wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"star one segment only": {
			policies: []Policy{pol("a", EffectAllow, 0, "prod/*", PermissionRead)}, req: readReq("prod/a/b"),
			wantReason: ReasonNoMatch,
		},
		"pattern mismatch": {policies: []Policy{allowProd}, req: readReq("dev/db"), wantReason: ReasonNoMatch},
		"permission mismatch": {
			policies:   []Policy{allowProd},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.Permission = PermissionWrite }),
			wantReason: ReasonNoMatch,
		},
		"principal id mismatch": {
			policies:   []Policy{allowProd},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.PrincipalID = "agent-2" }),
			wantReason: ReasonNoMatch,
		},
		"principal type mismatch": { // same id string, other kind of principal
			policies:   []Policy{allowProd},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.PrincipalType = PrincipalUser }),
			wantReason: ReasonNoMatch,
		},
		"higher priority deny beats allow": {
			policies:   []Policy{allowProd, pol("d", EffectDeny, 20, "prod/db", PermissionRead)},
			req:        readReq("prod/db"),
			wantPolicy: "d", wantReason: ReasonDenied,
		},
		"higher priority allow beats deny": {
			policies:  []Policy{pol("d", EffectDeny, 5, "prod/**", PermissionRead), pol("a", EffectAllow, 50, "prod/db", PermissionRead)},
			req:       readReq("prod/db"),
			wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"deny wins a tie": {
			policies:   []Policy{allowProd, pol("d", EffectDeny, 10, "prod/**", PermissionRead, PermissionWrite)},
			req:        readReq("prod/db"),
			wantPolicy: "d", wantReason: ReasonDenied,
		},
		"deny wins a tie in any order": {
			policies:   []Policy{pol("d", EffectDeny, 10, "prod/**", PermissionRead), allowProd},
			req:        readReq("prod/db"),
			wantPolicy: "d", wantReason: ReasonDenied,
		},
		"lowest id decides among equal allows": {
			policies:  []Policy{pol("z", EffectAllow, 1, "**", PermissionRead), pol("b", EffectAllow, 1, "prod/*", PermissionRead)},
			req:       readReq("prod/db"),
			wantAllow: true, wantPolicy: "b", wantReason: ReasonAllowed,
		},
		"expired allow ignored": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.ExpiresAt = &past })},
			req:      readReq("prod/db"), wantReason: ReasonNoMatch,
		},
		"expiring exactly now is expired": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { t := monday10; p.ExpiresAt = &t })},
			req:      readReq("prod/db"), wantReason: ReasonNoMatch,
		},
		"unexpired allow applies": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.ExpiresAt = &future })},
			req:      readReq("prod/db"), wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"expired deny no longer blocks": {
			policies: []Policy{allowProd, withPolicy(pol("d", EffectDeny, 99, "**", PermissionRead), func(p *Policy) { p.ExpiresAt = &past })},
			req:      readReq("prod/db"), wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"ip condition holds": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.IPCIDRs = []string{"10.0.0.0/8"} })},
			req:      readReq("prod/db"), wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"ip condition fails": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.IPCIDRs = []string{"192.168.0.0/16"} })},
			req:      readReq("prod/db"), wantReason: ReasonNoMatch,
		},
		"ip missing: allow does not apply": { // fail closed
			policies:   []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.IPCIDRs = []string{"10.0.0.0/8"} })},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.ClientIP = netip.Addr{} }),
			wantReason: ReasonNoMatch,
		},
		"ip missing: deny applies": { // a deny that might hold must not vanish
			policies:   []Policy{allowProd, withPolicy(pol("d", EffectDeny, 10, "**", PermissionRead), func(p *Policy) { p.Conditions.IPCIDRs = []string{"10.0.0.0/8"} })},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.ClientIP = netip.Addr{} }),
			wantPolicy: "d", wantReason: ReasonDeniedUnknown,
		},
		"ip missing but another condition fails: deny does not apply": {
			policies: []Policy{allowProd, withPolicy(pol("d", EffectDeny, 10, "**", PermissionRead), func(p *Policy) {
				p.Conditions.IPCIDRs = []string{"10.0.0.0/8"}
				p.Conditions.EnvironmentIn = []string{"preview"}
			})},
			req:       withReq(readReq("prod/db"), func(r *Request) { r.ClientIP = netip.Addr{} }),
			wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"time window holds": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "09:00", End: "17:00"} })},
			req:      readReq("prod/db"), wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"time window fails": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "11:00", End: "17:00"} })},
			req:      readReq("prod/db"), wantReason: ReasonNoMatch,
		},
		"environment holds": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.EnvironmentIn = []string{"preview", "production"} })},
			req:      readReq("prod/db"), wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"environment fails": {
			policies: []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.EnvironmentIn = []string{"preview"} })},
			req:      readReq("prod/db"), wantReason: ReasonNoMatch,
		},
		"environment missing fails": {
			policies:   []Policy{withPolicy(allowProd, func(p *Policy) { p.Conditions.EnvironmentIn = []string{"production"} })},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.Environment = "" }),
			wantReason: ReasonNoMatch,
		},
		"deny with failing condition does not apply": {
			policies:  []Policy{allowProd, withPolicy(pol("d", EffectDeny, 10, "**", PermissionRead), func(p *Policy) { p.Conditions.EnvironmentIn = []string{"preview"} })},
			req:       readReq("prod/db"),
			wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"invalid policy for the caller denies": { // a broken deny must not silently vanish
			policies:   []Policy{allowProd, pol("bad", EffectDeny, 1, "prod/a**", PermissionRead)},
			req:        readReq("prod/db"),
			wantPolicy: "bad", wantReason: ReasonInvalidPolicy,
		},
		"invalid policy for someone else is ignored": {
			policies:  []Policy{allowProd, withPolicy(pol("bad", EffectDeny, 1, "", PermissionRead), func(p *Policy) { p.PrincipalID = "agent-2" })},
			req:       readReq("prod/db"),
			wantAllow: true, wantPolicy: "a", wantReason: ReasonAllowed,
		},
		"traversal path denied": { // never cleaned up into prod/x
			policies: []Policy{allowProd}, req: readReq("prod/../x"), wantReason: ReasonInvalidPath,
		},
		"zero time denied": {
			policies:   []Policy{allowProd},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.Now = time.Time{} }),
			wantReason: ReasonInvalidRequest,
		},
		"unknown permission denied": {
			policies:   []Policy{allowProd},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.Permission = "admin" }),
			wantReason: ReasonInvalidRequest,
		},
		"empty principal denied": { // must not match a policy with an empty id either
			policies:   []Policy{withPolicy(allowProd, func(p *Policy) { p.PrincipalID = "" })},
			req:        withReq(readReq("prod/db"), func(r *Request) { r.PrincipalID = "" }),
			wantReason: ReasonInvalidRequest,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d := Evaluate(tc.policies, tc.req)
			require.Equal(t, Decision{Allowed: tc.wantAllow, PolicyID: tc.wantPolicy, Reason: tc.wantReason}, d)
			if tc.wantAllow {
				require.NoError(t, d.Err())
			} else {
				require.ErrorIs(t, d.Err(), ErrDenied)
			}
		})
	}
}

func withReq(r Request, edit func(*Request)) Request {
	edit(&r)
	return r
}
