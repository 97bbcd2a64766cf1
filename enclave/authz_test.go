package enclave_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

const (
	orgA = "org-a"
	orgB = "org-b"
)

var (
	read  = policy.PermissionRead
	write = policy.PermissionWrite
	allow = policy.EffectAllow
	deny  = policy.EffectDeny
	user  = policy.PrincipalUser
	agent = policy.PrincipalAgent
)

// TestOpenAuthorization is the enclave-side enforcement of issue 3 item 5:
// whatever the proxy sends, a secret opens only for a valid token of the
// secret's org whose principal is an owner or admin, or whom the vault's
// current MAC'd policy set allows.
func TestOpenAuthorization(t *testing.T) {
	a := newAuthEnv(t)
	owner := a.token(t, userClaims(orgA, "u-owner", "owner"))
	ownerB := a.token(t, userClaims(orgB, "u-owner-b", "owner"))
	member := a.token(t, userClaims(orgA, "u-member", "member"))

	// Vault "allow" lets the member and the agent read db/*; vault "deny"
	// allows db/* too but denies db/pw at a higher priority.
	allowReq := a.secret(t, orgA, "v-allow", "db/pw", "allow-secret", owner)
	denyReq := a.secret(t, orgA, "v-deny", "db/pw", "deny-secret", owner)
	allowSet, allowMAC := a.mustSealSet(t, orgA, "v-allow", 1, owner,
		grant("p1", user, "u-member", "db/*", allow, 0, read),
		grant("p2", agent, "a-1", "db/*", allow, 0, read))
	denySet, denyMAC := a.mustSealSet(t, orgA, "v-deny", 1, owner,
		grant("p1", user, "u-member", "db/*", allow, 0, read),
		grant("p2", user, "u-member", "db/pw", deny, 10, read))
	// The same set bytes MAC'd for org B's vault of the same id.
	_, foreignMAC := a.mustSealSet(t, orgB, "v-allow", 1, ownerB,
		grant("p1", user, "u-member", "db/*", allow, 0, read),
		grant("p2", agent, "a-1", "db/*", allow, 0, read))
	require.NotEqual(t, allowMAC, foreignMAC, "a MAC binds the org")

	expired := userClaims(orgA, "u-owner", "owner")
	expired["iat"], expired["exp"] = time.Now().Add(-15*time.Minute).Unix(), time.Now().Add(-time.Second).Unix()
	// A compromised proxy had the enclave sign these claims (OpSignJWT signs
	// what it is sent): the enclave's own verifier bounds them.
	tenYears := userClaims(orgA, "u-owner", "owner")
	tenYears["exp"] = time.Now().AddDate(10, 0, 0).Unix()
	noIat := userClaims(orgA, "u-owner", "owner")
	delete(noIat, "iat")
	otherIssuer := userClaims(orgA, "u-owner", "owner")
	otherIssuer["iss"] = "https://evil.example"

	tests := map[string]struct {
		req      wire.OpenRequest
		wantCode wire.Code
	}{
		"ok owner without a policy set": {authorised(allowReq, owner, nil, nil), wire.OK},
		"ok admin":                      {authorised(denyReq, a.token(t, userClaims(orgA, "u-admin", "admin")), nil, nil), wire.OK},
		"ok member allowed":             {authorised(allowReq, member, allowSet, allowMAC), wire.OK},
		"ok agent allowed":              {authorised(allowReq, a.token(t, agentClaims(orgA, "a-1", nil)), allowSet, allowMAC), wire.OK},
		"ok agent in scope":             {authorised(allowReq, a.token(t, agentClaims(orgA, "a-1", []string{"db/**"})), allowSet, allowMAC), wire.OK},
		"fail member without a set":     {authorised(allowReq, member, nil, nil), wire.Forbidden},
		"fail agent without a set":      {authorised(allowReq, a.token(t, agentClaims(orgA, "a-1", nil)), nil, nil), wire.Forbidden},
		// A policy for someone else gives this member nothing.
		"fail other member":            {authorised(allowReq, a.token(t, userClaims(orgA, "u-other", "member")), allowSet, allowMAC), wire.Forbidden},
		"fail deny at higher priority": {authorised(denyReq, member, denySet, denyMAC), wire.Forbidden},
		// The agent's token scopes cut what its policies allow.
		"fail agent out of scope": {authorised(allowReq, a.token(t, agentClaims(orgA, "a-1", []string{"other/*"})), allowSet, allowMAC), wire.Forbidden},
		"fail agent empty scopes": {authorised(allowReq, a.token(t, agentClaims(orgA, "a-1", []string{})), allowSet, allowMAC), wire.Forbidden},
		// A compromised proxy replays org B's MAC over the same bytes.
		"fail set mac of another org": {authorised(allowReq, member, allowSet, foreignMAC), wire.Forbidden},
		// A validly MAC'd set of another vault (one that allows more).
		"fail set of another vault":          {authorised(denyReq, member, allowSet, allowMAC), wire.Forbidden},
		"fail edited set":                    {authorised(allowReq, member, flipped(allowSet, len(allowSet)-1), allowMAC), wire.Forbidden},
		"fail edited mac":                    {authorised(allowReq, member, allowSet, flipped(allowMAC, 0)), wire.Forbidden},
		"fail short mac":                     {authorised(allowReq, member, allowSet, allowMAC[:16]), wire.Forbidden},
		"fail set without mac":               {authorised(allowReq, member, allowSet, nil), wire.Forbidden},
		"fail forged owner token":            {authorised(allowReq, forgedToken(t, userClaims(orgA, "u-owner", "owner")), nil, nil), wire.Forbidden},
		"fail owner of another org":          {authorised(allowReq, ownerB, nil, nil), wire.Forbidden},
		"fail expired owner token":           {authorised(allowReq, a.token(t, expired), nil, nil), wire.Forbidden},
		"fail ten-year owner token":          {authorised(allowReq, a.token(t, tenYears), nil, nil), wire.Forbidden},
		"fail owner token without iat":       {authorised(allowReq, a.token(t, noIat), nil, nil), wire.Forbidden},
		"fail owner token of another issuer": {authorised(allowReq, a.token(t, otherIssuer), nil, nil), wire.Forbidden},
		"fail no token":                      {authorised(allowReq, "", allowSet, allowMAC), wire.Forbidden},
		"fail garbage token":                 {authorised(allowReq, "not.a.token", nil, nil), wire.Forbidden},
		// A token whose audience is not OCV, signed by the enclave.
		"fail other audience": {authorised(allowReq, a.token(t, func() map[string]any {
			c := userClaims(orgA, "u-owner", "owner")
			c["aud"] = "elsewhere"
			return c
		}()), nil, nil), wire.Forbidden},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, pt := a.open(t, tc.req)
			require.Equal(t, tc.wantCode, code)
			if code == wire.OK {
				require.Contains(t, []string{"allow-secret", "deny-secret"}, pt)
			}
		})
	}
}

