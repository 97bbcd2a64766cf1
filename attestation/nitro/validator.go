package nitro

import (
	"context"
	"crypto/x509"
	"fmt"
	"time"

	"github.com/opencustody/ocv/attestation"
)

// Validator checks Nitro-format attestation documents. It is immutable after
// NewValidator and safe for concurrent use.
type Validator struct {
	roots     *x509.CertPool
	allowed   map[uint][][]byte
	maxAge    time.Duration
	now       func() time.Time
	simulated bool
}

// NewValidator returns a Validator for cfg. It fails with ErrInvalidConfig
// when the allowlist does not pin PCR0 or cfg is otherwise unusable.
func NewValidator(cfg Config) (*Validator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	v := &Validator{
		roots:     cfg.rootPool(),
		allowed:   copyAllowed(cfg.AllowedPCRs),
		maxAge:    cfg.MaxAge,
		now:       cfg.Now,
		simulated: cfg.SimulatedRoots,
	}
	if v.maxAge == 0 {
		v.maxAge = DefaultMaxAge
	}
	if v.now == nil {
		v.now = time.Now
	}
	return v, nil
}

// Validate runs the verification pipeline on doc and returns what it proves.
// nonce is the value the verifier sent for this handshake and must not be
// empty. Any error means doc MUST NOT be trusted; it wraps one of
// ErrMalformed, ErrUntrustedChain, ErrBadSignature, ErrPCRMismatch,
// ErrDebugMode, ErrNonceMismatch or ErrStale (or ctx's error).
func (v *Validator) Validate(ctx context.Context, doc, nonce []byte) (attestation.Result, error) {
	if err := ctx.Err(); err != nil {
		return attestation.Result{}, fmt.Errorf("validating attestation document: %w", err)
	}
	d, err := parseDocument(doc)
	if err != nil {
		return attestation.Result{}, fmt.Errorf("parsing document: %w", err)
	}
	if err := checkFields(d.payload); err != nil {
		return attestation.Result{}, fmt.Errorf("checking fields: %w", err)
	}
	ts := time.UnixMilli(int64(d.payload.Timestamp)) // checkFields bounds it to int64
	leaf, err := verifyChain(d.payload, v.roots, ts)
	if err != nil {
		return attestation.Result{}, fmt.Errorf("verifying certificate chain: %w", err)
	}
	if err := verifySignature(d.msg, leaf); err != nil {
		return attestation.Result{}, fmt.Errorf("verifying signature: %w", err)
	}
	if err := checkDebugMode(d.payload.PCRs); err != nil {
		return attestation.Result{}, err
	}
	if err := checkPCRs(d.payload.PCRs, v.allowed); err != nil {
		return attestation.Result{}, err
	}
	if err := checkNonce(d.payload.Nonce, nonce); err != nil {
		return attestation.Result{}, fmt.Errorf("verifying nonce: %w", err)
	}
	if err := checkFreshness(ts, v.now(), v.maxAge); err != nil {
		return attestation.Result{}, fmt.Errorf("verifying timestamp: %w", err)
	}
	return v.result(d.payload, ts), nil
}

// result copies what the verified payload proves into an attestation.Result.
func (v *Validator) result(p payload, ts time.Time) attestation.Result {
	return attestation.Result{
		ModuleID:  p.ModuleID,
		Timestamp: ts.UTC(),
		PCRs:      p.PCRs,
		PublicKey: p.PublicKey,
		UserData:  p.UserData,
		Simulated: v.simulated,
	}
}

var _ attestation.Validator = (*Validator)(nil)
