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
// The issuer is the proxy's concern (it accepts a legacy issuer): here iss
// only has to be present. Revocation is the proxy's concern as well: the
// enclave cannot see it, so a revoked token stays usable against the
// enclave until it expires (docs/threat-model.md).
//
// Trust level: trusted (runs only inside the enclave). Every token it parses
// may come from an attacker.
package tokens
