package nitro

import (
	"crypto/x509"
	"fmt"
	"time"
)

// DefaultMaxAge is the document age accepted when Config.MaxAge is zero. A
// handshake fetches a fresh document, so a few minutes cover clock skew and
// slow links without making replay useful.
const DefaultMaxAge = 5 * time.Minute

// maxFutureSkew is how far a document's timestamp may lie ahead of the
// verifier's clock.
const maxFutureSkew = time.Minute

// Config configures a Validator.
type Config struct {
	// Roots are the trusted root certificates. Empty means the AWS Nitro
	// Enclaves root (AWSRoot).
	Roots []*x509.Certificate
	// AllowedPCRs maps a PCR index to the values it may hold. Every listed
	// index is checked; unlisted indices are not. PCR0 must be listed: a
	// validator that accepts any enclave image would fail open.
	AllowedPCRs map[uint][][]byte
	// MaxAge is the oldest document accepted; zero means DefaultMaxAge.
	MaxAge time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// SimulatedRoots marks Roots as locally generated simulator roots. It is
	// copied into Result.Simulated and requires explicit Roots.
	SimulatedRoots bool
}

// validate reports the first problem with c, fail-closed.
func (c Config) validate() error {
	for i, r := range c.Roots {
		if r == nil {
			return fmt.Errorf("%w: root %d is nil", ErrInvalidConfig, i)
		}
	}
	if c.SimulatedRoots && len(c.Roots) == 0 {
		// Otherwise real AWS documents would be reported as simulated.
		return fmt.Errorf("%w: simulated roots need explicit Roots", ErrInvalidConfig)
	}
	if c.MaxAge < 0 {
		return fmt.Errorf("%w: negative MaxAge", ErrInvalidConfig)
	}
	if len(c.AllowedPCRs[0]) == 0 {
		return fmt.Errorf("%w: AllowedPCRs must list PCR0", ErrInvalidConfig)
	}
	for idx, values := range c.AllowedPCRs {
		if idx >= maxPCRs {
			return fmt.Errorf("%w: PCR index %d out of range", ErrInvalidConfig, idx)
		}
		if len(values) == 0 {
			return fmt.Errorf("%w: PCR %d has no allowed value", ErrInvalidConfig, idx)
		}
		for _, v := range values {
			if len(v) != pcrSize {
				return fmt.Errorf("%w: PCR %d value is %d bytes, want %d", ErrInvalidConfig, idx, len(v), pcrSize)
			}
		}
	}
	for _, v := range c.AllowedPCRs[0] {
		if isZero(v) {
			return fmt.Errorf("%w: all-zero PCR0 is debug mode and never accepted", ErrInvalidConfig)
		}
	}
	return nil
}

// rootPool builds the trust anchors: the configured roots or the AWS root.
func (c Config) rootPool() *x509.CertPool {
	pool := x509.NewCertPool()
	if len(c.Roots) == 0 {
		pool.AddCert(AWSRoot())
		return pool
	}
	for _, r := range c.Roots {
		pool.AddCert(r)
	}
	return pool
}

// copyAllowed deep-copies the allowlist so later changes by the caller do not
// alter a running Validator.
func copyAllowed(in map[uint][][]byte) map[uint][][]byte {
	out := make(map[uint][][]byte, len(in))
	for idx, values := range in {
		vs := make([][]byte, len(values))
		for i, v := range values {
			vs[i] = append([]byte(nil), v...)
		}
		out[idx] = vs
	}
	return out
}
