package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
)

// maxUint256 is larger than any float64 integer: it reaches the API exactly
// only if the tools forward the client's own JSON text.
const maxUint256 = "115792089237316195423570985008687907853269984665640564039457584007913129639935"

const (
	addrA = "0x00000000000000000000000000000000000000b2"
	addrB = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
)

// fakeSigningKeys is the fake API's answer to GET .../signing-keys.
func fakeSigningKeys() api.List[api.SigningKey] {
	return api.List[api.SigningKey]{Items: []api.SigningKey{{AgentID: fakeAgentID, Chain: "ethereum",
		Address: "0x00000000000000000000000000000000000000A1", Curve: "secp256k1", Version: 1, KeyVersion: 1, Status: "active"}}}
}

// decodeExact decodes JSON keeping numbers as their text.
func decodeExact(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "decoding %s", b)
	return v
}

func TestIntentTools(t *testing.T) {
	typedData := `{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Mail":[{"name":"amount","type":"uint256"}]},` +
		`"primaryType":"Mail","domain":{"name":"Ether Mail"},"message":{"amount":` + maxUint256 + `}}`
	fullTx := `{"chain_id":8453,"to":"` + addrA + `","value":"0x2386f26fc10000","data":"0x","gas":21000,` +
		`"gas_price":"0x1","max_fee_per_gas":"0x3b9aca00","max_priority_fee_per_gas":"0x1","nonce":0,` +
		`"simulate_first":true,"type":4,` +
		`"access_list":[{"address":"` + addrB + `","storage_keys":["0x` + strings.Repeat("0", 64) + `"]}],` +
		`"authorization_list":[{"chain_id":0,"address":"` + addrB + `","nonce":7}]}`
	cases := map[string]struct {
		tool      string
		args      string // JSON, sent as given
		method    string
		suffix    string
		query     url.Values
		body      string // expected request body; empty: none
		idemKey   string
		wantField string // a field of the tool's answer
	}{
		"ok get_signing_keys": {tool: "get_signing_keys", args: `{}`, method: "GET", suffix: "/signing-keys", wantField: "items"},
		"ok get_balance name and tokens": {tool: "get_balance", args: `{"chain":"base","tokens":["` + addrA + `","` + addrB + `"]}`,
			method: "GET", suffix: "/signing-keys/base/balance", query: url.Values{"tokens": {addrA + "," + addrB}}, wantField: "route"},
		"ok get_balance chain id": {tool: "get_balance", args: `{"chain":8453}`, method: "GET",
			suffix: "/signing-keys/8453/balance", wantField: "route"},
		"ok sign_message on a chain": {tool: "sign_message", args: `{"message":"hello","chain":"base"}`, method: "POST",
			suffix: "/sign", body: `{"intent_type":"personal_sign","message":"hello","chain":"base"}`, wantField: "route"},
		"ok sign_message default chain": {tool: "sign_message", args: `{"message":"0x68656c6c6f"}`, method: "POST",
			suffix: "/sign", body: `{"intent_type":"personal_sign","message":"0x68656c6c6f"}`, wantField: "route"},
		// A uint256 given as a JSON number must not be rounded on the way.
		"ok sign_typed_data exact numbers": {tool: "sign_typed_data", args: `{"typed_data":` + typedData + `,"chain":1}`,
			method: "POST", suffix: "/sign", body: `{"intent_type":"typed_data","typed_data":` + typedData + `,"chain":1}`,
			wantField: "route"},
		"ok simulate_transaction token transfer": {tool: "simulate_transaction",
			args:   `{"chain_id":"base","to":"` + addrA + `","value":"1.5","token_mint":"` + addrB + `","token_decimals":6}`,
			method: "POST", suffix: "/transactions/simulate",
			body:      `{"chain_id":"base","to":"` + addrA + `","value":"1.5","token_mint":"` + addrB + `","token_decimals":6}`,
			wantField: "route"},
		// nonce 0 and authorization chain_id 0 are values, not absences.
		"ok sign_transaction every field": {tool: "sign_transaction", args: fullTx, method: "POST",
			suffix: "/transactions/sign", body: fullTx, wantField: "route"},
		"ok send_transaction idempotency key": {tool: "send_transaction",
			args:   `{"chain_id":"base","to":"` + addrA + `","value":"0x2386f26fc10000","idempotency_key":"pay-42"}`,
			method: "POST", suffix: "/transactions", idemKey: "pay-42",
			body: `{"chain_id":"base","to":"` + addrA + `","value":"0x2386f26fc10000"}`, wantField: "route"},
		"ok send_transaction no key": {tool: "send_transaction",
			args:   `{"chain_id":1,"to":"` + addrA + `","value":"0x0","data":"0xa9059cbb"}`,
			method: "POST", suffix: "/transactions",
			body: `{"chain_id":1,"to":"` + addrA + `","value":"0x0","data":"0xa9059cbb"}`, wantField: "route"},
		"ok list_transactions page": {tool: "list_transactions", args: `{"limit":10,"cursor":"abc_-9"}`, method: "GET",
			suffix: "/transactions", query: url.Values{"limit": {"10"}, "cursor": {"abc_-9"}}, wantField: "route"},
		"ok list_transactions first page": {tool: "list_transactions", args: `{}`, method: "GET",
			suffix: "/transactions", wantField: "route"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t)
			cs := connect(t, f.config(true))
			out, errText := callRaw(t, cs, tc.tool, tc.args)
			require.Empty(t, errText)
			require.Contains(t, out, tc.wantField)

			got, n := f.lastIntent()
			require.NotZero(t, n, "no Intents route was called")
			require.Equal(t, tc.method, got.Method)
			require.Equal(t, tc.suffix, got.Suffix)
			q, err := url.ParseQuery(got.Query)
			require.NoError(t, err)
			if tc.query == nil {
				tc.query = url.Values{}
			}
			require.Equal(t, tc.query, q)
			require.Equal(t, tc.idemKey, got.IdempotencyKey)
			if tc.body == "" {
				require.Empty(t, got.Body)
				return
			}
			require.Equal(t, decodeExact(t, []byte(tc.body)), decodeExact(t, got.Body))
		})
	}
}

