package proxy

import (
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
)

// NewValidator returns the attestation validator of cfg: the allowed PCR0
// measurements and the trusted roots ("aws-nitro" or PEM files, the latter
// marking simulated attestation as accepted).
func NewValidator(cfg Config) (*nitro.Validator, error) {
	vc := nitro.Config{AllowedPCRs: map[uint][][]byte{}, MaxAge: cfg.AttestationMaxAge}
	for _, p := range cfg.AllowedPCR0 {
		b, _ := hex.DecodeString(strings.TrimSpace(p)) // checked by Validate
		vc.AllowedPCRs[0] = append(vc.AllowedPCRs[0], b)
	}
	for _, r := range cfg.AttestationRoots {
		if r == "aws-nitro" {
			vc.Roots = append(vc.Roots, nitro.AWSRoot())
			continue
		}
		root, err := loadRoot(r)
		if err != nil {
			return nil, err
		}
		vc.Roots = append(vc.Roots, root)
		vc.SimulatedRoots = true
	}
	return nitro.NewValidator(vc)
}

// loadRoot reads a root certificate; in simulator mode it may appear only
// once the enclave has started and made its CA, so wait briefly for it.
func loadRoot(path string) (*x509.Certificate, error) {
	var err error
	for i := 0; i < 300; i++ {
		var root *x509.Certificate
		if root, err = sim.LoadRoot(path); err == nil {
			return root, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, fmt.Errorf("loading attestation root %s: %w", path, err)
}
