package nitro

import (
	"crypto/x509"
	"fmt"
	"time"
)

// verifyChain parses the leaf and the cabundle and verifies leaf ← cabundle ←
// a configured root, at the document's own timestamp: Nitro leaf
// certificates live for hours, so "now" would reject a valid document that
// is merely being re-checked; freshness is bounded separately.
//
// The cabundle only supplies intermediates. A root it carries is not trusted
// unless it is also in roots.
func verifyChain(p payload, roots *x509.CertPool, at time.Time) (*x509.Certificate, error) {
	leaf, err := x509.ParseCertificate(p.Certificate)
	if err != nil {
		return nil, fmt.Errorf("%w: parsing certificate: %w", ErrMalformed, err)
	}
	intermediates := x509.NewCertPool()
	for i, der := range p.CABundle {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("%w: parsing cabundle[%d]: %w", ErrMalformed, i, err)
		}
		intermediates.AddCert(c)
	}
	_, err = leaf.Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		CurrentTime:   at,
		// Nitro leaf certificates carry no extended key usage.
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUntrustedChain, err)
	}
	return leaf, nil
}
