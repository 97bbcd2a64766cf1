package sim

import (
	"crypto/sha512"
	"fmt"
	"time"
)

const (
	// numPCRs is how many PCRs a Nitro document reports.
	numPCRs = 16
	pcrSize = sha512.Size384
	// defaultModuleID names the simulator in Result.ModuleID.
	defaultModuleID = "ocv-simulator"
)

// Config configures an Issuer.
type Config struct {
	// Dir holds the CA files (created 0700 if missing). Required.
	Dir string
	// PCRs overrides measurement registers 0..15 (48 bytes each). PCR0, 1
	// and 2 default to the SHA-384 of a fixed simulator label, the others to
	// zero as on Nitro. PCR0 must not be all zeros (that is debug mode).
	PCRs map[uint][]byte
	// ModuleID is reported as module_id; empty means "ocv-simulator".
	ModuleID string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// pcrBank validates c.PCRs and returns the full 16-register bank.
func (c Config) pcrBank() (map[uint][]byte, error) {
	bank := make(map[uint][]byte, numPCRs)
	for i := uint(0); i < numPCRs; i++ {
		bank[i] = make([]byte, pcrSize)
	}
	for i := uint(0); i < 3; i++ {
		bank[i] = defaultPCR(i)
	}
	for idx, v := range c.PCRs {
		if idx >= numPCRs {
			return nil, fmt.Errorf("%w: PCR index %d out of range", ErrInvalidConfig, idx)
		}
		if len(v) != pcrSize {
			return nil, fmt.Errorf("%w: PCR %d is %d bytes, want %d", ErrInvalidConfig, idx, len(v), pcrSize)
		}
		bank[idx] = append([]byte(nil), v...)
	}
	if isZero(bank[0]) {
		return nil, fmt.Errorf("%w: all-zero PCR0 means debug mode", ErrInvalidConfig)
	}
	return bank, nil
}

// defaultPCR is the simulator's stand-in measurement for PCR idx.
func defaultPCR(idx uint) []byte {
	sum := sha512.Sum384(fmt.Appendf(nil, "ocv simulator PCR%d", idx))
	return sum[:]
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
