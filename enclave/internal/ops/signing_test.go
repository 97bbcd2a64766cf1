package ops

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

const (
	signOrg   = "org-sign"
	signAgent = "0190f1a2-0000-7000-8000-0000000000aa"
)

// agentWithKey makes the agent's ethereum key v1 and returns an agent
// token with the intents flag and the key's public point.
func agentWithKey(t testing.TB, f *fixture) (string, keyvault.Secp256k1Point) {
	t.Helper()
	owner := f.token(t, claimsFor(signOrg, "user", "owner-1", "owner"))
	var resp wire.SigningKeyResponse
	require.NoError(t, f.call(t, wire.OpSigningKey, &wire.SigningKeyRequest{Token: owner, OrgID: signOrg, AgentID: signAgent,
		Chain: "ethereum", Version: 1}, &resp))
	require.Equal(t, "secp256k1", resp.Curve)
	c := claimsFor(signOrg, "agent", signAgent, "")
	c["intents_api_enabled"] = true
	return f.token(t, c), keyvault.Secp256k1Point(resp.PublicKey)
}

func signContext(t testing.TB) []byte {
	t.Helper()
	b, err := json.Marshal(wire.SignContext{Chain: "base", ChainID: 8453})
	require.NoError(t, err)
	return b
}

// sealGuardrails seals the agent's guardrails as a human of the org would,
// at the next version, and returns the set and its MAC.
func (f *fixture) sealGuardrails(t testing.TB, guardrails map[string]any) ([]byte, []byte) {
	t.Helper()
	g := map[string]json.RawMessage{}
	for k, v := range guardrails {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		g[k] = b
	}
	f.guardrailVersion++
	set, err := json.Marshal(wire.GuardrailSet{AgentID: signAgent, Version: f.guardrailVersion, Guardrails: g, Rules: []wire.SignRule{}})
	require.NoError(t, err)
	human := f.token(t, claimsFor(signOrg, "user", "owner-1", "owner"))
	var resp wire.SealPolicySetResponse
	require.NoError(t, f.call(t, wire.OpSealGuardrails, &wire.SealGuardrailsRequest{OrgID: signOrg, AgentID: signAgent,
		Version: f.guardrailVersion, Set: set, ChangerToken: human}, &resp))
	return set, resp.MAC
}

func TestSigningKeyRefusals(t *testing.T) {
	f := newFixture(t)
	agentTok := func(sub string) string { return f.token(t, claimsFor(signOrg, "agent", sub, "")) }
	tests := map[string]struct {
		req  wire.SigningKeyRequest
		want error
	}{
		"fail unknown chain": {req: wire.SigningKeyRequest{Token: agentTok(signAgent), OrgID: signOrg, AgentID: signAgent, Chain: "dogecoin", Version: 1}, want: wire.ErrBadRequest},
		"fail other org":     {req: wire.SigningKeyRequest{Token: agentTok(signAgent), OrgID: "org-other", AgentID: signAgent, Chain: "ethereum", Version: 1}, want: wire.ErrForbidden},
		"fail another agent": {req: wire.SigningKeyRequest{Token: agentTok("someone-else"), OrgID: signOrg, AgentID: signAgent, Chain: "ethereum", Version: 1}, want: wire.ErrForbidden},
		"fail agent imports": {req: wire.SigningKeyRequest{Token: agentTok(signAgent), OrgID: signOrg, AgentID: signAgent, Chain: "ethereum", Version: 1, Private: make([]byte, 32)}, want: wire.ErrForbidden},
		"fail no token":      {req: wire.SigningKeyRequest{OrgID: signOrg, AgentID: signAgent, Chain: "ethereum", Version: 1}, want: wire.ErrForbidden},
		"fail member":        {req: wire.SigningKeyRequest{Token: f.token(t, claimsFor(signOrg, "user", "member-1", "member")), OrgID: signOrg, AgentID: signAgent, Chain: "ethereum", Version: 1}, want: wire.ErrForbidden},
		"fail version zero":  {req: wire.SigningKeyRequest{Token: agentTok(signAgent), OrgID: signOrg, AgentID: signAgent, Chain: "ethereum"}, want: wire.ErrBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var resp wire.SigningKeyResponse
			require.ErrorIs(t, f.call(t, wire.OpSigningKey, &tc.req, &resp), tc.want)
		})
	}
	t.Run("a made version is a conflict", func(t *testing.T) {
		req := wire.SigningKeyRequest{Token: agentTok(signAgent), OrgID: signOrg, AgentID: signAgent, Chain: "solana", Version: 1}
		var resp wire.SigningKeyResponse
		require.NoError(t, f.call(t, wire.OpSigningKey, &req, &resp))
		require.Equal(t, "ed25519", resp.Curve)
		require.Len(t, resp.PublicKey, 32)
		require.ErrorIs(t, f.call(t, wire.OpSigningKey, &req, &resp), wire.ErrConflict)
	})
}

