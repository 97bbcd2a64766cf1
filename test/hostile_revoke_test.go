package test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// revokeFixture is one organization with a secret, and a compromised
// proxy host's raw session to the enclave.
type revokeFixture struct {
	t      *testing.T
	s      *stack.Stack
	owner  stack.Account
	vault  string
	canary string
	sess   *client.Session
}

func newRevokeFixture(t *testing.T, name string, opts ...stack.Option) *revokeFixture {
	t.Helper()
	s := stack.Start(t, opts...)
	s.WaitAttested()
	f := &revokeFixture{t: t, s: s, owner: s.SignUp(name + "-owner@example.com"), canary: "e2e-" + name + "-canary"}
	f.vault = s.CreateVault(f.owner.Token, "v")
	r := s.Do("PUT", "/v1/vaults/"+f.vault+"/secrets/prod/db", f.owner.Token, map[string]any{"type": "password", "value": f.canary})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	f.sess = enclaveSession(t, s)
	return f
}

// withRootAdmin starts the stack with the bootstrap platform administrator.
func withRootAdmin() stack.Option {
	return stack.WithProxyEnv("OCV_BOOTSTRAP_ADMIN_EMAIL="+rootEmail, "OCV_BOOTSTRAP_ADMIN_PASSWORD="+rootPassword)
}

// readerAgent registers an agent that a policy lets read every path of the
// fixture's vault, and returns its id and key.
func (f *revokeFixture) readerAgent() (id, key string) {
	f.t.Helper()
	id, key = registerAgent(f.t, f.s, f.owner.Token, map[string]any{"name": "reader"})
	r := f.s.Do("POST", "/v1/vaults/"+f.vault+"/policies", f.owner.Token, map[string]any{"secret_path_pattern": "**",
		"principal_type": "agent", "principal_id": id, "permissions": []string{"read"}, "effect": "allow"})
	require.Equal(f.t, http.StatusCreated, r.Status, string(r.Body))
	return id, key
}

