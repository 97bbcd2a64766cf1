package test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/test/stack"
)

// sealedSet is a sealed set as the proxy stores it.
type sealedSet struct {
	version  int64
	set, mac []byte
}

// queryOne reads one row straight from the stack's database.
func queryOne(t *testing.T, s *stack.Stack, sql string, args []any, dest ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.NoError(t, conn.QueryRow(ctx, sql, args...).Scan(dest...))
}

// storedPolicySet is the vault's policy set and MAC in PostgreSQL.
func storedPolicySet(t *testing.T, s *stack.Stack, orgID, vaultID string) sealedSet {
	t.Helper()
	var ps sealedSet
	queryOne(t, s, `SELECT version, set, mac FROM vault_policy_sets WHERE org_id = $1 AND vault_id = $2`,
		[]any{orgID, vaultID}, &ps.version, &ps.set, &ps.mac)
	require.Len(t, ps.mac, wire.PolicyMACLen, "the set is sealed")
	return ps
}

// storedGuardrailSet is the agent's guardrail set and MAC in PostgreSQL.
func storedGuardrailSet(t *testing.T, s *stack.Stack, agentID string) sealedSet {
	t.Helper()
	var gs sealedSet
	queryOne(t, s, `SELECT guardrail_version, guardrail_set, guardrail_mac FROM agents WHERE id = $1`,
		[]any{agentID}, &gs.version, &gs.set, &gs.mac)
	require.Len(t, gs.mac, wire.PolicyMACLen, "the set is sealed")
	return gs
}

// afterRestartAndOnSecondEnclave runs check against the stack's enclave
// after a restart, then against a second enclave on the same HSM token
// (which never saw the newer set) and the first one again: the floors are
// in the HSM, not in an enclave's memory.
func afterRestartAndOnSecondEnclave(t *testing.T, s *stack.Stack, check func(*testing.T, *client.Session)) {
	t.Run("after a restart", func(t *testing.T) {
		s.KillEnclave()
		s.StartEnclave()
		check(t, enclaveSession(t, s))
	})
	t.Run("on a second enclave", func(t *testing.T) {
		check(t, enclaveSessionAt(t, s, s.StartSecondEnclave()))
		check(t, enclaveSession(t, s))
	})
}

// TestHostileProxySupersededPolicySetRefused: a compromised proxy keeps a
// vault's old policy set (validly MAC'd, letting a member read) and
// presents it after the policy changed. The enclave refuses it after a
// restart and on a second enclave on the same HSM token, which never saw
// the newer set: the floor is in the HSM, not in an enclave's memory.
func TestHostileProxySupersededPolicySetRefused(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("rollback-owner@example.com")
	vault := s.CreateVault(owner.Token, "v")
	for path, value := range map[string]string{"db/pw": "e2e-rollback-db", "other/x": "e2e-rollback-other"} {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+path, owner.Token, map[string]any{"type": "password", "value": value})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	mem := s.SignUp("rollback-member@example.com")
	member := joinAsMember(t, s, mem, owner.OrgID)
	grant := func(pattern string) string {
		return createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": pattern, "principal_type": "user",
			"principal_id": mem.UserID, "permissions": []string{"read"}})
	}
	dbPolicy := grant("db/*")
	old := storedPolicySet(t, s, owner.OrgID, vault)

	// The owner moves the member from db/ to other/.
	grant("other/*")
	r := s.Do("DELETE", "/v1/vaults/"+vault+"/policies/"+dbPolicy, owner.Token, nil)
	require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
	cur := storedPolicySet(t, s, owner.OrgID, vault)
	require.Greater(t, cur.version, old.version)

	open := func(sess *client.Session, path string, ps sealedSet) (wire.Code, string) {
		row := readSealed(t, s, owner.OrgID, path)
		body, err := (&wire.OpenRequest{OrgID: owner.OrgID, VaultID: vault, Path: path, SecretVersion: row.version,
			WrappedDEK: row.wrapped, Ciphertext: row.ct, Token: member, PolicySet: ps.set, PolicyMAC: ps.mac,
			ClientIP: "127.0.0.1"}).Append(nil)
		require.NoError(t, err)
		code, resp, err := sess.Call(wire.OpOpen, body)
		require.NoError(t, err)
		if code != wire.OK {
			require.NotContains(t, string(resp), "e2e-rollback")
			return code, ""
		}
		var out wire.OpenResponse
		require.NoError(t, out.Decode(resp))
		return code, string(out.Plaintext)
	}
	check := func(t *testing.T, sess *client.Session) {
		code, _ := open(sess, "db/pw", old)
		require.Equal(t, wire.Forbidden, code, "the superseded set that let the member read db/")
		code, _ = open(sess, "other/x", old)
		require.Equal(t, wire.Forbidden, code, "the superseded set is refused whatever it says")
		code, _ = open(sess, "db/pw", cur)
		require.Equal(t, wire.Forbidden, code, "the current set refuses db/")
		code, pt := open(sess, "other/x", cur)
		require.Equal(t, wire.OK, code, "the current set works")
		require.Equal(t, "e2e-rollback-other", pt)
	}

	afterRestartAndOnSecondEnclave(t, s, check)
}

