package nitro

import (
	"crypto/subtle"
	"fmt"
	"maps"
	"slices"
)

// checkDebugMode refuses a document whose PCR0 is missing or all zeros. A
// Nitro enclave started with --debug-mode reports zeroed PCRs, and its
// memory and console are readable from the parent instance: no allowlist may
// accept it.
func checkDebugMode(pcrs map[uint][]byte) error {
	pcr0, ok := pcrs[0]
	if !ok {
		return fmt.Errorf("verifying PCR 0: %w: missing", ErrPCRMismatch)
	}
	if isZero(pcr0) {
		return fmt.Errorf("verifying PCR 0: %w", ErrDebugMode)
	}
	return nil
}

// checkPCRs requires every allowlisted index to be present and to equal one
// of its allowed values. Indices not in the allowlist are not checked.
func checkPCRs(pcrs map[uint][]byte, allowed map[uint][][]byte) error {
	for _, idx := range slices.Sorted(maps.Keys(allowed)) {
		got, ok := pcrs[idx]
		if !ok {
			return fmt.Errorf("verifying PCR %d: %w: missing", idx, ErrPCRMismatch)
		}
		if !matchesAny(got, allowed[idx]) {
			return fmt.Errorf("verifying PCR %d: %w", idx, ErrPCRMismatch)
		}
	}
	return nil
}

func matchesAny(got []byte, values [][]byte) bool {
	for _, v := range values {
		if subtle.ConstantTimeCompare(got, v) == 1 {
			return true
		}
	}
	return false
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
