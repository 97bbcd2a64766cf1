// Package metering counts API calls per organization against its tier's
// monthly quota, enforces the per-tier resource limits, and answers over
// quota with prepaid credits or an x402 payment (subpackage x402).
//
// It provides two middlewares for the spec's request processing order:
// PaymentGate (step 3, before authentication) and Usage (steps 6 and 7,
// after authentication and the IP filter). Spec Errors rule 2 follows from
// their positions: on a paid route a request without a token gets 402 from
// the gate; with a token the gate steps aside, so an invalid token gets 401
// from authentication; a valid token over quota (and without credits or a
// valid X-PAYMENT) gets 402 from Usage.
//
// Counting is atomic in PostgreSQL and cheap at high rates: each replica
// leases blocks of calls (see Counter).
//
// Trust level: untrusted (proxy side). It sees no secret; it handles payment
// authorizations, which are public once settled.
package metering