func TestSignIntent(t *testing.T) {
	f := newFixture(t)
	tok, pub := agentWithKey(t, f)
	addr := crypto.PubkeyToAddress(*mustPub(t, pub))
	sign := func(kind string, payload []byte, guardrails map[string]any, token string) (wire.SignIntentResponse, error) {
		set, mac := f.sealGuardrails(t, guardrails)
		var resp wire.SignIntentResponse
		err := f.call(t, wire.OpSignIntent, &wire.SignIntentRequest{Token: token, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", KeyVersion: 1, Kind: kind, Payload: payload, Context: signContext(t), GuardrailSet: set,
			GuardrailMAC: mac}, &resp)
		return resp, err
	}

	t.Run("personal_sign: the enclave hashes the message itself", func(t *testing.T) {
		resp, err := sign(wire.IntentPersonalSign, []byte("hello"), map[string]any{"message_signing_enabled": true}, tok)
		require.NoError(t, err)
		require.Empty(t, resp.Denied)
		require.Equal(t, accounts.TextHash([]byte("hello")), resp.Digest)
		got, err := crypto.SigToPub(resp.Digest, resp.Signature)
		require.NoError(t, err)
		require.Equal(t, addr, crypto.PubkeyToAddress(*got))
	})

	t.Run("transaction: built, signed and recovering to the agent", func(t *testing.T) {
		tx := []byte(`{"type":2,"chain_id":8453,"nonce":3,"to":"0x00000000000000000000000000000000000000b2","value":"0x1",` +
			`"gas":21000,"max_fee_per_gas":"0x3b9aca00","max_priority_fee_per_gas":"0x1"}`)
		resp, err := sign(wire.IntentTransaction, tx, nil, tok)
		require.NoError(t, err)
		var signed types.Transaction
		require.NoError(t, signed.UnmarshalBinary(resp.SignedTx))
		from, err := types.Sender(types.LatestSignerForChainID(signed.ChainId()), &signed)
		require.NoError(t, err)
		require.Equal(t, addr, from)
		require.Equal(t, signed.Hash().Bytes(), resp.TxHash)
	})

	t.Run("guardrail refusals are answers, not errors", func(t *testing.T) {
		tx := []byte(`{"chain_id":8453,"nonce":4,"to":"0x00000000000000000000000000000000000000b2","value":"0xde0b6b3a7640000",` +
			`"gas":21000,"max_fee_per_gas":"0x3b9aca00","max_priority_fee_per_gas":"0x1"}`)
		for name, tc := range map[string]struct {
			kind       string
			payload    []byte
			guardrails map[string]any
			want       string
		}{
			"max value":       {wire.IntentTransaction, tx, map[string]any{"tx_max_value_eth": "0.5"}, "tx_max_value_eth"},
			"to allowlist":    {wire.IntentTransaction, tx, map[string]any{"tx_to_allowlist": []string{"0x00000000000000000000000000000000000000a1"}}, "tx_to_allowlist"},
			"allowed chains":  {wire.IntentTransaction, tx, map[string]any{"tx_allowed_chains": []string{"ethereum"}}, "tx_allowed_chains"},
			"message signing": {wire.IntentPersonalSign, []byte("x"), nil, "message_signing_enabled"},
			"raw digest":      {wire.IntentDigest, make([]byte, 32), nil, "raw_signing_enabled"},
		} {
			t.Run(name, func(t *testing.T) {
				resp, err := sign(tc.kind, tc.payload, tc.guardrails, tok)
				require.NoError(t, err)
				require.Equal(t, tc.want, resp.Denied)
				require.Empty(t, resp.Signature, "nothing is signed")
			})
		}
	})

	t.Run("refused callers and requests", func(t *testing.T) {
		noFlag := f.token(t, claimsFor(signOrg, "agent", signAgent, ""))
		human := f.token(t, claimsFor(signOrg, "user", "owner-1", "owner"))
		other := claimsFor(signOrg, "agent", "another-agent", "")
		other["intents_api_enabled"] = true
		for name, tc := range map[string]struct {
			token, kind string
			payload     []byte
			want        error
		}{
			"fail without intents flag": {noFlag, wire.IntentPersonalSign, []byte("x"), wire.ErrForbidden},
			"fail a human":              {human, wire.IntentPersonalSign, []byte("x"), wire.ErrForbidden},
			"fail another agent":        {f.token(t, other), wire.IntentPersonalSign, []byte("x"), wire.ErrForbidden},
			"fail short digest":         {tok, wire.IntentDigest, []byte{1, 2}, wire.ErrBadRequest},
			"fail unknown kind":         {tok, "sign_anything", []byte("x"), wire.ErrBadRequest},
			"fail wrong chain id":       {tok, wire.IntentTransaction, []byte(`{"chain_id":1,"nonce":1,"to":"0x00000000000000000000000000000000000000b2","gas":21000,"max_fee_per_gas":"0x1","max_priority_fee_per_gas":"0x1"}`), wire.ErrBadRequest},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := sign(tc.kind, tc.payload, map[string]any{"message_signing_enabled": true, "raw_signing_enabled": true}, tc.token)
				require.ErrorIs(t, err, tc.want)
			})
		}
	})
}

