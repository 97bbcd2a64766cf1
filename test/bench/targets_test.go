package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNeeds(t *testing.T) {
	tests := map[string]struct {
		names               []string
		wantStack, wantSign bool
	}{
		"hsmraw alone":  {names: []string{"hsmraw"}},
		"defaults":      {names: []string{"write", "read", "personalsign", "txsign", "hsmraw"}, wantStack: true, wantSign: true},
		"txsign only":   {names: []string{"txsign"}, wantStack: true, wantSign: true},
		"personalsign":  {names: []string{"hsmraw", "personalsign"}, wantStack: true, wantSign: true},
		"secrets only":  {names: []string{"write", "read"}, wantStack: true},
		"pipeline only": {names: []string{"health", "authget"}, wantStack: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.wantStack, needsStack(tc.names))
			require.Equal(t, tc.wantSign, needsSigner(tc.names))
		})
	}
}

func TestTargetsUnknownScenario(t *testing.T) {
	_, err := (&targets{}).scenario("delete")
	require.ErrorIs(t, err, ErrInvalidFlag)
}

func TestSetUpHSMOnly(t *testing.T) {
	t.Setenv("SOFTHSM2_CONF", "")
	t.Setenv("OCV_BENCH_URL", "")
	cfg, err := parseFlags([]string{"-scenarios", "hsmraw", "-softhsm-module", filepath.Join(t.TempDir(), "missing.so")})
	require.NoError(t, err)
	// No stack is contacted (nothing listens for this test), so the only
	// failure can be the missing module.
	_, err = setUp(t.Context(), t.Context(), cfg, nil)
	require.ErrorIs(t, err, ErrHSM)
}
