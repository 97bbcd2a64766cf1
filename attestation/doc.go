// Package attestation defines how the enclave proves what it is (Issuer) and
// how the proxy checks that proof (Validator) before it sends a single
// secret operation over the channel.
//
// Trust level: shared contract. It imports only the standard library.
package attestation
