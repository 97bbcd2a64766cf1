// Package nitro validates AWS Nitro Enclaves attestation documents and, inside
// a real enclave, requests them from the Nitro Security Module.
//
// Validation follows AWS's published procedure as a pipeline of small,
// separately tested steps: parse the COSE_Sign1 envelope and its CBOR payload,
// check required fields and sizes, verify the certificate chain to a
// configured root at the document's timestamp, verify the ES384 signature with
// the leaf key, compare PCRs with an allowlist (debug-mode documents are always
// refused), compare the nonce in constant time, and check freshness. Each
// step's error is wrapped with its context and one of the sentinels in
// errors.go.
//
// The same Validator checks simulator documents (package attestation/sim):
// they are Nitro-format and differ only in the root they chain to.
//
// Trust level: trusted. The proxy's decision to send secret operations to an
// enclave rests on this package.
package nitro
