package ops

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

// makeVersions makes versions 1..n of the agent's ethereum key in org.
func makeVersions(t *testing.T, f *fixture, org string, n uint32) {
	t.Helper()
	human := f.token(t, claimsFor(org, "user", "h-"+org, "admin"))
	for v := uint32(1); v <= n; v++ {
		var resp wire.SigningKeyResponse
		require.NoError(t, f.call(t, wire.OpSigningKey, &wire.SigningKeyRequest{Token: human, OrgID: org, AgentID: signAgent,
			Chain: "ethereum", Version: v}, &resp))
	}
}

func TestSigningKeyIDBindsOrganization(t *testing.T) {
	f := newFixture(t)
	makeVersions(t, f, signOrg, 1)
	makeVersions(t, f, "org-other", 1)
	for _, org := range []string{signOrg, "org-other"} {
		versions, err := f.ks.Versions(t.Context(), "sk/"+org+"/"+signAgent+"/ethereum")
		require.NoError(t, err)
		require.Equal(t, []uint32{1}, versions, org)
	}
	// The same agent id in two organizations: two keys, both at version 1.
	a, err := f.ks.Key(t.Context(), mustRef(t, signOrg, 1))
	require.NoError(t, err)
	b, err := f.ks.Key(t.Context(), mustRef(t, "org-other", 1))
	require.NoError(t, err)
	require.NotEqual(t, a.Public, b.Public)

	human := f.token(t, claimsFor(signOrg, "user", "h", "owner"))
	for name, agent := range map[string]string{"slash": "a/b", "colon": "a:v1", "empty": ""} {
		t.Run("fail agent id with "+name, func(t *testing.T) {
			var resp wire.SigningKeyResponse
			err := f.call(t, wire.OpSigningKey, &wire.SigningKeyRequest{Token: human, OrgID: signOrg, AgentID: agent, Chain: "ethereum", Version: 1}, &resp)
			require.ErrorIs(t, err, wire.ErrBadRequest)
		})
	}
}

func mustRef(t *testing.T, org string, v uint32) keyvault.KeyRef {
	t.Helper()
	ref, err := signingKeyRef(org, signAgent, "ethereum", v)
	require.NoError(t, err)
	return ref
}

func TestDestroySigningKeyAuthority(t *testing.T) {
	f := newFixture(t)
	makeVersions(t, f, signOrg, 2)
	tok := func(org, ptype, sub, role string) string { return f.token(t, claimsFor(org, ptype, sub, role)) }
	req := func(token, org string, below uint32) *wire.DestroySigningKeyRequest {
		return &wire.DestroySigningKeyRequest{Token: token, OrgID: org, AgentID: signAgent, Chain: "ethereum", Below: below}
	}
	tests := map[string]struct {
		req     *wire.DestroySigningKeyRequest
		wantErr error
	}{
		"fail no token":            {req: req("", signOrg, 2), wantErr: wire.ErrForbidden},
		"fail member":              {req: req(tok(signOrg, "user", "m", "member"), signOrg, 2), wantErr: wire.ErrForbidden},
		"fail the agent itself":    {req: req(tok(signOrg, "agent", signAgent, ""), signOrg, 2), wantErr: wire.ErrForbidden},
		"fail another org":         {req: req(tok("org-other", "user", "o", "owner"), signOrg, 2), wantErr: wire.ErrForbidden},
		"fail unknown chain":       {req: &wire.DestroySigningKeyRequest{Token: tok(signOrg, "user", "o", "owner"), OrgID: signOrg, AgentID: signAgent, Chain: "dogecoin"}, wantErr: wire.ErrBadRequest},
		"fail bad agent id":        {req: &wire.DestroySigningKeyRequest{Token: tok(signOrg, "user", "o", "owner"), OrgID: signOrg, AgentID: "x/y", Chain: "ethereum"}, wantErr: wire.ErrBadRequest},
		"fail missing new version": {req: req(tok(signOrg, "user", "o", "owner"), signOrg, 7), wantErr: wire.ErrNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var resp wire.DestroySigningKeyResponse
			require.ErrorIs(t, f.call(t, wire.OpDestroySigningKey, tc.req, &resp), tc.wantErr)
		})
	}
	versions, err := f.ks.Versions(t.Context(), "sk/"+signOrg+"/"+signAgent+"/ethereum")
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 2}, versions, "no refusal destroyed anything")
}

// TestDestroySigningKeyRotationAndDelete: a rotation destroys the versions
// its new one replaced, and a signature with one is a clean NotFound; a
// deletion destroys every version; retries are harmless.
func TestDestroySigningKeyRotationAndDelete(t *testing.T) {
	f := newFixture(t)
	agentTok, _ := agentWithKey(t, f) // v1
	makeVersionsFrom(t, f, 2, 3)      // v2, v3
	admin := f.token(t, claimsFor(signOrg, "user", "adm", string(policy.RoleAdmin)))
	destroy := func(below uint32) (uint32, error) {
		var resp wire.DestroySigningKeyResponse
		err := f.call(t, wire.OpDestroySigningKey, &wire.DestroySigningKeyRequest{Token: admin, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", Below: below}, &resp)
		return resp.Destroyed, err
	}
	n, err := destroy(3)
	require.NoError(t, err)
	require.Equal(t, uint32(2), n)
	versions, err := f.ks.Versions(t.Context(), "sk/"+signOrg+"/"+signAgent+"/ethereum")
	require.NoError(t, err)
	require.Equal(t, []uint32{3}, versions)
	n, err = destroy(3)
	require.NoError(t, err)
	require.Zero(t, n, "a retry destroys nothing more")

	set, mac := f.sealGuardrails(t, map[string]any{"raw_signing_enabled": true})
	sign := func(v uint32) error {
		var resp wire.SignIntentResponse
		return f.call(t, wire.OpSignIntent, &wire.SignIntentRequest{Token: agentTok, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", KeyVersion: v, Kind: wire.IntentDigest, Payload: make([]byte, 32), Context: signContext(t),
			GuardrailSet: set, GuardrailMAC: mac}, &resp)
	}
	require.ErrorIs(t, sign(1), wire.ErrNotFound, "a destroyed version signs nothing")
	require.NoError(t, sign(3))

	n, err = destroy(0)
	require.NoError(t, err)
	require.Equal(t, uint32(1), n, "a deletion destroys every version")
	require.ErrorIs(t, sign(3), wire.ErrNotFound)
}

func makeVersionsFrom(t *testing.T, f *fixture, from, to uint32) {
	t.Helper()
	human := f.token(t, claimsFor(signOrg, "user", "h", "owner"))
	for v := from; v <= to; v++ {
		var resp wire.SigningKeyResponse
		require.NoError(t, f.call(t, wire.OpSigningKey, &wire.SigningKeyRequest{Token: human, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", Version: v}, &resp))
	}
}
