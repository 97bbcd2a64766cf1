// Package memstore is an in-memory keyvault.KeyStore, keyvault.KeyWrapper
// and keyvault.MACer for unit tests of other packages. Keys live in process
// memory, so New refuses to work outside a test binary.
//
// Like an HSM it returns ECDSA signatures as raw r‖s without low-S
// normalisation: secp256k1 signatures come out high-S about half of the
// time, so callers' normalisation is exercised.
//
// Trust level: test only.
package memstore
