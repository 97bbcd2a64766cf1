// Package auditchain defines an audit event and the hash chain that links an
// organization's events: hash = SHA-256(prev_hash ‖ SHA-256(canonical(event))).
// The proxy's sealer builds the chain, the enclave recomputes it from the
// event digests before it signs a head, and `ocv audit verify` walks it; all
// three use this one definition. Chains sealed before the enclave extended
// them linked SHA-256(prev_hash ‖ canonical(event)) (LegacyHash); a verifier
// accepts that only for a chain's prefix.
//
// Trust level: shared contract, pure (standard library only).
package auditchain
