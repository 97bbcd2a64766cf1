// Package tron derives TRON account addresses from secp256k1 public keys
// held in the HSM. It holds no keys and does no I/O; signing comes later.
//
// Trust level: trusted (runs inside the enclave). It imports decred's
// secp256k1, x/crypto/sha3, btcutil's base58 and the keyvault contract only.
package tron
