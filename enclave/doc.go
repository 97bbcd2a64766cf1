// Package enclave is the trusted OCV process: it listens on vsock (a Unix
// socket in simulator mode), opens an attested, MAC'd session per
// connection and runs the operations of enclave/internal/ops against the
// key store (the HSM).
//
// Per connection: the first frame must be an unMAC'd Attest carrying the
// proxy's ephemeral X25519 key and a fresh nonce. The enclave answers with
// an attestation document binding its own channel key (made at start, kept
// only in memory) and that nonce, MAC'd with the session key both sides now
// derive (wire.DeriveSessionKey). Every later request must carry a valid
// MAC (else Unauthenticated, and the connection is closed: the stream can
// no longer be trusted), a timestamp within wire.MaxClockSkew of the
// enclave's clock (else Stale) and a request id and nonce never seen in the
// session (else Replay). Stale and replayed frames are answered and the
// connection stays usable, so an attacker who replays traffic learns
// nothing and the proxy's pool is not disturbed.
//
// Open and Seal are authorised inside the enclave before any key is touched
// (Config.RequireCallerToken; see enclave/wire "Caller authorisation"): the
// caller's access token must verify against the enclave's own
// token-signing keys, and a member or agent also needs the vault's policy
// set, MAC'd by SealPolicySet for an owner or admin, to allow the access.
// Refusals are wire.Forbidden and never say why.
//
// Trust level: trusted. It never imports net/http servers, pgx, proxy/...,
// api/... or internal/store.
package enclave
