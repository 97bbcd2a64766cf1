// Package x402 implements the server side of the x402 payment protocol
// (version 1, "exact" scheme on EVM networks): the 402 answer and its
// payment requirements, the /.well-known/x402 document, verification of an
// X-PAYMENT header carrying an EIP-3009 TransferWithAuthorization signed as
// EIP-712 typed data, and settlement through a facilitator.
//
// Trust level: untrusted (proxy side). A payment payload is attacker input:
// it is decoded with size bounds and every field is checked before the
// facilitator is asked to settle it.
package x402
