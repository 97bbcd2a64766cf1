// Package txwatch follows broadcast transactions until the chain has a
// receipt for them. Any number of proxy replicas run it over the same
// PostgreSQL table (claims use FOR UPDATE SKIP LOCKED).
//
// For each due transaction it asks the chain's node for the receipt: a
// mined one is recorded as confirmed or reverted. One whose broadcast had
// an unknown outcome (still "signed") is sent again — the same signed
// bytes, so a resend is harmless — and a node that refuses it for good
// marks it failed and gives its day's spend (and, unless the nonce was
// used by another transaction, its nonce) back. Others are checked again
// later, with a growing delay, until their watch ends.
//
// Trust level: untrusted edge (proxy). It holds no key; the signed
// transactions it sends are public once broadcast.
package txwatch
