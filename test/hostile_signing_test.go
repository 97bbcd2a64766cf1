package test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// TestHostileProxyTypedDataJudgedInEnclave: a compromised proxy sends an
// EIP-3009 authorization to an unlisted address straight to the enclave,
// with a sign context of its choosing. The enclave decodes the message
// itself and refuses it; the listed recipient is signed.
func TestHostileProxyTypedDataJudgedInEnclave(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("hostile-typed@example.com")
	id, key, _ := guardedAgentWithKey(t, s, owner, map[string]any{"eip712_default_policy": "allow",
		"tx_to_allowlist": []string{allowedTo}})
	gs := storedGuardrailSet(t, s, id)
	agent := agentJWT(t, s, id, key)
	signCtx, err := json.Marshal(wire.SignContext{Chain: "base", ChainID: 8453, TokenKnown: true})
	require.NoError(t, err)
	sess := enclaveSession(t, s)
	sign := func(to string) wire.SignIntentResponse {
		td, err := json.Marshal(transferWithAuthorization(zeroAddr, to, "1000000000000"))
		require.NoError(t, err)
		body, err := (&wire.SignIntentRequest{Token: agent, OrgID: owner.OrgID, AgentID: id, Chain: "ethereum", KeyVersion: 1,
			Kind: wire.IntentTypedData, Payload: td, Context: signCtx, GuardrailSet: gs.set, GuardrailMAC: gs.mac}).Append(nil)
		require.NoError(t, err)
		code, resp, err := sess.Call(wire.OpSignIntent, body)
		require.NoError(t, err)
		require.Equal(t, wire.OK, code)
		var out wire.SignIntentResponse
		require.NoError(t, out.Decode(resp))
		return out
	}
	denied := sign(attackerAddr)
	require.Equal(t, "tx_to_allowlist", denied.Denied)
	require.Empty(t, denied.Signature)
	ok := sign(allowedTo)
	require.Empty(t, ok.Denied)
	require.Len(t, ok.Signature, 65)
}
