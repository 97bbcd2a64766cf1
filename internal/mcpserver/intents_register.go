package mcpserver

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// IntentToolNames are the Intents API tools, in registration order.
var IntentToolNames = []string{"get_signing_keys", "get_balance", "sign_message", "sign_typed_data",
	"simulate_transaction", "sign_transaction", "send_transaction", "list_transactions"}

// chainPattern is what a chain name, alias or decimal id given as a string
// may contain: it becomes a URL path segment of get_balance.
const chainPattern = `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`

// addressPattern is a 20-byte 0x hex address.
const addressPattern = `^0[xX][0-9a-fA-F]{40}$`

// idempotencyKeyPattern is the API's Idempotency-Key syntax (printable ASCII).
const idempotencyKeyPattern = `^[ -~]+$`

// cursorPattern is the API's opaque cursor syntax.
const cursorPattern = `^[A-Za-z0-9_-]*$`

// registerIntents adds the eight Intents API tools to srv. They act on the
// agent's own id (GET /v1/agents/me, asked once).
func (t *tools) registerIntents(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "get_signing_keys", Annotations: readOnly(),
		Description: "List this agent's signing keys, one per chain family: chain, address, curve, version and " +
			"public key (the private keys stay in the HSM). The ethereum key signs on every EVM chain."}, t.getSigningKeys)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_balance", Annotations: readOnly(),
		Description: "Read the native balance (wei and formatted) of this agent's EVM address on a chain, and the " +
			"balances of the ERC-20 tokens listed.",
		InputSchema: schemaFor[balanceArgs](func(p map[string]*jsonschema.Schema) {
			chainSelector(p["chain"])
			notNull(p["tokens"])
			p["tokens"].MaxItems = ptr(20)
			p["tokens"].Items.Pattern = addressPattern
		})}, t.getBalance)
	mcp.AddTool(srv, &mcp.Tool{Name: "sign_message",
		Description: "Sign a message with this agent's EVM key (EIP-191 personal_sign). Needs the agent's " +
			"message_signing_enabled guardrail. Returns the signature (r, s, v), the hash and the address.",
		InputSchema: schemaFor[signMessageArgs](func(p map[string]*jsonschema.Schema) {
			chainSelector(p["chain"])
		})}, t.signMessage)
	mcp.AddTool(srv, &mcp.Tool{Name: "sign_typed_data",
		Description: "Sign EIP-712 typed data with this agent's EVM key. Types that can move assets (Permit, " +
			"Permit2, Seaport orders, allowances, operators) are refused unless the agent's guardrails allow " +
			"their domain. Returns the signature (r, s, v), the EIP-712 hash and the address.",
		InputSchema: schemaFor[signTypedDataArgs](func(p map[string]*jsonschema.Schema) {
			chainSelector(p["chain"])
			td := p["typed_data"]
			td.Properties = map[string]*jsonschema.Schema{
				"types":       {Type: "object", Description: "struct definitions, EIP712Domain included"},
				"primaryType": {Type: "string"},
				"domain":      {Type: "object"},
				"message":     {Type: "object"},
			}
			td.Required = []string{"types", "primaryType", "domain", "message"}
		})}, t.signTypedData)
	mcp.AddTool(srv, &mcp.Tool{Name: "simulate_transaction", Annotations: readOnly(),
		Description: "Simulate an EVM transaction from this agent's address against the chain's latest state: " +
			"success or the revert reason, gas used and estimated, return data and balance changes. Nothing is " +
			"signed or counted and guardrails are not evaluated.",
		InputSchema: txSchema[txArgs](nil)}, t.simulateTransaction)
	mcp.AddTool(srv, &mcp.Tool{Name: "sign_transaction",
		Description: "Sign an EVM transaction with this agent's key WITHOUT sending it: returns the transaction " +
			"record with signed_tx (raw hex). Guardrails and daily limits apply and the nonce is reserved; " +
			"nonce, gas and fees are filled in by the server when absent.",
		InputSchema: txSchema[txArgs](nil)}, t.signTransaction)
	mcp.AddTool(srv, &mcp.Tool{Name: "send_transaction",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		Description: "Sign AND broadcast an EVM transaction with this agent's key: this moves funds and cannot be " +
			"undone. Guardrails and daily limits apply; nonce, gas and fees are filled in by the server when " +
			"absent. Use simulate_transaction (or simulate_first) before, and an idempotency_key so that a " +
			"retry never sends twice. Returns the transaction record (status broadcast, tx_hash, signed_tx).",
		InputSchema: txSchema[sendTxArgs](func(p map[string]*jsonschema.Schema) {
			k := p["idempotency_key"]
			k.MinLength, k.MaxLength, k.Pattern = ptr(1), ptr(255), idempotencyKeyPattern
		})}, t.sendTransaction)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_transactions", Annotations: readOnly(),
		Description: "List this agent's transactions, newest first, one page at a time (next_cursor gives the " +
			"next page).",
		InputSchema: schemaFor[listTxArgs](func(p map[string]*jsonschema.Schema) {
			p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(500.0)
			p["cursor"].Pattern, p["cursor"].MaxLength = cursorPattern, ptr(2731)
		})}, t.listTransactions)
}

// txSchema is the input schema of the transaction tools: T is txArgs or a
// struct that embeds it; edit adjusts the fields T adds.
func txSchema[T any](edit func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	return schemaFor[T](func(p map[string]*jsonschema.Schema) {
		chainSelector(p["chain_id"])
		for _, f := range []string{"gas", "nonce", "type", "token_decimals", "access_list", "authorization_list"} {
			notNull(p[f])
		}
		p["type"].Minimum, p["type"].Maximum = ptr(0.0), ptr(4.0)
		p["token_decimals"].Minimum, p["token_decimals"].Maximum = ptr(0.0), ptr(36.0)
		p["value"].MinLength = ptr(1)
		at := p["access_list"].Items
		notNull(at.Properties["storage_keys"])
		au := p["authorization_list"].Items
		notNull(au.Properties["y_parity"])
		au.Properties["y_parity"].Enum = []any{0, 1}
		if edit != nil {
			edit(p)
		}
	})
}

// chainSelector makes s accept a chain name or alias (a string) or a
// decimal chain id (an integer or a string of digits).
func chainSelector(s *jsonschema.Schema) {
	s.Type, s.Types = "", []string{"integer", "string"}
	s.Minimum = ptr(1.0)
	s.Pattern = chainPattern
}

// notNull drops the "null" the schema inference allows for pointers and
// slices: the tools take a value or no field at all.
func notNull(s *jsonschema.Schema) {
	if s == nil || len(s.Types) == 0 {
		return
	}
	types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	if len(types) == 1 {
		s.Type, s.Types = types[0], nil
		return
	}
	s.Types = types
}