// callRaw is call with the arguments sent as the given JSON text.
func callRaw(t *testing.T, cs *mcp.ClientSession, name, args string) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	require.NoError(t, err)
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return nil, text.String()
	}
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(text.String()), &out))
	return out, ""
}

func TestIntentProblems(t *testing.T) {
	tx := `{"chain_id":"base","to":"` + addrA + `","value":"0x1"}`
	cases := map[string]struct {
		tool    string
		args    string
		route   string
		problem fakeProblem
	}{
		"fail send over a guardrail": {tool: "send_transaction", args: tx, route: "POST /transactions",
			problem: fakeProblem{403, "guardrail_tx_max_value_eth", "value exceeds the per-transaction limit"}},
		"fail sign reverted": {tool: "sign_transaction", args: `{"chain_id":"base","to":"` + addrA + `","value":"0x1","simulate_first":true}`,
			route: "POST /transactions/sign", problem: fakeProblem{422, "simulation_reverted", "execution reverted: not owner"}},
		"fail sign unsealed": {tool: "sign_message", args: `{"message":"hi"}`, route: "POST /sign",
			problem: fakeProblem{409, "guardrails_unsealed", "the guardrail set is not sealed"}},
		"fail typed data permit": {tool: "sign_typed_data",
			args:  `{"typed_data":{"types":{},"primaryType":"Permit","domain":{},"message":{}}}`,
			route: "POST /sign", problem: fakeProblem{403, "guardrail_eip712_default_policy", "Permit-like typed data is denied"}},
		"fail simulate intents disabled": {tool: "simulate_transaction", args: tx, route: "POST /transactions/simulate",
			problem: fakeProblem{403, "intents_disabled", "the token has no intents_api_enabled"}},
		"fail send rejected by node": {tool: "send_transaction", args: tx, route: "POST /transactions",
			problem: fakeProblem{502, "broadcast_rejected", "nonce too low"}},
		"fail balance chain unavailable": {tool: "get_balance", args: `{"chain":"base"}`, route: "GET /signing-keys/base/balance",
			problem: fakeProblem{503, "chain_unavailable", "no RPC node answered"}},
		"fail no signing key": {tool: "get_signing_keys", args: `{}`, route: "GET /signing-keys",
			problem: fakeProblem{404, "not_found", "agent not found"}},
		"fail bad cursor": {tool: "list_transactions", args: `{"cursor":"x"}`, route: "GET /transactions",
			problem: fakeProblem{400, "invalid_request", "invalid cursor"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t)
			f.refuse[tc.route] = tc.problem
			cs := connect(t, f.config(true))
			out, errText := callRaw(t, cs, tc.tool, tc.args)
			require.Nil(t, out)
			require.Contains(t, errText, "["+tc.problem.Type+"]", "the tool error names the problem type")
			require.Contains(t, errText, tc.problem.Detail)
			require.False(t, strings.Contains(errText, fakeAgentKey), "a tool error shows the agent key")
			require.False(t, strings.Contains(errText, "jwt-"), "a tool error shows a token")
		})
	}
}

