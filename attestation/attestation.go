package attestation

import (
	"context"
	"time"
)

// Issuer produces an attestation document that binds publicKey (the enclave's
// channel key) and the verifier's nonce to the measured enclave.
// Implementations MUST be safe for concurrent use.
type Issuer interface {
	Issue(ctx context.Context, publicKey, nonce []byte) ([]byte, error)
}

// Result is what a validated document proves.
type Result struct {
	ModuleID  string
	Timestamp time.Time
	PCRs      map[uint][]byte
	PublicKey []byte // the bound channel key
	UserData  []byte
	// Simulated is true when the document chains to a locally generated
	// simulator root instead of a hardware vendor root.
	Simulated bool
}

// Validator checks a document against configured roots, a measurement
// allowlist, the expected nonce and the document's age. Any error means the
// document MUST NOT be trusted. Implementations MUST be safe for concurrent use.
type Validator interface {
	Validate(ctx context.Context, doc, nonce []byte) (Result, error)
}
