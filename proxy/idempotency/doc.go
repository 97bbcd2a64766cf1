// Package idempotency implements the Idempotency-Key header (spec "Limits"):
// the first successful response to a key is stored for 24 hours and replayed
// to a duplicate; a duplicate while the first request is in flight gets 409
// `idempotency_in_progress`; the same key with a different request gets 422
// `idempotency_mismatch`; records older than 48 hours are purged by a
// background job (RunPurger).
//
// Choices the spec leaves open, made here:
//   - A replay answers status 200 (the "replayed with 200"), whatever
//     the first status was (a 201 Created replays as 200), with the stored
//     body, the stored headers of Config.ReplayHeaders, and
//     `Idempotent-Replayed: true`.
//   - Only a 2xx first response is stored. A failed first attempt (4xx, 5xx,
//     panic) or a response larger than Config.MaxBody releases the key, so the
//     client may retry with the same key and the handler runs again.
//   - Keys are scoped by the authenticated principal (organization id and
//     principal id): two tenants or two callers never share a key. Requests
//     without a principal (public routes) pass through untouched.
//   - A request is identified by SHA-256 over its method, its target (the
//     escaped path and query by default) and the SHA-256 of its body.
//   - A key is 1 to 255 printable ASCII characters (0x20-0x7E); anything else,
//     or the header given twice, is 400 `invalid_request`.
//   - An in-flight record older than Config.StaleAfter (5 minutes) belongs to
//     a crashed request and is taken over by the next claim.
//
// The claim is atomic across replicas (the store's INSERT ... ON CONFLICT DO
// NOTHING on the key's primary key). If the store fails, the request fails
// closed (500) rather than risk running twice.
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
