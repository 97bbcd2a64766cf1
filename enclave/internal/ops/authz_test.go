package ops

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/memstore"
	"github.com/opencustody/ocv/policy"
)

// countingStore counts MAC calls.
type countingStore struct {
	*memstore.Store
	macs atomic.Int32
}

func (c *countingStore) MAC(ctx context.Context, ref keyvault.KeyRef, data []byte) ([]byte, error) {
	c.macs.Add(1)
	return c.Store.MAC(ctx, ref, data)
}

func (f *fixture) token(t testing.TB, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	tok, err := f.h.jwt.token(context.Background(), b)
	require.NoError(t, err)
	return tok
}

func claimsFor(org, ptype, sub, role string) map[string]any {
	c := map[string]any{"iss": "i", "sub": sub, "aud": "ocv", "iat": time.Now().Unix(), "exp": time.Now().Add(15 * time.Minute).Unix(),
		"jti": "j-" + sub, "org_id": org, "principal_type": ptype}
	if role != "" {
		c["role"] = role
	}
	return c
}

func (f *fixture) seal(t testing.TB, org, vault string, version uint64, ps ...policy.Policy) ([]byte, []byte) {
	t.Helper()
	owner := f.token(t, claimsFor(org, "user", "owner-"+org, "owner"))
	set := policy.EncodeSet(vault, version, ps)
	mac, err := f.h.authz.sealPolicySet(context.Background(), &wire.SealPolicySetRequest{OrgID: org, VaultID: vault, Version: version, Set: set, ChangerToken: owner})
	require.NoError(t, err)
	return set, mac
}

// TestAuthorizeReasons checks each refusal for the reason it is meant to
// have (the proxy only ever sees Forbidden).
func TestAuthorizeReasons(t *testing.T) {
	f := newFixture(t)
	f.h.authz.requireToken = true
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	agentEnv := claimsFor("o", "agent", "a", "")
	agentEnv["environment"] = "prod"
	agentEnvTok := f.token(t, agentEnv)
	set, mac := f.seal(t, "o", "v", 1,
		policy.Policy{ID: "pol-ip", Pattern: "net/*", PrincipalType: "user", PrincipalID: "m", Permissions: []policy.Permission{"read"}, Effect: "allow",
			Conditions: policy.Conditions{IPCIDRs: []string{"10.0.0.0/8"}}},
		policy.Policy{ID: "pol-env", Pattern: "env/*", PrincipalType: "agent", PrincipalID: "a", Permissions: []policy.Permission{"read"}, Effect: "allow",
			Conditions: policy.Conditions{EnvironmentIn: []string{"prod"}}},
	)
	base := access{OrgID: "o", VaultID: "v", Path: "net/x", Permission: policy.PermissionRead, Token: member, PolicySet: set, PolicyMAC: mac, ClientIP: "10.1.2.3"}
	edit := func(fn func(a *access)) access { a := base; fn(&a); return a }
	tests := map[string]struct {
		a       access
		wantErr error
		reason  string
	}{
		"ok ip inside":         {a: base},
		"ok ipv4-mapped":       {a: edit(func(a *access) { a.ClientIP = "::ffff:10.9.9.9" })},
		"fail ip outside":      {a: edit(func(a *access) { a.ClientIP = "192.0.2.1" }), wantErr: wire.ErrForbidden, reason: "not allowed by the vault's policies"},
		"fail ip unknown":      {a: edit(func(a *access) { a.ClientIP = "" }), wantErr: wire.ErrForbidden, reason: "not allowed"},
		"fail ip unparsable":   {a: edit(func(a *access) { a.ClientIP = "10.1.2.3:443" }), wantErr: wire.ErrForbidden, reason: "not allowed"},
		"ok agent environment": {a: edit(func(a *access) { a.Token, a.Path = agentEnvTok, "env/x" })},
		"fail agent no environment": {a: edit(func(a *access) {
			a.Token, a.Path = f.token(t, claimsFor("o", "agent", "a", "")), "env/x"
		}), wantErr: wire.ErrForbidden, reason: "not allowed"},
		"fail other vault":     {a: edit(func(a *access) { a.VaultID = "w" }), wantErr: wire.ErrForbidden, reason: "policy set of another vault"},
		"fail other org":       {a: edit(func(a *access) { a.OrgID = "p" }), wantErr: wire.ErrForbidden, reason: "token of another organization"},
		"fail no set":          {a: edit(func(a *access) { a.PolicySet = nil }), wantErr: wire.ErrForbidden, reason: "no policy set"},
		"fail bad mac":         {a: edit(func(a *access) { a.PolicyMAC = make([]byte, 32) }), wantErr: wire.ErrForbidden, reason: "mac does not verify"},
		"fail no token":        {a: edit(func(a *access) { a.Token = "" }), wantErr: wire.ErrForbidden, reason: "no token"},
		"fail invalid path":    {a: edit(func(a *access) { a.Path = "net//x" }), wantErr: wire.ErrForbidden, reason: "not allowed"},
		"fail write with read": {a: edit(func(a *access) { a.Permission = policy.PermissionWrite }), wantErr: wire.ErrForbidden, reason: "not allowed"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := f.h.authz.authorize(context.Background(), &tc.a)
			require.ErrorIs(t, err, tc.wantErr)
			if err != nil {
				require.Contains(t, err.Error(), tc.reason)
				require.NotContains(t, err.Error(), "pol-", "the deciding policy is never named")
			}
		})
	}
}

