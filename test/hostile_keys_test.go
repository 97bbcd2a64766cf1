package test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// keysCall sends one request over a raw session and returns the code and
// the answer's body.
func keysCall(t *testing.T, sess *client.Session, op wire.Op, req wire.Message) (wire.Code, []byte) {
	t.Helper()
	body, err := req.Append(nil)
	require.NoError(t, err)
	code, resp, err := sess.Call(op, body)
	require.NoError(t, err)
	return code, resp
}

// TestHostileProxyKeysCreateKEK: a compromised proxy host, speaking the wire
// protocol to the enclave, cannot create a KEK for another organization's
// vault, nor with a member's token, nor with none. What an owner's token of
// its own organization creates is that organization's key alone.
func TestHostileProxyKeysCreateKEK(t *testing.T) {
	s := stack.Start(t)
	ownerA := s.SignUp("kek-owner-a@example.com")
	ownerB := s.SignUp("kek-owner-b@example.com")
	vaultB := s.CreateVault(ownerB.Token, "b-prod")
	r := s.Do("PUT", "/v1/vaults/"+vaultB+"/secrets/db", ownerB.Token, map[string]string{"type": "password", "value": "b-secret"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	member := joinAsMember(t, s, s.SignUp("kek-member-a@example.com"), ownerA.OrgID)
	sess := enclaveSession(t, s)

	create := func(token, org, vault string) wire.Code {
		code, _ := keysCall(t, sess, wire.OpCreateKEK, &wire.CreateKEKRequest{Token: token, OrgID: org, VaultID: vault})
		return code
	}
	tests := map[string]struct {
		token, org, vault string
	}{
		"fail org A's owner token, org B's vault":          {ownerA.Token, ownerB.OrgID, vaultB},
		"fail org A's owner token, org B, a new vault":     {ownerA.Token, ownerB.OrgID, "0190f1a2-0000-7000-8000-00000000b0b0"},
		"fail a member's token":                            {member, ownerA.OrgID, "0190f1a2-0000-7000-8000-00000000a0a0"},
		"fail no token":                                    {"", ownerA.OrgID, "0190f1a2-0000-7000-8000-00000000a0a1"},
		"fail no token, org B's vault (a rotation)":        {"", ownerB.OrgID, vaultB},
		"fail a forged-looking token":                      {"e30.e30.AAAA", ownerB.OrgID, vaultB},
		"fail a member's token, a rotation of its own org": {member, ownerA.OrgID, s.CreateVault(ownerA.Token, "a-prod")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, wire.Forbidden, create(tc.token, tc.org, tc.vault))
		})
	}

	// An owner's token of org A addresses only org A's keys: naming org B's
	// vault id under org A makes a key of org A and leaves org B's alone.
	require.Equal(t, wire.OK, create(ownerA.Token, ownerA.OrgID, vaultB))
	got := s.Do("GET", "/v1/vaults/"+vaultB, ownerB.Token, nil).JSON(t)
	require.EqualValues(t, 1, got["kek_version"], "org B's KEK was not rotated")
	read := s.Do("GET", "/v1/vaults/"+vaultB+"/secrets/db", ownerB.Token, nil)
	require.Equal(t, http.StatusOK, read.Status, string(read.Body))
	require.Contains(t, string(read.Body), "b-secret")

	// Writing into org B's vault with org A's token finds no KEK of org A
	// for it: 404, exactly like a vault that exists nowhere.
	put := func(vault string) stack.Response {
		return s.Do("PUT", "/v1/vaults/"+vault+"/secrets/x", ownerA.Token, map[string]string{"type": "password", "value": "x"})
	}
	theirs, nowhere := put(vaultB), put("01a20ed4-0000-7000-8000-0000000000ff")
	requireProblem(t, theirs, http.StatusNotFound, "not_found")
	require.Equal(t, nowhere.Status, theirs.Status)
	require.Equal(t, nowhere.JSON(t)["detail"], theirs.JSON(t)["detail"])

	// The API refuses a member's vault before the enclave does.
	requireProblem(t, s.Do("POST", "/v1/vaults", member, map[string]string{"name": "m"}), http.StatusForbidden, "forbidden")
}

