// Package solana derives Solana account addresses from Ed25519 public keys
// held in the HSM. It holds no keys and does no I/O; signing comes later.
//
// Trust level: trusted (runs inside the enclave). It imports
// github.com/gagliardetto/solana-go and the standard library only.
package solana