func mustPub(t *testing.T, p keyvault.Secp256k1Point) *ecdsa.PublicKey {
	t.Helper()
	pub, err := crypto.UnmarshalPubkey(p)
	require.NoError(t, err)
	return pub
}

func TestGuardrailSetsAreSealed(t *testing.T) {
	f := newFixture(t)
	tok, _ := agentWithKey(t, f)
	loose, looseMAC := f.sealGuardrails(t, map[string]any{"message_signing_enabled": true})
	strict, strictMAC := f.sealGuardrails(t, map[string]any{})
	sign := func(set, mac []byte) (wire.SignIntentResponse, error) {
		var resp wire.SignIntentResponse
		err := f.call(t, wire.OpSignIntent, &wire.SignIntentRequest{Token: tok, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", KeyVersion: 1, Kind: wire.IntentPersonalSign, Payload: []byte("x"), Context: signContext(t),
			GuardrailSet: set, GuardrailMAC: mac}, &resp)
		return resp, err
	}
	resp, err := sign(strict, strictMAC)
	require.NoError(t, err)
	require.Equal(t, "message_signing_enabled", resp.Denied, "the newest sealed set applies")

	forged := bytes.Replace(strict, []byte(`"guardrails":{}`), []byte(`"guardrails":{"message_signing_enabled":true}`), 1)
	for name, tc := range map[string]struct{ set, mac []byte }{
		"fail no set":               {nil, nil},
		"fail forged set":           {forged, strictMAC},
		"fail rolled back to older": {loose, looseMAC},
		"fail mac of another set":   {strict, looseMAC},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sign(tc.set, tc.mac)
			require.ErrorIs(t, err, wire.ErrForbidden)
		})
	}

	t.Run("only an owner or admin of the organization seals", func(t *testing.T) {
		set, err := json.Marshal(wire.GuardrailSet{AgentID: signAgent, Version: 99, Guardrails: map[string]json.RawMessage{}})
		require.NoError(t, err)
		var resp wire.SealPolicySetResponse
		for name, token := range map[string]string{
			"agent":     tok,
			"member":    f.token(t, claimsFor(signOrg, "user", "member-1", "member")),
			"other org": f.token(t, claimsFor("org-other", "user", "u", "owner")),
		} {
			err := f.call(t, wire.OpSealGuardrails, &wire.SealGuardrailsRequest{OrgID: signOrg, AgentID: signAgent, Version: 99,
				Set: set, ChangerToken: token}, &resp)
			require.ErrorIs(t, err, wire.ErrForbidden, name)
		}
		human := f.token(t, claimsFor(signOrg, "user", "owner-1", "admin"))
		err = f.call(t, wire.OpSealGuardrails, &wire.SealGuardrailsRequest{OrgID: signOrg, AgentID: signAgent, Version: 1,
			Set: bytes.Replace(set, []byte(`"version":99`), []byte(`"version":1`), 1), ChangerToken: human}, &resp)
		require.ErrorIs(t, err, wire.ErrConflict, "an older version is refused")
	})
}
