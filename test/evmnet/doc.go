// Package evmnet runs a real, in-process EVM chain for tests: go-ethereum's
// simulated backend served over HTTP JSON-RPC on loopback, with three funded
// accounts, automatic mining and hand-assembled test contracts (an ERC-20
// token and a contract that always reverts).
//
// Import this package ONLY from _test.go files. The simulated backend links a
// whole go-ethereum node and adds about 60 MB to any binary that imports it;
// production packages must never depend on it (make depcheck should refuse it
// outside tests).
//
// Trust level: test-only; it holds throwaway keys and no secrets.
package evmnet
