// Package auth authenticates callers at the proxy: argon2id password hashes,
// access tokens signed by the enclave's HSM key (ES256 JWTs), a cache of
// verified tokens and a revocation set that every replica keeps current.
// A token is accepted only from a configured issuer, within the configured
// lifetime of its principal type, and for a subject that is a member (or
// an active agent) of its organization.
//
// Trust level: untrusted (proxy side). The proxy verifies tokens with public
// keys only; it can never mint one without the enclave, and the enclave
// mints only for a credential that matches an identity record it sealed
// (Minter: password, API key, agent key, refresh token, share), with claims
// taken from those records.
package auth
