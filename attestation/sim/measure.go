package sim

import (
	"crypto/sha512"
	"fmt"
	"io"
	"os"
)

// MeasureFile returns the SHA-384 of the file at path: the simulator's PCR0
// for an enclave binary, to put in Config.PCRs and in the proxy's allowlist.
func MeasureFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("measuring file: %w", err)
	}
	defer f.Close()
	h := sha512.New384()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("measuring file: %w", err)
	}
	return h.Sum(nil), nil
}
