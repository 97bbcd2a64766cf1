// Package intents is the Intents API's service: agents' signing keys and
// the sign intents, transactions, simulations and balances of their EVM
// keys. A transaction is planned, reserved against the agent's daily
// limits, signed by the enclave (which weighs the agent's sealed
// guardrails), recorded and broadcast; what it reserved is given back when
// a later step fails. The HTTP handlers decode, call this service and
// encode; the service returns *problem.Problem values for the answers
// that are the client's business.
//
// Trust level: untrusted (proxy side; the enclave checks every signature's
// guardrails again).
package intents
