// Package pkcs11 is the HSM implementation of keyvault.KeyStore,
// keyvault.KeyWrapper and keyvault.MACer: a thin wrapper over
// github.com/miekg/pkcs11 with a session pool of its own and a per-key
// object handle cache, so the hot paths (SignDigest, WrapKey, UnwrapKey,
// MAC) do no object search.
//
// Keys are named on the token by CKA_LABEL and CKA_ID "ocv:<id>:v<version>".
// Private and secret keys are token objects, private, sensitive and never
// extractable. The token is chosen by label, never by slot number (SoftHSM
// moves a token to a new slot number when it is initialised).
//
// It needs cgo; built without cgo, New answers keyvault.ErrUnsupported.
//
// Trust level: trusted (runs inside the enclave).
package pkcs11
