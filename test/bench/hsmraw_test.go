package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSoftHSMConf(t *testing.T) {
	require.Equal(t, "directories.tokendir = /tmp/x/tokens\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n",
		softhsmConf("/tmp/x/tokens"))
}

func TestOpenHSMMissingModule(t *testing.T) {
	t.Setenv("SOFTHSM2_CONF", "") // restored at the end, whatever openHSM sets
	_, err := openHSM(t.Context(), filepath.Join(t.TempDir(), "no-such-module.so"))
	require.ErrorIs(t, err, ErrHSM)
}

// TestHSMRaw opens a real private SoftHSM2 token as the bench does and
// signs through the hsmraw scenario. It needs softhsm2 and cgo (make test
// installs the first and sets the second); it fails, never skips, without them.
func TestHSMRaw(t *testing.T) {
	// openHSM points SOFTHSM2_CONF at its own config: t.Setenv restores the
	// test process's value afterwards.
	t.Setenv("SOFTHSM2_CONF", "")
	module := os.Getenv("OCV_SOFTHSM2_MODULE")
	if module == "" {
		module = defaultSoftHSMModule
	}
	h, err := openHSM(t.Context(), module)
	require.NoError(t, err)
	conf := os.Getenv("SOFTHSM2_CONF")
	require.Equal(t, filepath.Join(h.dir, "softhsm2.conf"), conf)

	sc := h.scenario()
	require.Equal(t, hsmScenarioName, sc.name)
	res := run(t.Context(), nil, sc, 4, 0, 100*time.Millisecond)
	require.Empty(t, res.Errors)

	require.NoError(t, h.Close())
	_, err = os.Stat(h.dir)
	require.ErrorIs(t, err, os.ErrNotExist, "Close removes the private token directory")
}
