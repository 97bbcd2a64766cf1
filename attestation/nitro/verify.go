package nitro

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/attestation"
)

// VerifyDocument validates one document offline, as `ocv attest verify`
// does: it builds a Validator from cfg and runs it once. It lives here rather
// than in package attestation, which imports only the standard library.
func VerifyDocument(ctx context.Context, doc, nonce []byte, cfg Config) (attestation.Result, error) {
	v, err := NewValidator(cfg)
	if err != nil {
		return attestation.Result{}, fmt.Errorf("configuring validator: %w", err)
	}
	return v.Validate(ctx, doc, nonce)
}
