// Package auditchain defines an audit event and the hash chain that links an
// organization's events: hash = SHA-256(prev_hash ‖ canonical(event)). The
// proxy's sealer builds the chain and `ocv audit verify` walks it; both use
// this one definition.
//
// Trust level: shared contract, pure (standard library only).
package auditchain
