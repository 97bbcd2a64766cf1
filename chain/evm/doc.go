// Package evm is OCV's pure Ethereum (EVM) logic: it parses structured sign
// requests, builds transactions and message digests, extracts the facts
// guardrails are evaluated on, and turns the raw r‖s an HSM returns into
// Ethereum's 65-byte recoverable signature. It holds no keys and does no I/O.
//
// Trust level: shared. The enclave (trusted) builds every digest it signs with
// this package; the proxy (untrusted) uses the same code to parse requests and
// build ERC-20 calldata, so both sides read a request the same way. It imports
// go-ethereum and the keyvault contract only.
package evm
