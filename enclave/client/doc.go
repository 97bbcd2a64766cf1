// Package client is what the proxy uses to talk to the enclave: a pool of
// persistent, attested, MAC'd connections over vsock (a Unix socket in
// simulator mode).
//
// Every connection starts with a handshake: a fresh nonce and an ephemeral
// X25519 key go to the enclave, its attestation document comes back and is
// checked by the configured attestation.Validator (roots, PCR allowlist,
// nonce, age); the key bound in the document is the enclave's channel key,
// and both sides derive the session key from the exchange. Until a document
// has been validated, and whenever the enclave cannot be reached, every call
// fails at once with an error wrapping wire.ErrUnavailable (fail closed);
// State says why. A background loop re-establishes attestation with backoff
// after the enclave restarts, so the proxy recovers without a restart.
//
// Trust level: untrusted side of the channel (runs in the proxy). It
// imports enclave/wire and attestation, never enclave/internal or
// keyvault/pkcs11.
package client