func TestIntentArgumentsRefused(t *testing.T) {
	tooMany := make([]string, 21)
	for i := range tooMany {
		tooMany[i] = `"` + addrA + `"`
	}
	cases := map[string]struct {
		tool, args string
		want       string
	}{
		"fail send without chain":        {tool: "send_transaction", args: `{"to":"` + addrA + `","value":"0x1"}`, want: "chain_id"},
		"fail sign without value":        {tool: "sign_transaction", args: `{"chain_id":1,"to":"` + addrA + `"}`, want: "value"},
		"fail transaction unknown field": {tool: "sign_transaction", args: `{"chain_id":1,"value":"0x1","from":"` + addrA + `"}`, want: "from"},
		"fail transaction type 5":        {tool: "simulate_transaction", args: `{"chain_id":1,"value":"0x1","type":5}`, want: "type"},
		"fail idempotency key too long": {tool: "send_transaction",
			args: `{"chain_id":1,"value":"0x1","idempotency_key":"` + strings.Repeat("k", 256) + `"}`, want: "idempotency_key"},
		// A control character would be refused by net/http; the schema says so first.
		"fail idempotency key newline": {tool: "send_transaction", args: `{"chain_id":1,"value":"0x1","idempotency_key":"a\nb"}`,
			want: "idempotency_key"},
		// The chain becomes a path segment: traversal must not reach the API.
		"fail balance chain traversal":   {tool: "get_balance", args: `{"chain":"../../vaults"}`, want: "chain"},
		"fail balance chain slash":       {tool: "get_balance", args: `{"chain":"base/x"}`, want: "chain"},
		"fail balance too many tokens":   {tool: "get_balance", args: `{"chain":"base","tokens":[` + strings.Join(tooMany, ",") + `]}`, want: "tokens"},
		"fail balance token not address": {tool: "get_balance", args: `{"chain":"base","tokens":["0x12,0x34"]}`, want: "tokens"},
		"fail typed data incomplete":     {tool: "sign_typed_data", args: `{"typed_data":{"types":{},"domain":{},"message":{}}}`, want: "primaryType"},
		"fail message missing":           {tool: "sign_message", args: `{"chain":"base"}`, want: "message"},
		"fail limit zero":                {tool: "list_transactions", args: `{"limit":0}`, want: "limit"},
		// The schema offers a value or no field; a null is refused, not sent.
		"fail null nonce":    {tool: "send_transaction", args: `{"chain_id":1,"value":"0x0","nonce":null}`, want: "nonce"},
		"fail limit too big": {tool: "list_transactions", args: `{"limit":501}`, want: "limit"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t)
			cs := connect(t, f.config(true))
			out, errText := callRaw(t, cs, tc.tool, tc.args)
			require.Nil(t, out)
			require.Contains(t, errText, tc.want)
			_, n := f.lastIntent()
			require.Zero(t, n, "a refused argument reached the API")
		})
	}
}

