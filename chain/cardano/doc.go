// Package cardano derives Cardano Shelley enterprise addresses from Ed25519
// public keys held in the HSM. It holds no keys and does no I/O; signing
// comes later.
//
// Trust level: trusted (runs inside the enclave). It imports x/crypto's
// blake2b, btcutil's bech32 and the standard library only.
package cardano
