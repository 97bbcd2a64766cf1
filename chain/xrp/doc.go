// Package xrp derives XRP Ledger account ids and classic addresses from
// Ed25519 public keys held in the HSM. It holds no keys and does no I/O;
// signing comes later.
//
// Trust level: trusted (runs inside the enclave). It imports x/crypto's
// ripemd160 and the standard library only; the Ripple base58 encoding is
// written here (base58.go).
package xrp
