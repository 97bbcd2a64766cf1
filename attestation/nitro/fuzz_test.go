package nitro

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzValidate feeds arbitrary bytes to the whole pipeline: it must never
// panic, and every failure must carry one of the package's sentinels.
func FuzzValidate(f *testing.F) {
	pki := newTestPKI(f, "fuzz")
	f.Add(pki.sign(f, pki.payload()))
	if aws, err := os.ReadFile(awsDocPath); err == nil {
		f.Add(aws)
	}
	f.Add([]byte{})
	f.Add([]byte{0xd2, 0x84, 0x40, 0xa0, 0x40, 0x40})
	f.Add([]byte{0x84, 0x44, 0xa1, 0x01, 0x38, 0x22, 0xa0, 0x41, 0xa0, 0x41, 0x00})

	cfg := pki.testConfig()
	cfg.MaxAge = 100 * 365 * 24 * time.Hour
	v, err := NewValidator(cfg)
	require.NoError(f, err)
	sentinels := []error{ErrMalformed, ErrUntrustedChain, ErrBadSignature, ErrPCRMismatch, ErrDebugMode, ErrNonceMismatch, ErrStale}

	f.Fuzz(func(t *testing.T, doc []byte) {
		_, err := v.Validate(t.Context(), doc, testNonce)
		if err == nil {
			return
		}
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return
			}
		}
		t.Fatalf("error without sentinel: %v", err)
	})
}
