package ops

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// issuedAt returns claims for a token issued at ms (Unix milliseconds).
func issuedAt(c map[string]any, ms int64) map[string]any {
	c["iat"], c["iat_ms"], c["exp"] = ms/1000, ms, ms/1000+600
	return c
}

func ownerAccess(org, token string) *access {
	return &access{OrgID: org, VaultID: "v", Path: "x", Permission: policy.PermissionRead, Token: token}
}

// TestSignedOutTokenRefused: a token revoked with OpRevokeToken is refused
// at once, although the verifier had it cached, by this enclave after a
// restart, and revoking it again succeeds (a retry converges).
func TestSignedOutTokenRefused(t *testing.T) {
	f := newFixture(t)
	tok := f.token(t, claimsFor("o", "user", "u1", "owner"))
	other := f.token(t, claimsFor("o", "user", "u2", "owner"))
	require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("o", tok)), "the token is now cached")

	var resp wire.RevokeTokenResponse
	require.NoError(t, f.call(t, wire.OpRevokeToken, &wire.RevokeTokenRequest{Token: tok}, &resp))
	require.Positive(t, resp.ExpiresAtMs)
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("o", tok)), wire.ErrForbidden)
	require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("o", other)), "another token of the org is untouched")
	require.NoError(t, f.call(t, wire.OpRevokeToken, &wire.RevokeTokenRequest{Token: tok}, &resp), "again")

	restarted, err := New(t.Context(), f.ks, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated})
	require.NoError(t, err)
	t.Cleanup(restarted.Close)
	err = restarted.authz.authorize(t.Context(), ownerAccess("o", tok))
	require.ErrorIs(t, err, wire.ErrForbidden)
	require.Contains(t, err.Error(), "signed out")

	for name, bad := range map[string]string{"no token": "", "garbage": "a.b.c"} {
		require.ErrorIs(t, f.call(t, wire.OpRevokeToken, &wire.RevokeTokenRequest{Token: bad}, &resp), wire.ErrForbidden, name)
	}
}

// TestCutoffsRefuseOlderTokens: a cut-off refuses the principal's tokens
// issued before it (in that organization; a user's all-organizations one
// everywhere), a token issued later passes, a deleted principal's never.
func TestCutoffsRefuseOlderTokens(t *testing.T) {
	f := newFixture(t)
	admin := f.token(t, claimsFor("o", "user", "boss", "owner"))
	set := func(org, id string, flags uint32, tok string) int64 {
		t.Helper()
		var resp wire.SetCutoffResponse
		require.NoError(t, f.call(t, wire.OpSetCutoff, &wire.SetCutoffRequest{OrgID: org, PrincipalID: id, Flags: flags, Token: tok}, &resp))
		return resp.NotBeforeMs
	}
	old := f.token(t, issuedAt(claimsFor("o", "user", "m", "owner"), time.Now().Add(-time.Minute).UnixMilli()))
	require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("o", old)))
	nb := set("o", "m", 0, admin)
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("o", old)), wire.ErrForbidden)
	require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("o", f.token(t, issuedAt(claimsFor("o", "user", "m", "owner"), nb)))),
		"a token issued at the cut-off passes")
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("o", f.token(t, issuedAt(claimsFor("o", "user", "m", "owner"), nb-1)))),
		wire.ErrForbidden)
	require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("p",
		f.token(t, issuedAt(claimsFor("p", "user", "m", "owner"), nb-1000)))), "the user's tokens of another org are untouched")

	// A user's own cut-off in every organization.
	mine := f.token(t, issuedAt(claimsFor("p", "user", "m", "member"), nb))
	all := set("", "m", wire.CutoffAllOrgs, mine)
	require.GreaterOrEqual(t, all, nb)
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("p",
		f.token(t, issuedAt(claimsFor("p", "user", "m", "owner"), all-1)))), wire.ErrForbidden)

	// An agent, deleted: no token of it ever passes again; a later cut-off
	// does not lower it.
	agentTok := func(ms int64) string {
		return f.token(t, issuedAt(claimsFor("o", "agent", "ag", ""), ms))
	}
	require.Equal(t, int64(math.MaxInt64), set("o", "ag", wire.CutoffAgent|wire.CutoffDelete, admin))
	require.Equal(t, int64(math.MaxInt64), set("o", "ag", wire.CutoffAgent, admin), "never moves back")
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("o", agentTok(time.Now().UnixMilli()))), wire.ErrForbidden)
}