func TestAgentIDAskedOnce(t *testing.T) {
	f := newFakeAPI(t)
	cs := connect(t, f.config(true))
	for _, tool := range []string{"get_signing_keys", "list_transactions", "get_signing_keys"} {
		_, errText := callRaw(t, cs, tool, `{}`)
		require.Empty(t, errText)
	}
	require.Equal(t, 1, f.meCalls)
}

func TestAgentIDFailureNotRemembered(t *testing.T) {
	f := newFakeAPI(t)
	f.meDenied = true
	cs := connect(t, f.config(true))
	_, errText := callRaw(t, cs, "get_signing_keys", `{}`)
	require.Contains(t, errText, "reading the agent's own id")
	require.Contains(t, errText, "[forbidden]")

	f.mu.Lock()
	f.meDenied = false
	f.mu.Unlock()
	_, errText = callRaw(t, cs, "get_signing_keys", `{}`)
	require.Empty(t, errText)
}

func TestIntentToolAnnotations(t *testing.T) {
	f := newFakeAPI(t)
	cs := connect(t, f.config(true))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	readOnly := map[string]bool{"get_signing_keys": true, "get_balance": true, "simulate_transaction": true,
		"list_transactions": true, "sign_message": false, "sign_typed_data": false, "sign_transaction": false,
		"send_transaction": false}
	for _, name := range IntentToolNames {
		tl := byName[name]
		require.NotNil(t, tl, name)
		require.Equal(t, readOnly[name], tl.Annotations != nil && tl.Annotations.ReadOnlyHint, name)
	}
	send := byName["send_transaction"].Annotations
	require.NotNil(t, send.DestructiveHint)
	require.True(t, *send.DestructiveHint, "send_transaction moves funds")

	schema := func(name string) map[string]any { return byName[name].InputSchema.(map[string]any) }
	for _, name := range []string{"simulate_transaction", "sign_transaction", "send_transaction"} {
		require.ElementsMatch(t, []any{"chain_id", "value"}, schema(name)["required"], name)
		props := schema(name)["properties"].(map[string]any)
		for _, field := range txFields {
			require.Contains(t, props, field, name)
		}
		require.ElementsMatch(t, []any{"integer", "string"}, props["chain_id"].(map[string]any)["type"], name)
	}
	require.Contains(t, schema("send_transaction")["properties"], "idempotency_key")
	require.NotContains(t, schema("sign_transaction")["properties"], "idempotency_key")
	require.ElementsMatch(t, []any{"chain"}, schema("get_balance")["required"])
	require.ElementsMatch(t, []any{"message"}, schema("sign_message")["required"])
	require.ElementsMatch(t, []any{"typed_data"}, schema("sign_typed_data")["required"])
}

func TestAPIErrorText(t *testing.T) {
	cases := map[string]struct {
		status int
		body   string
		want   string
	}{
		"typed problem": {status: 403, body: `{"type":"guardrail_tx_max_value_eth","title":"Forbidden","status":403,"detail":"too much"}`,
			want: "OCV API: Forbidden [guardrail_tx_max_value_eth]: too much (HTTP 403)"},
		"about blank": {status: 404, body: `{"type":"about:blank","title":"Not found","detail":"nope"}`, want: "OCV API: Not found: nope (HTTP 404)"},
		"no title":    {status: 422, body: `{"type":"simulation_reverted","detail":"reverted"}`, want: "OCV API: Unprocessable Entity [simulation_reverted]: reverted (HTTP 422)"},
		"not json":    {status: 502, body: `<html>bad gateway</html>`, want: "OCV API: Bad Gateway (HTTP 502)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, problemFrom(tc.status, []byte(tc.body)).Error())
		})
	}
}
