package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chainRE is chainPattern compiled, checked again before a chain becomes a
// path segment (the schema already refuses anything else).
var chainRE = regexp.MustCompile(chainPattern)

// selfID returns the agent's own id from GET /v1/agents/me, asked once and
// then remembered. A failure is not remembered: the next call asks again.
func (t *tools) selfID(ctx context.Context) (string, error) {
	t.selfMu.Lock()
	defer t.selfMu.Unlock()
	if t.self != "" {
		return t.self, nil
	}
	var me struct {
		ID string `json:"id"`
	}
	if _, err := t.api.callJSON(ctx, http.MethodGet, "/v1/agents/me", nil, nil, &me); err != nil {
		return "", fmt.Errorf("reading the agent's own id: %w", err)
	}
	// The id becomes a path segment: refuse anything that could change the route.
	if me.ID == "" || me.ID == "." || me.ID == ".." || strings.ContainsAny(me.ID, "/?#%") {
		return "", fmt.Errorf("reading the agent's own id: %w", ErrBadAnswer)
	}
	t.self = me.ID
	return t.self, nil
}

// agentPath is /v1/agents/{own id} followed by suffix.
func (t *tools) agentPath(ctx context.Context, suffix string) (string, error) {
	id, err := t.selfID(ctx)
	if err != nil {
		return "", err
	}
	return "/v1/agents/" + url.PathEscape(id) + suffix, nil
}

// intentCall calls an Intents route of the agent and returns its answer,
// which must be a JSON object, as is.
func (t *tools) intentCall(ctx context.Context, method, suffix string, query url.Values, hdr http.Header,
	body any) (json.RawMessage, error) {
	p, err := t.agentPath(ctx, suffix)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	if _, err := t.api.callJSONWith(ctx, method, p, query, hdr, body, &out); err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
		return nil, fmt.Errorf("decoding the answer of %s %s: %w", method, suffix, ErrBadAnswer)
	}
	return out, nil
}

// rawArgs returns the call's arguments as the client sent them, one raw
// JSON value per field. The SDK has validated them against the schema, but
// its copy went through float64; the raw text keeps large integers (wei
// amounts, uint256 fields of typed data) exact. in is the fallback when the
// request carries no raw arguments (a direct call). The Intents schemas
// set no defaults, so nothing the SDK would add is lost.
func rawArgs(req *mcp.CallToolRequest, in any) (map[string]json.RawMessage, error) {
	var data []byte
	if req != nil && req.Params != nil && len(req.Params.Arguments) > 0 {
		data = req.Params.Arguments
	} else {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadArguments, err)
		}
		data = b
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, ErrBadArguments
	}
	return m, nil
}

// pick copies the named fields of raw into a request body, leaving out
// absent and null ones.
func pick(raw map[string]json.RawMessage, fields []string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(fields))
	for _, f := range fields {
		if v, ok := raw[f]; ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			out[f] = v
		}
	}
	return out
}

// chainSegment turns a raw chain selector (a JSON string or integer) into
// a path segment.
func chainSegment(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", ErrBadChain
	}
	var s string
	switch c := v.(type) {
	case string:
		s = c
	case json.Number:
		s = c.String()
	default:
		return "", ErrBadChain
	}
	if !chainRE.MatchString(s) {
		return "", fmt.Errorf("%w: %q", ErrBadChain, s)
	}
	return s, nil
}

func (t *tools) getSigningKeys(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	out, err := t.intentCall(ctx, http.MethodGet, "/signing-keys", nil, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("listing signing keys: %w", err)
	}
	return nil, out, nil
}

func (t *tools) getBalance(ctx context.Context, req *mcp.CallToolRequest, in balanceArgs) (*mcp.CallToolResult, any, error) {
	raw, err := rawArgs(req, in)
	if err != nil {
		return nil, nil, err
	}
	chain, err := chainSegment(raw["chain"])
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	if len(in.Tokens) > 0 {
		q.Set("tokens", strings.Join(in.Tokens, ","))
	}
	out, err := t.intentCall(ctx, http.MethodGet, "/signing-keys/"+url.PathEscape(chain)+"/balance", q, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the balance on %s: %w", chain, err)
	}
	return nil, out, nil
}

func (t *tools) signMessage(ctx context.Context, req *mcp.CallToolRequest, in signMessageArgs) (*mcp.CallToolResult, any, error) {
	return t.signIntent(ctx, req, in, "personal_sign", "message", "signing message")
}

func (t *tools) signTypedData(ctx context.Context, req *mcp.CallToolRequest, in signTypedDataArgs) (*mcp.CallToolResult, any, error) {
	return t.signIntent(ctx, req, in, "typed_data", "typed_data", "signing typed data")
}

// signIntent posts a sign intent of intentType carrying the field payload
// and the optional chain, as the client gave them.
func (t *tools) signIntent(ctx context.Context, req *mcp.CallToolRequest, in any, intentType, payload, doing string) (*mcp.CallToolResult, any, error) {
	raw, err := rawArgs(req, in)
	if err != nil {
		return nil, nil, err
	}
	body := pick(raw, []string{payload, "chain"})
	body["intent_type"] = json.RawMessage(`"` + intentType + `"`)
	out, err := t.intentCall(ctx, http.MethodPost, "/sign", nil, nil, body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", doing, err)
	}
	return nil, out, nil
}

func (t *tools) simulateTransaction(ctx context.Context, req *mcp.CallToolRequest, in txArgs) (*mcp.CallToolResult, any, error) {
	return t.transaction(ctx, req, in, "/transactions/simulate", "", "simulating transaction")
}

func (t *tools) signTransaction(ctx context.Context, req *mcp.CallToolRequest, in txArgs) (*mcp.CallToolResult, any, error) {
	return t.transaction(ctx, req, in, "/transactions/sign", "", "signing transaction")
}

func (t *tools) sendTransaction(ctx context.Context, req *mcp.CallToolRequest, in sendTxArgs) (*mcp.CallToolResult, any, error) {
	return t.transaction(ctx, req, in, "/transactions", in.IdempotencyKey, "sending transaction")
}

// transaction posts the TransactionRequest fields of the call to suffix,
// with an Idempotency-Key header when idemKey is set.
func (t *tools) transaction(ctx context.Context, req *mcp.CallToolRequest, in any, suffix, idemKey, doing string) (*mcp.CallToolResult, any, error) {
	raw, err := rawArgs(req, in)
	if err != nil {
		return nil, nil, err
	}
	var hdr http.Header
	if idemKey != "" {
		hdr = http.Header{"Idempotency-Key": {idemKey}}
	}
	out, err := t.intentCall(ctx, http.MethodPost, suffix, nil, hdr, pick(raw, txFields))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", doing, err)
	}
	return nil, out, nil
}

func (t *tools) listTransactions(ctx context.Context, _ *mcp.CallToolRequest, in listTxArgs) (*mcp.CallToolResult, any, error) {
	q := url.Values{}
	if in.Limit > 0 {
		q.Set("limit", fmt.Sprint(in.Limit))
	}
	if in.Cursor != "" {
		q.Set("cursor", in.Cursor)
	}
	out, err := t.intentCall(ctx, http.MethodGet, "/transactions", q, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("listing transactions: %w", err)
	}
	return nil, out, nil
}