// TestSetCutoffAuthority: who may cut off whom.
func TestSetCutoffAuthority(t *testing.T) {
	f := newFixture(t)
	tok := func(org, ptype, sub, role, platform string) string {
		c := claimsFor(org, ptype, sub, role)
		if platform != "" {
			c["platform_role"] = platform
		}
		return f.token(t, c)
	}
	owner, admin := tok("o", "user", "own", "owner", ""), tok("o", "user", "adm", "admin", "")
	member, agent := tok("o", "user", "mem", "member", ""), tok("o", "agent", "ag", "", "")
	otherOwner, platform := tok("p", "user", "own2", "owner", ""), tok("p", "user", "pa", "member", "admin")
	// Members whose own cut-offs the cases set (a cut-off token has no
	// authority left, whatever order the cases run in).
	self1, self2, self3 := tok("o", "user", "mem1", "member", ""), tok("o", "user", "mem2", "member", ""), tok("o", "user", "mem3", "member", "")
	tests := map[string]struct {
		req     wire.SetCutoffRequest
		wantErr error
	}{
		"owner cuts off a member":            {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "x", Token: owner}},
		"admin cuts off a member":            {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "x", Token: admin}},
		"admin deletes an agent":             {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "a1", Flags: wire.CutoffAgent | wire.CutoffDelete, Token: admin}},
		"member cuts off itself":             {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "mem1", Token: self1}},
		"member itself everywhere":           {req: wire.SetCutoffRequest{PrincipalID: "mem2", Flags: wire.CutoffAllOrgs, Token: self2}},
		"platform admin deletes a user":      {req: wire.SetCutoffRequest{PrincipalID: "x", Flags: wire.CutoffAllOrgs | wire.CutoffDelete, Token: platform}},
		"member cuts off another member":     {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "own", Token: member}, wantErr: wire.ErrForbidden},
		"member cuts off an agent":           {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "ag", Flags: wire.CutoffAgent, Token: member}, wantErr: wire.ErrForbidden},
		"member deletes itself":              {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "mem3", Flags: wire.CutoffDelete, Token: self3}, wantErr: wire.ErrForbidden},
		"agent cuts off itself":              {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "ag", Flags: wire.CutoffAgent, Token: agent}, wantErr: wire.ErrForbidden},
		"owner of another org":               {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "mem", Token: otherOwner}, wantErr: wire.ErrForbidden},
		"owner deletes a member in its org":  {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "mem", Flags: wire.CutoffDelete, Token: owner}, wantErr: wire.ErrForbidden},
		"owner cuts off a user everywhere":   {req: wire.SetCutoffRequest{PrincipalID: "mem", Flags: wire.CutoffAllOrgs, Token: owner}, wantErr: wire.ErrForbidden},
		"no token":                           {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "mem"}, wantErr: wire.ErrForbidden},
		"all orgs with an org id":            {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "x", Flags: wire.CutoffAllOrgs, Token: platform}, wantErr: wire.ErrBadRequest},
		"all orgs for an agent":              {req: wire.SetCutoffRequest{PrincipalID: "x", Flags: wire.CutoffAllOrgs | wire.CutoffAgent, Token: platform}, wantErr: wire.ErrBadRequest},
		"a separator in the id":              {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: "x/y", Token: owner}, wantErr: wire.ErrBadRequest},
		"the all-orgs name as org":           {req: wire.SetCutoffRequest{OrgID: "-", PrincipalID: "x", Token: owner}, wantErr: wire.ErrBadRequest},
		"platform admin deletes an org":      {req: wire.SetCutoffRequest{OrgID: "q", PrincipalID: wire.OrgCutoffPrincipal, Flags: wire.CutoffOrg, Token: platform}},
		"owner deletes its org":              {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: wire.OrgCutoffPrincipal, Flags: wire.CutoffOrg, Token: owner}, wantErr: wire.ErrForbidden},
		"org cut-off naming a principal":     {req: wire.SetCutoffRequest{OrgID: "q", PrincipalID: "x", Flags: wire.CutoffOrg, Token: platform}, wantErr: wire.ErrBadRequest},
		"the org principal without the flag": {req: wire.SetCutoffRequest{OrgID: "o", PrincipalID: wire.OrgCutoffPrincipal, Token: owner}, wantErr: wire.ErrBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var resp wire.SetCutoffResponse
			err := f.call(t, wire.OpSetCutoff, &tc.req, &resp)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Positive(t, resp.NotBeforeMs)
		})
	}
	t.Run("a cut-off token has no authority", func(t *testing.T) {
		var resp wire.SetCutoffResponse
		require.NoError(t, f.call(t, wire.OpSetCutoff, &wire.SetCutoffRequest{OrgID: "o", PrincipalID: "adm", Token: owner}, &resp))
		err := f.call(t, wire.OpSetCutoff, &wire.SetCutoffRequest{OrgID: "o", PrincipalID: "x", Token: admin}, &resp)
		require.ErrorIs(t, err, wire.ErrForbidden)
	})
}