func TestSealAuthorization(t *testing.T) {
	a := newAuthEnv(t)
	owner := a.token(t, userClaims(orgA, "u-owner", "owner"))
	member := a.token(t, userClaims(orgA, "u-member", "member"))
	writer := a.token(t, userClaims(orgA, "u-writer", "member"))
	a.secret(t, orgA, "v1", "app/key", "v", owner)
	set, mac := a.mustSealSet(t, orgA, "v1", 1, owner,
		grant("r", user, "u-member", "app/*", allow, 0, read),
		grant("w", user, "u-writer", "app/*", allow, 0, read, write))
	seal := func(token string) wire.Code {
		code, _, err := a.s.Call(wire.OpSeal, encode(t, &wire.SealRequest{OrgID: orgA, VaultID: "v1", Path: "app/key", SecretVersion: 2,
			Plaintext: []byte("new"), Token: token, PolicySet: set, PolicyMAC: mac, ClientIP: "192.0.2.1"}))
		require.NoError(t, err)
		return code
	}
	require.Equal(t, wire.Forbidden, seal(member), "read does not grant write")
	require.Equal(t, wire.OK, seal(writer))
	require.Equal(t, wire.OK, seal(owner))
	require.Equal(t, wire.Forbidden, seal(""))
}

func TestSealPolicySet(t *testing.T) {
	a := newAuthEnv(t)
	owner := a.token(t, userClaims(orgA, "u-owner", "owner"))
	admin := a.token(t, userClaims(orgA, "u-admin", "admin"))
	p := grant("p1", user, "u-member", "db/*", allow, 0, read)

	set, mac := a.mustSealSet(t, orgA, "v1", 1, owner, p)
	// The MAC is HMAC-SHA256 under the enclave's policy-mac key over the
	// documented message.
	want, err := a.ks.MAC(context.Background(), keyvault.KeyRef{ID: ops.PolicyMACKeyID, Version: 1},
		append([]byte("ocv-policy-set-v1\n"+orgA+"\n"), set...))
	require.NoError(t, err)
	require.Equal(t, want, mac)
	_, _ = a.mustSealSet(t, orgA, "v1", 2, admin, p)

	expired := userClaims(orgA, "u-owner", "owner")
	expired["iat"], expired["exp"] = time.Now().Add(-16*time.Minute).Unix(), time.Now().Add(-time.Minute).Unix()
	call := func(req wire.SealPolicySetRequest) wire.Code {
		code, body, err := a.s.Call(wire.OpSealPolicySet, encode(t, &req))
		require.NoError(t, err)
		if code != wire.OK {
			require.Empty(t, body)
		}
		return code
	}
	good := func(version uint64, token string) wire.SealPolicySetRequest {
		return wire.SealPolicySetRequest{OrgID: orgA, VaultID: "v1", Version: version, Set: policy.EncodeSet("v1", version, []policy.Policy{p}), ChangerToken: token}
	}
	tests := map[string]struct {
		req      wire.SealPolicySetRequest
		wantCode wire.Code
	}{
		"fail member changer":   {good(10, a.token(t, userClaims(orgA, "u-member", "member"))), wire.Forbidden},
		"fail agent changer":    {good(10, a.token(t, agentClaims(orgA, "a-1", nil))), wire.Forbidden},
		"fail owner of org b":   {good(10, a.token(t, userClaims(orgB, "u-b", "owner"))), wire.Forbidden},
		"fail forged owner":     {good(10, forgedToken(t, userClaims(orgA, "u-owner", "owner"))), wire.Forbidden},
		"fail expired owner":    {good(10, a.token(t, expired)), wire.Forbidden},
		"fail no changer token": {good(10, ""), wire.Forbidden},
		// An agent token claiming a role is still not a human's.
		"fail agent with a role": {good(10, a.token(t, func() map[string]any {
			c := agentClaims(orgA, "a-1", nil)
			c["role"] = "owner"
			return c
		}())), wire.Forbidden},
		"fail set of another vault": {func() wire.SealPolicySetRequest {
			r := good(10, owner)
			r.Set = policy.EncodeSet("v2", 10, []policy.Policy{p})
			return r
		}(), wire.BadRequest},
		"fail version mismatch": {func() wire.SealPolicySetRequest {
			r := good(10, owner)
			r.Version = 11
			return r
		}(), wire.BadRequest},
		"fail garbage set":  {func() wire.SealPolicySetRequest { r := good(10, owner); r.Set = []byte("OCVPSET?"); return r }(), wire.BadRequest},
		"fail version zero": {good(0, owner), wire.BadRequest},
		// Another set at the sealed version, or an older one, is refused.
		"fail other set at sealed version": {func() wire.SealPolicySetRequest {
			r := good(2, owner)
			r.Set = policy.EncodeSet("v1", 2, nil)
			return r
		}(), wire.Conflict},
		"fail older version":    {good(1, owner), wire.Conflict},
		"fail replayed version": {good(2, owner), wire.Conflict},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.wantCode, call(tc.req))
		})
	}
	require.Equal(t, wire.OK, call(good(3, owner)), "a newer version seals")
	require.Equal(t, wire.OK, call(wire.SealPolicySetRequest{OrgID: orgA, VaultID: "v1", Version: 4, Set: policy.EncodeSet("v1", 4, nil), ChangerToken: owner}),
		"an empty set (every policy deleted) seals")
}

