// Package bitcoin derives Bitcoin addresses from secp256k1 public keys held
// in the HSM. It holds no keys and does no I/O; signing comes later.
//
// Trust level: trusted (runs inside the enclave). It imports btcd's btcec,
// btcutil and chaincfg and the keyvault contract only.
package bitcoin
