package sim

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfig(t *testing.T) {
	measured := bytes.Repeat([]byte{0xab}, pcrSize)
	tests := map[string]struct {
		cfg      Config
		wantPCRs map[uint][]byte
		wantErr  error
	}{
		"ok defaults": {
			cfg:      Config{},
			wantPCRs: map[uint][]byte{0: defaultPCR(0), 1: defaultPCR(1), 2: defaultPCR(2), 3: make([]byte, pcrSize), 15: make([]byte, pcrSize)},
		},
		"ok PCR0 and PCR8": {
			cfg:      Config{PCRs: map[uint][]byte{0: measured, 8: measured}},
			wantPCRs: map[uint][]byte{0: measured, 1: defaultPCR(1), 8: measured},
		},
		"fail no dir":      {cfg: Config{Dir: "-"}, wantErr: ErrInvalidConfig},
		"fail index 16":    {cfg: Config{PCRs: map[uint][]byte{16: measured}}, wantErr: ErrInvalidConfig},
		"fail short value": {cfg: Config{PCRs: map[uint][]byte{0: measured[:32]}}, wantErr: ErrInvalidConfig},
		// Zero PCR0 is what a debug-mode enclave reports; a validator always refuses it.
		"fail zero PCR0": {cfg: Config{PCRs: map[uint][]byte{0: make([]byte, pcrSize)}}, wantErr: ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := tc.cfg
			if cfg.Dir == "-" {
				cfg.Dir = ""
			} else {
				cfg.Dir = t.TempDir()
			}
			iss, err := New(cfg)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				return
			}
			require.Len(t, iss.pcrs, numPCRs)
			for idx, want := range tc.wantPCRs {
				require.Equal(t, want, iss.pcrs[idx], "PCR %d", idx)
			}
		})
	}
}

// The caller's PCR slices are copied, not aliased.
func TestConfigCopiesPCRs(t *testing.T) {
	pcr0 := bytes.Repeat([]byte{1}, pcrSize)
	iss := newIssuerIn(t, Config{Dir: t.TempDir(), PCRs: map[uint][]byte{0: pcr0}})
	pcr0[0] = 9
	require.Equal(t, byte(1), iss.pcrs[0][0])
}

func TestMeasureFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enclave")
	require.NoError(t, os.WriteFile(path, []byte("abc"), 0o600))
	got, err := MeasureFile(path)
	require.NoError(t, err)
	// FIPS 180-2 SHA-384("abc").
	require.Equal(t, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7", hex.EncodeToString(got))
	require.Len(t, got, sha512.Size384)

	_, err = MeasureFile(filepath.Join(t.TempDir(), "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
