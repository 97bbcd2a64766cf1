package nitro

import "errors"

// Sentinel errors. Every error returned by Validator.Validate wraps exactly one
// of the first seven; callers test them with errors.Is.
var (
	// ErrMalformed means the document is not a well-formed Nitro attestation
	// document (bad CBOR/COSE, missing field, wrong size or digest).
	ErrMalformed = errors.New("malformed attestation document")
	// ErrUntrustedChain means the signing certificate does not chain to a
	// configured root at the document's timestamp.
	ErrUntrustedChain = errors.New("untrusted attestation certificate chain")
	// ErrBadSignature means the COSE signature does not verify with the leaf
	// certificate's key.
	ErrBadSignature = errors.New("bad attestation signature")
	// ErrPCRMismatch means a PCR listed in the allowlist is missing or holds
	// a value that is not allowed.
	ErrPCRMismatch = errors.New("PCR not in allowlist")
	// ErrDebugMode means PCR0 is all zeros: the enclave runs in debug mode
	// and its memory can be read by the parent instance.
	ErrDebugMode = errors.New("enclave runs in debug mode")
	// ErrNonceMismatch means the document does not carry the verifier's nonce.
	ErrNonceMismatch = errors.New("attestation nonce mismatch")
	// ErrStale means the document's timestamp is too old or in the future.
	ErrStale = errors.New("stale attestation document")

	// ErrInvalidConfig means a Validator Config is unusable.
	ErrInvalidConfig = errors.New("invalid nitro validator config")
	// ErrNSM means the Nitro Security Module could not produce a document.
	ErrNSM = errors.New("nitro security module request failed")
)