// TestHostileProxySupersededGuardrailSetRefused: a compromised proxy keeps
// an agent's loosened guardrail set (message signing on) and presents it
// after a human tightened the guardrails again. Refused after a restart
// and on a second enclave on the same HSM token.
func TestHostileProxySupersededGuardrailSetRefused(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("guard-rollback@example.com")
	id, key, _ := guardedAgentWithKey(t, s, owner, map[string]any{"message_signing_enabled": false})
	r := s.Do("PATCH", "/v1/agents/"+id, owner.Token, map[string]any{"message_signing_enabled": true})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	loose := storedGuardrailSet(t, s, id)
	r = s.Do("PATCH", "/v1/agents/"+id, owner.Token, map[string]any{"message_signing_enabled": false})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	strict := storedGuardrailSet(t, s, id)
	require.Greater(t, strict.version, loose.version)
	agent := agentJWT(t, s, id, key)

	signCtx, err := json.Marshal(wire.SignContext{Chain: "base", ChainID: 8453})
	require.NoError(t, err)
	sign := func(sess *client.Session, gs sealedSet) (wire.Code, wire.SignIntentResponse) {
		body, err := (&wire.SignIntentRequest{Token: agent, OrgID: owner.OrgID, AgentID: id, Chain: "ethereum", KeyVersion: 1,
			Kind: wire.IntentPersonalSign, Payload: []byte("e2e-guard-rollback"), Context: signCtx,
			GuardrailSet: gs.set, GuardrailMAC: gs.mac}).Append(nil)
		require.NoError(t, err)
		code, resp, err := sess.Call(wire.OpSignIntent, body)
		require.NoError(t, err)
		var out wire.SignIntentResponse
		if code == wire.OK {
			require.NoError(t, out.Decode(resp))
		}
		return code, out
	}
	check := func(t *testing.T, sess *client.Session) {
		code, _ := sign(sess, loose)
		require.Equal(t, wire.Forbidden, code, "the superseded set that allowed message signing")
		code, resp := sign(sess, strict)
		require.Equal(t, wire.OK, code, "the current set works")
		require.Equal(t, "message_signing_enabled", resp.Denied, "and weighs the intent")
		require.Empty(t, resp.Signature)
	}

	afterRestartAndOnSecondEnclave(t, s, check)
}

// TestHostileProxySealSetWithMembersToken: a compromised proxy holding a
// member's or an agent's token asks the enclave to seal a looser policy set
// for the member's vault and a looser guardrail set for the agent. Only an
// owner's or admin's token of the organization may change either.
func TestHostileProxySealSetWithMembersToken(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("seal-owner@example.com")
	vault := s.CreateVault(owner.Token, "v")
	mem := s.SignUp("seal-member@example.com")
	member := joinAsMember(t, s, mem, owner.OrgID)
	createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "team/*", "principal_type": "user",
		"principal_id": mem.UserID, "permissions": []string{"read"}})
	cur := storedPolicySet(t, s, owner.OrgID, vault)
	id, key, _ := guardedAgentWithKey(t, s, owner, map[string]any{"message_signing_enabled": false})
	strict := storedGuardrailSet(t, s, id)
	agent := agentJWT(t, s, id, key)
	sess := enclaveSession(t, s)

	loose := policy.EncodeSet(vault, uint64(cur.version)+1, []policy.Policy{{ID: "all", Pattern: "**", PrincipalType: "user",
		PrincipalID: mem.UserID, Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow}})
	for name, token := range map[string]string{"a member's token": member, "an agent's token": agent} {
		t.Run("policy set, "+name, func(t *testing.T) {
			code := callWire(t, sess, wire.OpSealPolicySet, &wire.SealPolicySetRequest{OrgID: owner.OrgID, VaultID: vault,
				Version: uint64(cur.version) + 1, Set: loose, ChangerToken: token}, nil)
			require.Equal(t, wire.Forbidden, code)
		})
		t.Run("guardrail set, "+name, func(t *testing.T) {
			code := callWire(t, sess, wire.OpSealGuardrails, &wire.SealGuardrailsRequest{OrgID: owner.OrgID, AgentID: id,
				Version: uint64(strict.version) + 1, Set: strict.set, ChangerToken: token}, nil)
			require.Equal(t, wire.Forbidden, code)
		})
	}
	require.Equal(t, cur, storedPolicySet(t, s, owner.OrgID, vault), "nothing changed")
}