// TestRevocationChecksAreCachedAndFailClosed: a token used again within
// the refresh period costs no HSM read; an HSM that cannot answer is an
// outage, never a pass.
func TestRevocationChecksAreCachedAndFailClosed(t *testing.T) {
	f := newFixture(t)
	rc := &registerStore{Store: f.ks}
	clock := time.Now()
	f.h.authz.floors = floors.New(rc, floors.Config{Refresh: time.Hour, Now: func() time.Time { return clock }})
	user := f.token(t, claimsFor("o", "user", "u", "owner"))
	for range 10 {
		require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("o", user)))
	}
	require.Equal(t, int32(4), rc.reads.Load(), "revoked/<jti>, cutoff/<org>/<user>, cutoff/<org>/-, cutoff/-/<user>: once each")

	agent := f.token(t, claimsFor("o", "agent", "a", ""))
	rc.fail.Store(true)
	err := f.h.authz.authorize(t.Context(), ownerAccess("o", agent))
	require.ErrorIs(t, err, wire.ErrUnavailable)
	require.NoError(t, f.h.authz.authorize(t.Context(), ownerAccess("o", user)), "cached floors still answer")

	clock = clock.Add(2 * time.Hour)
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("o", user)), wire.ErrUnavailable, "stale floors are read again")

	f.h.authz.floors = nil
	require.ErrorIs(t, f.h.authz.authorize(t.Context(), ownerAccess("o", user)), wire.ErrUnavailable, "no store: fail closed")
}

// TestOrgCutoffRefusesItsTokens: once a platform administrator deleted an
// organization, none of its tokens (an agent's included) is honoured, and
// other organizations are untouched.
func TestOrgCutoffRefusesItsTokens(t *testing.T) {
	f := newFixture(t)
	agent, owner := f.token(t, claimsFor("gone", "agent", "ag", "")), f.token(t, claimsFor("gone", "user", "own", "owner"))
	other := f.token(t, claimsFor("o", "user", "own", "owner"))
	pc := claimsFor("p", "user", "pa", "member")
	pc["platform_role"] = "super_admin"
	platform := f.token(t, pc)
	var resp wire.SetCutoffResponse
	require.NoError(t, f.call(t, wire.OpSetCutoff, &wire.SetCutoffRequest{OrgID: "gone", PrincipalID: wire.OrgCutoffPrincipal,
		Flags: wire.CutoffOrg, Token: platform}, &resp))
	for name, tok := range map[string]string{"agent": agent, "owner": owner} {
		_, err := f.h.authz.verifyToken(t.Context(), tok)
		require.ErrorIs(t, err, wire.ErrForbidden, name)
	}
	_, err := f.h.authz.verifyToken(t.Context(), other)
	require.NoError(t, err)
}