func TestPolicySetCacheSavesMACs(t *testing.T) {
	f := newFixture(t)
	cs := &countingStore{Store: f.ks}
	h, err := New(context.Background(), cs, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated, RequireCallerToken: true})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	g := &fixture{h: h, ks: f.ks}
	member := g.token(t, claimsFor("o", "user", "m", "member"))
	set, mac := g.seal(t, "o", "v", 1, policy.Policy{ID: "p", Pattern: "**", PrincipalType: "user", PrincipalID: "m",
		Permissions: []policy.Permission{"read"}, Effect: "allow"})
	require.Equal(t, int32(1), cs.macs.Load())
	a := access{OrgID: "o", VaultID: "v", Path: "x", Permission: policy.PermissionRead, Token: member, PolicySet: set, PolicyMAC: mac}
	for range 5 {
		require.NoError(t, h.authz.authorize(context.Background(), &a))
	}
	require.Equal(t, int32(1), cs.macs.Load(), "SealPolicySet primed the cache")
	require.Equal(t, 1, h.authz.sets.len())

	// A wrong MAC for a cached set is refused without a key-store call.
	a.PolicyMAC = make([]byte, 32)
	require.ErrorIs(t, h.authz.authorize(context.Background(), &a), wire.ErrForbidden)
	require.Equal(t, int32(1), cs.macs.Load())
}

func TestAuthorizeKeyStoreOutage(t *testing.T) {
	f := newFixture(t)
	f.h.authz.requireToken = true
	fresh, err := New(context.Background(), f.ks, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated, RequireCallerToken: true})
	require.NoError(t, err)
	t.Cleanup(fresh.Close)
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	a := access{OrgID: "o", VaultID: "v", Path: "x", Permission: policy.PermissionRead, Token: member}
	require.ErrorIs(t, f.h.authz.authorize(context.Background(), &a), wire.ErrForbidden, "no set; the token is now cached")
	require.NoError(t, f.ks.Close())

	// With the store down the answers are outages, not verdicts: a set
	// never MAC'd before needs the store, and so does a kid a verifier
	// never looked up.
	a.PolicySet, a.PolicyMAC = policy.EncodeSet("v", 1, nil), make([]byte, 32)
	for name, h := range map[string]*Handler{"mac": f.h, "kid": fresh} {
		err := h.authz.authorize(context.Background(), &a)
		require.ErrorIs(t, err, wire.ErrUnavailable, name)
		require.NotErrorIs(t, err, wire.ErrForbidden, name)
	}
}

func TestSetCacheBounded(t *testing.T) {
	c := newSetCache[*sealedSet](1000)
	for i := range 10 {
		c.put([32]byte{byte(i)}, &sealedSet{digest: [32]byte{byte(i)}}, 100) // 556 counted bytes each
	}
	require.Equal(t, 1, c.len())
	_, ok := c.get([32]byte{9})
	require.True(t, ok)
	c.put([32]byte{42}, &sealedSet{digest: [32]byte{42}}, 1000) // larger than the cache
	_, ok = c.get([32]byte{42})
	require.False(t, ok)
}

// noMACStore is a key store that wraps keys but cannot compute MACs.
type noMACStore struct {
	keyvault.KeyStore
	keyvault.KeyWrapper
}

func TestNewNeedsPolicyMACKey(t *testing.T) {
	f := newFixture(t)
	versions, err := f.ks.Versions(context.Background(), PolicyMACKeyID)
	require.NoError(t, err)
	require.Equal(t, []uint32{1}, versions, "made at the first start")

	_, err = New(context.Background(), noMACStore{f.ks, f.ks}, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated})
	require.ErrorIs(t, err, keyvault.ErrUnsupported)

	other, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })
	_, err = other.CreateKey(context.Background(), keyvault.CreateKeyRequest{Ref: policyMACKey, Algorithm: keyvault.AES256})
	require.NoError(t, err)
	_, err = New(context.Background(), other, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated})
	require.ErrorIs(t, err, keyvault.ErrUnsupported, "a policy-mac key that is no MAC key")
}
