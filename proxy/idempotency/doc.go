// Package idempotency implements the Idempotency-Key header (spec "Limits"):
// the first successful response to a key is stored for 24 hours and replayed
// to a duplicate; a duplicate while the first request is in flight gets 409
// `idempotency_in_progress`; the same key with a different request gets 422
// `idempotency_mismatch`; records older than 48 hours are purged by a
// background job (RunPurger).
//
// Exactly once (docs/architecture.md): the request that holds a key runs in
// its idempotent transaction (store.IdempotencyHold, bound to the request's
// context), which commits the request's writes and its stored answer
// together; the answer is held back and sent only after the commit. A crash
// before the commit leaves nothing; after it, a retry replays.
//
// Choices the spec leaves open, made here:
//   - A replay answers status 200 (the "replayed with 200"), whatever
//     the first status was (a 201 Created replays as 200), with the stored
//     body, the stored headers of Config.ReplayHeaders, and
//     `Idempotent-Replayed: true`.
//   - Only a 2xx first response is stored. A failed first attempt (4xx, 5xx)
//     or a response larger than Config.MaxBody commits what the request wrote
//     (failed-attempt counters stay) without an answer: the key stays free
//     and a retry runs the handler again. A panic rolls everything back.
//   - A failed commit answers 503 `storage_unavailable` with Retry-After.
//   - While a request holds the key, every other request with it gets 409,
//     even a different one: the holder's fingerprint is not known until it
//     commits.
//   - Keys are scoped by the authenticated principal (organization id and
//     principal id): two tenants or two callers never share a key. Requests
//     without a principal (public routes) pass through untouched.
//   - A request is identified by SHA-256 over its method, its target (the
//     escaped path and query by default) and the SHA-256 of its body.
//   - A key is 1 to 255 printable ASCII characters (0x20-0x7E); anything else,
//     or the header given twice, is 400 `invalid_request`.
//
// If the store fails at the claim, the request fails closed rather than
// risk running twice.
//
// Position: after authentication (it needs the principal) and inside the
// audit middleware and the body-size limit (it buffers the request body to
// fingerprint it). The audit middleware buffers the response outside it.
//
// Stored responses sit in PostgreSQL in plain form for up to 48 hours, and
// the database is untrusted. Config.Applies must therefore exclude every
// route whose response carries a secret or a credential (API key creation,
// token issuance and refresh, secret reads, agent credentials, share
// passphrases): replaying those is not worth storing them.
//
// Trust level: untrusted (proxy side).
package idempotency
