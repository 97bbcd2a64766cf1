// Package tokens verifies, inside the enclave, the access tokens the enclave
// itself minted (ops.SignJWT): compact JWS with alg ES256 and a kid naming a
// version of the token-signing key in the key store. Verify checks the
// signature against that key's public half, exp against the enclave's clock
// and aud, and returns the claims the enclave's authorisation needs.
//
// Verified tokens are cached (bounded, keyed by SHA-256 of the token), so
// the ~100 µs ECDSA verification runs once per token, not once per request.
// A cached token is still refused once it expires.
//
// It also applies the token rules both verifiers share: iss must be the
// configured issuer (the proxy's public URL) or one of the legacy issuers,
// iat is required and at most wire.TokenClockSkew ahead, and exp - iat is
// at most the configured lifetime of the principal type plus that skew
// (wire.TokenLifetimes), all from the enclave's own configuration. So a
// token signed for ten years is refused even though the enclave signed it.
//
// Revocation is not the verifier's: the enclave's authorisation
// (enclave/internal/ops, revocation.go) refuses a verified token that was
// signed out or issued before a cut-off of its principal, from floors kept
// in the HSM, for every token (also one cached here). For that the claims
// carry IssuedAtMs (iat_ms, bound to iat's second) and PlatformRole. The
// existence of the subject is still the proxy's concern.
//
// Trust level: trusted (runs only inside the enclave). Every token it parses
// may come from an attacker.
package tokens
