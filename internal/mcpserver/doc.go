// Package mcpserver is the OCV tool server for AI agents: a Model Context
// Protocol (MCP) server, built on the official Go SDK, that speaks JSON-RPC
// 2.0 over stdio or streamable HTTP and turns tools/call requests into calls
// to the OCV HTTPS API made as one agent.
//
// Trust level: untrusted. The server runs next to the agent, outside the
// enclave, and holds only that agent's own credentials: its id and key,
// which it exchanges for a short-lived JWT at /v1/auth/agent-token and
// exchanges again before the JWT expires or once after a 401. Every
// decision (policies, scopes, vault binding) is taken by the API; a tool can
// do nothing the agent could not do with curl. Tool errors carry the API's
// problem title and detail, never a token, a key or a stack trace.
//
// Values and handles. By default get_secret and get_env_bundle return secret
// values, because that is what most agents need. A server started with
// RevealValues false (`ocv mcp --reveal-values=false`, OCV_MCP_REVEAL_VALUES,
// setting name mcp_reveal_values) returns handles instead:
// "ocv://<vault_id>/<path>#v<version>" with the type and version. Anything a
// tool returns enters the model's context, where it can be echoed into a
// chat, a log, a commit or a prompt-injected request to another tool. A
// handle names the secret without exposing it, so the agent can still reason
// about which secret to use and hand the handle to a process that resolves
// it (for example `ocv run`), while the value itself never reaches the
// model. Writing tools (put_secret, rotate_and_store) never echo a value in
// either mode.
//
// Intents API. The tools get_signing_keys, get_balance, sign_message,
// sign_typed_data, simulate_transaction, sign_transaction, send_transaction
// and list_transactions are thin calls of /v1/agents/{id}/… on the agent's
// own id (read once from GET /v1/agents/me). They forward the client's
// arguments as their original JSON text, so that a wei amount or a uint256
// of typed data is never rounded through float64. The guardrails are the
// enclave's: a refusal comes back as a tool error naming the problem type
// (guardrail_<name>, simulation_reverted, guardrails_unsealed, …).
package mcpserver
