// Package chainrpc is the proxy's only way to talk to EVM JSON-RPC nodes:
// chain id, nonces, fee suggestions, gas estimates, calls with decoded revert
// reasons, raw transaction broadcast, receipts, native and ERC-20 balances,
// and bundle simulation through eth_simulateV1 (with a Call+EstimateGas
// fallback for nodes that lack it).
//
// RPC URLs often embed provider API keys, so no error this package returns
// contains the URL or any part of it: errors carry a sentinel, the JSON-RPC
// method name and a scrubbed message only.
//
// Reads get a per-call timeout and are retried on network errors and
// timeouts; transaction broadcasts are never retried.
//
// Trust level: untrusted (it talks to third-party nodes; their answers are
// data to check, not facts).
package chainrpc