// TestPolicySetRollback: once a newer set was sealed, an older validly
// MAC'd set is refused, also after a restart.
func TestPolicySetRollback(t *testing.T) {
	a := newAuthEnv(t)
	owner := a.token(t, userClaims(orgA, "u-owner", "owner"))
	member := a.token(t, userClaims(orgA, "u-member", "member"))
	req := a.secret(t, orgA, "v1", "db/pw", "s3cret", owner)
	allows := grant("p1", user, "u-member", "db/*", allow, 0, read)
	v1, mac1 := a.mustSealSet(t, orgA, "v1", 1, owner, allows)
	code, pt := a.open(t, authorised(req, member, v1, mac1))
	require.Equal(t, wire.OK, code)
	require.Equal(t, "s3cret", pt)

	// The owner revokes the member's access.
	v2, mac2 := a.mustSealSet(t, orgA, "v1", 2, owner, grant("p1", user, "u-member", "db/*", deny, 0, read))
	code, _ = a.open(t, authorised(req, member, v2, mac2))
	require.Equal(t, wire.Forbidden, code)
	code, _ = a.open(t, authorised(req, member, v1, mac1))
	require.Equal(t, wire.Forbidden, code, "the proxy cannot roll back to the set that allowed")

	// After a restart the floor is still in the key store: v1 is refused
	// before any request presented v2.
	a.s.Close()
	a.stop(t)
	a.start(t)
	a.s = a.session(t)
	code, _ = a.open(t, authorised(req, member, v1, mac1))
	require.Equal(t, wire.Forbidden, code)
	code, _ = a.open(t, authorised(req, member, v2, mac2))
	require.Equal(t, wire.Forbidden, code)
}

// TestCallerTokenTransitional: with RequireCallerToken false, a request
// without a token goes through; one with a token is still checked.
func TestCallerTokenTransitional(t *testing.T) {
	e := newEnvWith(t, func(c *enclave.Config) { c.RequireCallerToken = false })
	a := &authEnv{env: e, s: e.session(t)}
	owner := a.token(t, userClaims(orgA, "u-owner", "owner"))
	req := a.secret(t, orgA, "v1", "p", "value", "")
	code, pt := a.open(t, req)
	require.Equal(t, wire.OK, code)
	require.Equal(t, "value", pt)
	code, _ = a.open(t, authorised(req, owner, nil, nil))
	require.Equal(t, wire.OK, code)
	code, _ = a.open(t, authorised(req, a.token(t, userClaims(orgA, "u-member", "member")), nil, nil))
	require.Equal(t, wire.Forbidden, code)
	code, _ = a.open(t, authorised(req, forgedToken(t, userClaims(orgA, "u-owner", "owner")), nil, nil))
	require.Equal(t, wire.Forbidden, code)
}
