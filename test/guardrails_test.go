package test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

const (
	allowedTo = "0x00000000000000000000000000000000000000a1"
	otherTo   = "0x00000000000000000000000000000000000000B2"
	usdcBase  = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" // in the seeded token registry
	tokenX    = "0x0000000000000000000000000000000000000c03" // not in it
)

// guardedAgent registers an agent with the intents API, the given
// guardrail fields and an ethereum key, and returns its id and JWT.
func guardedAgent(t *testing.T, s *stack.Stack, owner stack.Account, fields map[string]any) (string, string) {
	t.Helper()
	id, _, jwt := guardedAgentWithKey(t, s, owner, fields)
	return id, jwt
}

func guardedAgentWithKey(t *testing.T, s *stack.Stack, owner stack.Account, fields map[string]any) (id, key, jwt string) {
	t.Helper()
	body := map[string]any{"name": "guarded", "intents_api_enabled": true}
	for k, v := range fields {
		body[k] = v
	}
	id, key = registerAgent(t, s, owner.Token, body)
	r := s.Do("POST", "/v1/agents/"+id+"/signing-keys", owner.Token, map[string]any{"chain": "ethereum"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	return id, key, agentJWT(t, s, id, key)
}

// delegateTo is a type 4 transaction's fields whose EIP-7702 authorization
// delegates the agent's account to code.
func delegateTo(code string) map[string]any {
	return map[string]any{"type": 4, "authorization_list": []map[string]any{{"chain_id": 8453, "address": code, "nonce": 7}}}
}

// signOnly is a complete transaction on Base that needs no RPC node.
func signOnly(nonce int, extra map[string]any) map[string]any {
	tx := map[string]any{"chain_id": "base", "to": otherTo, "value": "0x0", "nonce": nonce, "gas": 100000,
		"max_fee_per_gas": "0x3b9aca00", "max_priority_fee_per_gas": "0x1"}
	for k, v := range extra {
		tx[k] = v
	}
	return tx
}

func TestGuardrailsDenyWithTheirName(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("guardrails@example.com")
	halfEth, oneEth := "0x6f05b59d3b20000", "0xde0b6b3a7640000"

	tests := map[string]struct {
		fields  map[string]any
		allowed []map[string]any // signed in order first
		denied  map[string]any
		want    string
	}{
		"allowed chains": {fields: map[string]any{"tx_allowed_chains": []string{"ethereum"}},
			allowed: []map[string]any{{"chain_id": "ethereum"}}, denied: map[string]any{}, want: "tx_allowed_chains"},
		"to allowlist, case-insensitive": {fields: map[string]any{"tx_to_allowlist": []string{"0x00000000000000000000000000000000000000A1"}},
			allowed: []map[string]any{{"to": allowedTo}}, denied: map[string]any{}, want: "tx_to_allowlist"},
		"max value": {fields: map[string]any{"tx_max_value_eth": "0.5", "tx_overhead_budget": map[string]any{"base": "1"}},
			allowed: []map[string]any{{"value": halfEth}}, denied: map[string]any{"value": oneEth}, want: "tx_max_value_eth"},
		"per-chain max value is stricter": {fields: map[string]any{"tx_max_value_eth": 2, "per_chain_guardrails": map[string]any{"base": map[string]any{"max_value": "0.1"}}},
			allowed: []map[string]any{{"chain_id": "ethereum", "value": halfEth}}, denied: map[string]any{"value": halfEth}, want: "tx_max_value_eth"},
		"daily limit": {fields: map[string]any{"tx_daily_limit_eth": "1"},
			allowed: []map[string]any{{"value": halfEth}, {"value": halfEth}}, denied: map[string]any{"value": "0x1"}, want: "tx_daily_limit_eth"},
		"max per day": {fields: map[string]any{"tx_max_per_day": 2},
			allowed: []map[string]any{{}, {}}, denied: map[string]any{}, want: "tx_max_per_day"},
		"token allowlist": {fields: map[string]any{"tx_token_allowlist": []string{usdcBase}},
			allowed: []map[string]any{{"token_mint": usdcBase, "value": "1.5"}}, denied: map[string]any{"token_mint": tokenX, "token_decimals": 6, "value": "1"},
			want: "tx_token_allowlist"},
		"known tokens only": {fields: map[string]any{"tx_known_tokens_only": true},
			allowed: []map[string]any{{"token_mint": usdcBase, "value": "2"}}, denied: map[string]any{"token_mint": tokenX, "token_decimals": 6, "value": "1"},
			want: "tx_known_tokens_only"},
		// EIP-7702: a value-0 transaction to an allowed address whose
		// authorization hands the agent's account to arbitrary code.
		"delegation without an allowlist": {fields: map[string]any{"tx_to_allowlist": []string{otherTo}},
			allowed: []map[string]any{{}}, denied: delegateTo(allowedTo), want: "tx_delegation_allowlist"},
		"delegation allowlist": {fields: map[string]any{"tx_delegation_allowlist": []string{allowedTo}},
			allowed: []map[string]any{delegateTo(allowedTo)}, denied: delegateTo(otherTo), want: "tx_delegation_allowlist"},
		"undecodable calldata": {fields: map[string]any{},
			allowed: []map[string]any{{"data": "0xdeadbeef"}}, denied: map[string]any{"data": "0xa9059cbb0000"}, want: "tx_decode"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			id, agent := guardedAgent(t, s, owner, tc.fields)
			path := "/v1/agents/" + id + "/transactions/sign"
			for i, extra := range tc.allowed {
				r := s.Do("POST", path, agent, signOnly(i, extra))
				require.Equal(t, http.StatusOK, r.Status, "allowed %d: %s", i, r.Body)
			}
			requireProblem(t, s.Do("POST", path, agent, signOnly(99, tc.denied)), http.StatusForbidden, "guardrail_"+tc.want)
		})
	}

	t.Run("tx_conditions of a deny policy", func(t *testing.T) {
		id, key, _ := guardedAgentWithKey(t, s, owner, nil)
		vault := s.CreateVault(owner.Token, "tx-rules")
		r := s.Do("POST", "/v1/vaults/"+vault+"/policies", owner.Token, map[string]any{"secret_path_pattern": "**",
			"principal_type": "agent", "principal_id": id, "permissions": []string{"read"}, "effect": "deny", "priority": 10,
			"tx_conditions": map[string]any{"function_name_in": []string{"approve"}}})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		agent := agentJWT(t, s, id, key) // a policy change revokes the agent's tokens
		path := "/v1/agents/" + id + "/transactions/sign"
		approve := "0x095ea7b3" + fmt.Sprintf("%064x", 0xb2) + fmt.Sprintf("%064x", 1000)
		requireProblem(t, s.Do("POST", path, agent, signOnly(1, map[string]any{"to": usdcBase, "data": approve})),
			http.StatusForbidden, "guardrail_tx_conditions")
		r = s.Do("POST", path, agent, signOnly(2, map[string]any{"token_mint": usdcBase, "value": "1"}))
		require.Equal(t, http.StatusOK, r.Status, "a transfer is not an approve: %s", r.Body)
	})

	t.Run("message signing needs its flag", func(t *testing.T) {
		id, agent := guardedAgent(t, s, owner, nil)
		requireProblem(t, s.Do("POST", "/v1/agents/"+id+"/sign", agent, map[string]any{"intent_type": "personal_sign", "message": "hi"}),
			http.StatusForbidden, "guardrail_message_signing_enabled")
	})

	t.Run("Permit typed data is denied by default, allowed by a domain allowlist entry", func(t *testing.T) {
		id, key, agent := guardedAgentWithKey(t, s, owner, nil)
		permit := permitTypedData()
		sign := map[string]any{"intent_type": "typed_data", "chain_id": 8453, "typed_data": permit}
		requireProblem(t, s.Do("POST", "/v1/agents/"+id+"/sign", agent, sign), http.StatusForbidden, "guardrail_eip712_default_policy")
		r := s.Do("PATCH", "/v1/agents/"+id, owner.Token, map[string]any{"eip712_domain_allowlist": []string{usdcBase}})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		agent = agentJWT(t, s, id, key) // a guardrail change revokes the agent's tokens
		r = s.Do("POST", "/v1/agents/"+id+"/sign", agent, sign)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Len(t, r.JSON(t)["signature"], 132)
	})

	t.Run("raw digests need raw_signing_enabled", func(t *testing.T) {
		id, agent := guardedAgent(t, s, owner, map[string]any{"raw_signing_enabled": true})
		r := s.Do("POST", "/v1/agents/"+id+"/sign", agent, map[string]any{"intent_type": "digest",
			"hash": "0x" + fmt.Sprintf("%064x", 42)})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		events := s.Do("GET", "/v1/audit/events?action=signing_key.raw_digest_sign", owner.Token, nil)
		require.Contains(t, string(events.Body), "signing_key.raw_digest_sign")
	})
}

// TestDailyLimitUnderConcurrency: 20 parallel transactions against a limit
// of 5 give exactly 5 signatures.
func TestDailyLimitUnderConcurrency(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("daily-limit@example.com")
	id, agent := guardedAgent(t, s, owner, map[string]any{"tx_max_per_day": 5})
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r := s.Do("POST", "/v1/agents/"+id+"/transactions/sign", agent, signOnly(i, nil))
			mu.Lock()
			codes[r.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Equal(t, map[int]int{http.StatusOK: 5, http.StatusForbidden: 15}, codes)
	a := s.Do("GET", "/v1/agents/"+id, owner.Token, nil).JSON(t)
	require.EqualValues(t, 5, a["tx_count_today"])
}

// permitTypedData is an EIP-2612 Permit of USDC on Base.
func permitTypedData() map[string]any {
	return map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
				{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}},
			"Permit": []map[string]string{{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
				{"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}},
		},
		"primaryType": "Permit",
		"domain":      map[string]any{"name": "USD Coin", "version": "2", "chainId": 8453, "verifyingContract": usdcBase},
		"message": map[string]any{"owner": otherTo, "spender": allowedTo, "value": "1000000", "nonce": "0",
			"deadline": "1999999999"},
	}
}

// TestIntentsAgentCannotReadKeys: an agent with the intents API signs
// through the enclave and is refused private_key and ssh_key secrets.
func TestIntentsAgentCannotReadKeys(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("no-key-reads@example.com")
	vault := s.CreateVault(owner.Token, "keys")
	for path, typ := range map[string]string{"wallet/key": "private_key", "ssh/deploy": "ssh_key", "api/token": "api_key"} {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/"+path, owner.Token, map[string]any{"type": typ, "value": "v-" + typ})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	id, key := registerAgent(t, s, owner.Token, map[string]any{"name": "signer", "intents_api_enabled": true})
	r := s.Do("POST", "/v1/vaults/"+vault+"/policies", owner.Token, map[string]any{"secret_path_pattern": "**",
		"principal_type": "agent", "principal_id": id, "permissions": []string{"read"}, "effect": "allow"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	agent := agentJWT(t, s, id, key)
	requireProblem(t, s.Do("GET", "/v1/vaults/"+vault+"/secrets/wallet/key", agent, nil), http.StatusForbidden, "forbidden")
	requireProblem(t, s.Do("GET", "/v1/vaults/"+vault+"/secrets/ssh/deploy", agent, nil), http.StatusForbidden, "forbidden")
	r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/api/token", agent, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
}

// TestSealedGuardrailsResistDatabaseEdits: the enclave weighs the guardrail
// set it sealed for a human, not what the database says now.
func TestSealedGuardrailsResistDatabaseEdits(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("sealed-guardrails@example.com")
	id, key, agent := guardedAgentWithKey(t, s, owner, map[string]any{"tx_max_value_eth": "0.1"})
	path := "/v1/agents/" + id + "/transactions/sign"
	oneEth := map[string]any{"value": "0xde0b6b3a7640000"}
	requireProblem(t, s.Do("POST", path, agent, signOnly(1, oneEth)), http.StatusForbidden, "guardrail_tx_max_value_eth")

	// A database writer lifts the limit: the sealed set still holds it.
	execSQL(t, s, `UPDATE agents SET guardrails = '{}'::jsonb WHERE id = '`+id+`'`)
	requireProblem(t, s.Do("POST", path, agent, signOnly(2, oneEth)), http.StatusForbidden, "guardrail_tx_max_value_eth")

	// Editing the sealed set itself breaks its MAC: the enclave refuses.
	execSQL(t, s, `UPDATE agents SET guardrail_set = convert_to(replace(convert_from(guardrail_set, 'UTF8'), '"0.1"', '"5"'), 'UTF8')
		WHERE id = '`+id+`'`)
	requireProblem(t, s.Do("POST", path, agent, signOnly(3, oneEth)), http.StatusForbidden, "forbidden")

	// A human's change seals the next version, which counts from then on.
	r := s.Do("PATCH", "/v1/agents/"+id, owner.Token, map[string]any{"tx_max_value_eth": "2"})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	agent = agentJWT(t, s, id, key)
	r = s.Do("POST", path, agent, signOnly(4, oneEth))
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))

	// A cleared seal (a change whose sealing failed) fails closed.
	execSQL(t, s, `UPDATE agents SET guardrail_mac = NULL WHERE id = '`+id+`'`)
	requireProblem(t, s.Do("POST", path, agent, signOnly(5, oneEth)), http.StatusConflict, "guardrails_unsealed")
	r = s.Do("PATCH", "/v1/agents/"+id, owner.Token, map[string]any{})
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	agent = agentJWT(t, s, id, key)
	r = s.Do("POST", path, agent, signOnly(6, oneEth))
	require.Equal(t, http.StatusOK, r.Status, "an empty PATCH seals again: %s", r.Body)
}