// agentGuardrails reads the agent's sealed guardrail set and its MAC as
// the proxy stores them.
func agentGuardrails(t *testing.T, s *stack.Stack, orgID, agentID string) (set, mac []byte) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.NoError(t, conn.QueryRow(ctx, `SELECT guardrail_set, guardrail_mac FROM agents WHERE org_id = $1 AND id = $2`,
		orgID, agentID).Scan(&set, &mac))
	require.NotEmpty(t, mac, "the agent's guardrails are sealed")
	return set, mac
}

// TestHostileProxyKeysRetiredVersionsDestroyed: after a rotation through
// the API the old version of the agent's key is gone from the HSM (the
// enclave, asked directly, finds no key to sign with), and after a
// deletion every version is. A member may not rotate or delete.
func TestHostileProxyKeysRetiredVersionsDestroyed(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("keys-destroy-owner@example.com")
	member := joinAsMember(t, s, s.SignUp("keys-destroy-member@example.com"), owner.OrgID)
	id, key := registerAgent(t, s, owner.Token, map[string]any{"name": "wallet", "intents_api_enabled": true, "raw_signing_enabled": true})
	agent := agentJWT(t, s, id, key)
	path := "/v1/agents/" + id + "/signing-keys"
	r := s.Do("POST", path, owner.Token, map[string]any{"chain": "ethereum"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	set, mac := agentGuardrails(t, s, owner.OrgID, id)
	sess := enclaveSession(t, s)

	scJSON, err := json.Marshal(wire.SignContext{Chain: "base", ChainID: 8453})
	require.NoError(t, err)
	sign := func(version uint32) wire.Code {
		code, _ := keysCall(t, sess, wire.OpSignIntent, &wire.SignIntentRequest{Token: agent, OrgID: owner.OrgID, AgentID: id,
			Chain: "ethereum", KeyVersion: version, Kind: wire.IntentDigest, Payload: make([]byte, 32), Context: scJSON,
			GuardrailSet: set, GuardrailMAC: mac})
		return code
	}
	require.Equal(t, wire.OK, sign(1), "version 1 signs before the rotation")

	requireProblem(t, s.Do("POST", path+"/ethereum/rotate", member, nil), http.StatusForbidden, "forbidden")
	requireProblem(t, s.Do("DELETE", path+"/ethereum", member, nil), http.StatusForbidden, "forbidden")
	require.Equal(t, wire.OK, sign(1), "a member's attempt destroyed nothing")

	r = s.Do("POST", path+"/ethereum/rotate", owner.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.EqualValues(t, 2, r.JSON(t)["version"])
	require.Equal(t, wire.NotFound, sign(1), "the retired version is destroyed in the HSM")
	require.Equal(t, wire.OK, sign(2))

	// A compromised proxy cannot destroy keys with the agent's or a
	// member's token, nor another organization's.
	other := s.SignUp("keys-destroy-other@example.com")
	for name, tok := range map[string]string{"agent": agent, "member": member, "no token": "", "other org's owner": other.Token} {
		code, _ := keysCall(t, sess, wire.OpDestroySigningKey, &wire.DestroySigningKeyRequest{Token: tok, OrgID: owner.OrgID,
			AgentID: id, Chain: "ethereum"})
		require.Equal(t, wire.Forbidden, code, name)
	}
	require.Equal(t, wire.OK, sign(2), "no refused destruction destroyed anything")

	// Through the API a destroyed version fails cleanly, never a 500: a
	// database put back to name version 1 as active gets a 409.
	hash := map[string]any{"intent_type": "eip712_digest", "hash": "0x" + strings.Repeat("00", 32)}
	r = s.Do("POST", "/v1/agents/"+id+"/sign", agent, hash)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	execSQL(t, s, "UPDATE signing_keys SET status = 'rotated' WHERE agent_id = '"+id+"' AND version = 2")
	execSQL(t, s, "UPDATE signing_keys SET status = 'active' WHERE agent_id = '"+id+"' AND version = 1")
	r = s.Do("POST", "/v1/agents/"+id+"/sign", agent, hash)
	requireProblem(t, r, http.StatusConflict, "conflict")
	require.NotContains(t, string(r.Body), "sk/", "no key id leaks")
	execSQL(t, s, "UPDATE signing_keys SET status = 'rotated' WHERE agent_id = '"+id+"' AND version = 1")
	execSQL(t, s, "UPDATE signing_keys SET status = 'active' WHERE agent_id = '"+id+"' AND version = 2")

	r = s.Do("DELETE", path+"/ethereum", owner.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, wire.NotFound, sign(2), "a deleted key has no version left in the HSM")
}
