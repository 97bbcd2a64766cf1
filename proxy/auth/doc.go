// Package auth authenticates callers at the proxy: argon2id password hashes,
// access tokens signed by the enclave's HSM key (ES256 JWTs), a cache of
// verified tokens and a revocation set that every replica keeps current.
//
// Trust level: untrusted (proxy side). The proxy verifies tokens with public
// keys only; it can never mint one without the enclave.
package auth