// policySet reads the vault's current policy set and MAC from storage, as
// a proxy holds them (none: nil).
func (f *revokeFixture) policySet() (set, mac []byte) {
	f.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.s.DatabaseURL)
	require.NoError(f.t, err)
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT set, mac FROM vault_policy_sets WHERE org_id = $1 AND vault_id = $2`,
		f.owner.OrgID, f.vault).Scan(&set, &mac)
	if err == pgx.ErrNoRows {
		return nil, nil
	}
	require.NoError(f.t, err)
	return set, mac
}

// open has the enclave open the secret with token, bypassing the proxy,
// and reports whether the plaintext came back.
func (f *revokeFixture) open(token string) wire.Code {
	f.t.Helper()
	row := readSealed(f.t, f.s, f.owner.OrgID, "prod/db")
	set, mac := f.policySet()
	req := wire.OpenRequest{OrgID: f.owner.OrgID, VaultID: f.vault, Path: "prod/db", SecretVersion: row.version,
		WrappedDEK: row.wrapped, Ciphertext: row.ct, Token: token, PolicySet: set, PolicyMAC: mac, ClientIP: "127.0.0.1"}
	body, err := req.Append(nil)
	require.NoError(f.t, err)
	code, resp, err := f.sess.Call(wire.OpOpen, body)
	require.NoError(f.t, err)
	if code == wire.OK {
		var out wire.OpenResponse
		require.NoError(f.t, out.Decode(resp))
		require.Equal(f.t, f.canary, string(out.Plaintext))
	} else {
		require.NotContains(f.t, string(resp), f.canary)
	}
	return code
}

// setCutoff sends OpSetCutoff directly.
func (f *revokeFixture) setCutoff(req wire.SetCutoffRequest) wire.Code {
	f.t.Helper()
	body, err := req.Append(nil)
	require.NoError(f.t, err)
	code, _, err := f.sess.Call(wire.OpSetCutoff, body)
	require.NoError(f.t, err)
	return code
}

// TestHostileProxyRevokeSignedOutToken: a token signed out through the API
// opens nothing in the enclave, even for a proxy that skips its own
// revocation list, and still nothing after the enclave restarts.
func TestHostileProxyRevokeSignedOutToken(t *testing.T) {
	f := newRevokeFixture(t, "signout")
	tok := signIn(t, f.s, f.owner.Email, f.owner.Password)["access_token"].(string)
	require.Equal(t, wire.OK, f.open(tok), "control: the session's token opens before sign-out")

	require.Equal(t, http.StatusNoContent, f.s.Do("DELETE", "/v1/auth/token", tok, nil).Status)
	requireProblem(t, f.s.Do("GET", "/v1/vaults", tok, nil), http.StatusUnauthorized, "invalid_token")
	require.Equal(t, wire.Forbidden, f.open(tok))
	require.Equal(t, wire.OK, f.open(f.owner.Token), "the owner's other token is untouched")

	f.s.KillEnclave()
	f.s.StartEnclave()
	f.s.WaitAttested()
	f.sess = enclaveSession(t, f.s)
	require.Equal(t, wire.Forbidden, f.open(tok), "after an enclave restart too")
	require.Equal(t, wire.OK, f.open(f.owner.Token))
}

// TestHostileProxyRevokeAgentKeyRotation: once an agent's key is rotated,
// the enclave refuses the agent's earlier tokens; a token of the new key
// works. A deleted agent's tokens are refused for good.
func TestHostileProxyRevokeAgentKeyRotation(t *testing.T) {
	f := newRevokeFixture(t, "rotate")
	id, key := f.readerAgent()
	old := agentJWT(t, f.s, id, key)
	require.Equal(t, wire.OK, f.open(old), "control: the agent's token opens")

	rot := f.s.Do("POST", "/v1/agents/"+id+"/rotate-key", f.owner.Token, nil)
	require.Equal(t, http.StatusOK, rot.Status, string(rot.Body))
	require.Equal(t, wire.Forbidden, f.open(old))
	fresh := agentJWT(t, f.s, id, rot.JSON(t)["api_key"].(string))
	require.Equal(t, wire.OK, f.open(fresh), "a token of the new key opens at once")

	require.Equal(t, http.StatusNoContent, f.s.Do("DELETE", "/v1/agents/"+id, f.owner.Token, nil).Status)
	require.Equal(t, wire.Forbidden, f.open(fresh))
}

// TestHostileProxyRevokeRemovedMember: a member whose role changed or who
// was removed is refused by the enclave with its earlier tokens. The member
// is an admin here, whom no policy set limits, so that only the cut-off
// can refuse it.
func TestHostileProxyRevokeRemovedMember(t *testing.T) {
	f := newRevokeFixture(t, "removed")
	m := f.s.SignUp("removed-admin@example.com")
	joinAsMember(t, f.s, m, f.owner.OrgID)
	r := f.s.Do("PATCH", "/v1/org/members/"+m.UserID, f.owner.Token, map[string]string{"role": "admin"})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	admin := signIn(t, f.s, m.Email, m.Password)["access_token"].(string)
	require.Equal(t, wire.OK, f.open(admin), "control: an admin opens without a policy")

	r = f.s.Do("PATCH", "/v1/org/members/"+m.UserID, f.owner.Token, map[string]string{"role": "owner"})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, wire.Forbidden, f.open(admin), "a role change cuts off the old role's tokens")
	promoted := signIn(t, f.s, m.Email, m.Password)["access_token"].(string)
	require.Equal(t, wire.OK, f.open(promoted), "a new sign-in works at once")

	require.Equal(t, http.StatusNoContent, f.s.Do("DELETE", "/v1/org/members/"+m.UserID, f.owner.Token, nil).Status)
	require.Equal(t, wire.Forbidden, f.open(promoted))
	require.Equal(t, wire.OK, f.open(f.owner.Token), "the owner is untouched")
}

// TestHostileProxyRevokeCutoffNeedsAuthority: a compromised proxy holding
// a member's token cannot have the enclave cut off anyone else (an owner,
// an agent, a user everywhere), nor with another organization's owner
// token; the owner's token keeps opening.
func TestHostileProxyRevokeCutoffNeedsAuthority(t *testing.T) {
	f := newRevokeFixture(t, "authority")
	mem := f.s.SignUp("authority-member@example.com")
	member := joinAsMember(t, f.s, mem, f.owner.OrgID)
	outsider := f.s.SignUp("authority-outsider@example.com")
	agentID, _ := registerAgent(t, f.s, f.owner.Token, map[string]any{"name": "bystander"})

	tests := map[string]wire.SetCutoffRequest{
		"member cuts off the owner":        {OrgID: f.owner.OrgID, PrincipalID: f.owner.UserID, Token: member},
		"member deletes an agent":          {OrgID: f.owner.OrgID, PrincipalID: agentID, Flags: wire.CutoffAgent | wire.CutoffDelete, Token: member},
		"member cuts off owner everywhere": {PrincipalID: f.owner.UserID, Flags: wire.CutoffAllOrgs, Token: member},
		"another organization's owner":     {OrgID: f.owner.OrgID, PrincipalID: f.owner.UserID, Token: outsider.Token},
		"no token":                         {OrgID: f.owner.OrgID, PrincipalID: f.owner.UserID},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, wire.Forbidden, f.setCutoff(req))
			require.Equal(t, wire.OK, f.open(f.owner.Token))
		})
	}
	t.Run("the member may cut off itself (control)", func(t *testing.T) {
		require.Equal(t, wire.OK, f.setCutoff(wire.SetCutoffRequest{OrgID: f.owner.OrgID, PrincipalID: mem.UserID, Token: member}))
		require.Equal(t, wire.Forbidden, f.setCutoff(wire.SetCutoffRequest{OrgID: f.owner.OrgID, PrincipalID: mem.UserID, Token: member}),
			"and then has no authority left")
	})
}

// TestHostileProxyRevokeDeletedUser: a user deleted by a platform
// administrator is refused by the enclave with the tokens it had, for
// good; a new token minted for it (as a compromised proxy could) too.
func TestHostileProxyRevokeDeletedUser(t *testing.T) {
	f := newRevokeFixture(t, "deleted", withRootAdmin())
	s := f.s
	root := signIn(t, s, rootEmail, rootPassword)["access_token"].(string)

	victim := s.SignUp("deleted-victim@example.com")
	joinAsMember(t, s, victim, f.owner.OrgID)
	r := s.Do("PATCH", "/v1/org/members/"+victim.UserID, f.owner.Token, map[string]string{"role": "admin"})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	tok := signIn(t, s, victim.Email, victim.Password)["access_token"].(string)
	require.Equal(t, wire.OK, f.open(tok), "control: an admin opens without a policy")

	require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/admin/users/"+victim.UserID, root, nil).Status)
	require.Equal(t, wire.Forbidden, f.open(tok))
	minted := (&hostileProxy{t: t, s: s, sess: f.sess}).sign(edited(t, tok, func(c map[string]any) {
		now := time.Now().Add(30 * time.Second) // within the clock skew: only the cut-off refuses it
		c["iat"], c["iat_ms"], c["exp"] = now.Unix(), now.UnixMilli(), now.Add(10*time.Minute).Unix()
	}))
	require.Equal(t, wire.Forbidden, f.open(minted), "a deleted user's cut-off has no end")
	require.Equal(t, wire.OK, f.open(f.owner.Token))
}

// TestHostileProxyRevokeDeletedOrganization: a platform administrator
// deletes an organization's only member, and the organization goes with it,
// agents included. A compromised proxy that kept the sealed value, the
// vault's policy set and the agent's token gets nothing from the enclave:
// every token of the deleted organization is cut off for good.
func TestHostileProxyRevokeDeletedOrganization(t *testing.T) {
	f := newRevokeFixture(t, "orggone", withRootAdmin())
	s := f.s
	id, key := f.readerAgent()
	agent := agentJWT(t, s, id, key)
	require.Equal(t, wire.OK, f.open(agent), "control: the agent's token opens")

	// What a compromised proxy keeps before the deletion.
	row := readSealed(t, s, f.owner.OrgID, "prod/db")
	set, mac := f.policySet()
	kept := &wire.OpenRequest{OrgID: f.owner.OrgID, VaultID: f.vault, Path: "prod/db", SecretVersion: row.version,
		WrappedDEK: row.wrapped, Ciphertext: row.ct, Token: agent, PolicySet: set, PolicyMAC: mac, ClientIP: "127.0.0.1"}

	root := signIn(t, s, rootEmail, rootPassword)["access_token"].(string)
	require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/admin/users/"+f.owner.UserID, root, nil).Status)
	require.Equal(t, wire.Forbidden, callWire(t, f.sess, wire.OpOpen, kept, nil), "the deleted organization's agent")
	kept.Token = f.owner.Token
	require.Equal(t, wire.Forbidden, callWire(t, f.sess, wire.OpOpen, kept, nil), "its deleted owner")
}

// TestPostgresWriterCannotUndoSignOut: a writer to PostgreSQL deletes the
// record of a sign-out, and the proxy, restarted, honours the token again
// on its own routes. The enclave's revocation is in the HSM: the secret
// still does not open with that token.
func TestPostgresWriterCannotUndoSignOut(t *testing.T) {
	f := newRevokeFixture(t, "undo-signout")
	tok := signIn(t, f.s, f.owner.Email, f.owner.Password)["access_token"].(string)
	path := "/v1/vaults/" + f.vault + "/secrets/prod/db"
	require.Equal(t, http.StatusOK, f.s.Do("GET", path, tok, nil).Status, "control: the token reads before sign-out")
	require.Equal(t, http.StatusNoContent, f.s.Do("DELETE", "/v1/auth/token", tok, nil).Status)

	execSQL(t, f.s, "DELETE FROM revoked_tokens")
	f.s.KillProxy()
	f.s.StartProxy()
	f.s.WaitAttested()
	require.Equal(t, http.StatusOK, f.s.Do("GET", "/v1/vaults", tok, nil).Status,
		"the proxy alone no longer knows of the sign-out")
	r := f.s.Do("GET", path, tok, nil)
	require.NotEqual(t, http.StatusOK, r.Status, string(r.Body))
	require.NotContains(t, string(r.Body), f.canary)
}
