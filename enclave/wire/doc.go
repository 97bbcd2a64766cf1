// Package wire is the only code the untrusted proxy and the trusted enclave
// share: operation codes, message bodies and their binary codec, framing over
// a stream, the per-frame MAC and the channel key derivation, the error
// codes that cross the boundary, and the claim set of the access tokens the
// proxy mints and the enclave verifies (Claims).
//
// A frame is a fixed 76-byte header followed by a body of at most
// MaxBodySize bytes:
//
//	magic "OV" (2) | version (1) | flags (1) | op (2) | code (2) |
//	request id (8) | timestamp unix ms (8) | nonce (16) | MAC (32) | body length (4)
//
// All integers are big endian. The body of every message is a sequence of
// fixed-size integers and length-prefixed (uint32) byte fields, each with a
// hard upper bound; decoding never allocates in proportion to a claimed
// length and never panics (both decoders are fuzzed).
//
// Trust level: shared contract. It imports only the standard library and
// golang.org/x/crypto. Every byte it decodes may come from an attacker.
package wire
