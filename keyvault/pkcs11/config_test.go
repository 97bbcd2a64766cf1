package pkcs11

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigValidate(t *testing.T) {
	ok := Config{ModulePath: "/m.so", TokenLabel: "ocv", PIN: "1234"}
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	tests := map[string]struct {
		cfg     Config
		wantErr error
	}{
		"ok pin":            {cfg: ok},
		"ok pin file":       {cfg: with(func(c *Config) { c.PIN, c.PINFile = "", "/run/pin" })},
		"ok pool size":      {cfg: with(func(c *Config) { c.PoolSize = MaxPoolSize })},
		"fail no module":    {cfg: with(func(c *Config) { c.ModulePath = "" }), wantErr: ErrInvalidConfig},
		"fail no label":     {cfg: with(func(c *Config) { c.TokenLabel = "" }), wantErr: ErrInvalidConfig},
		"fail long label":   {cfg: with(func(c *Config) { c.TokenLabel = "0123456789abcdef0123456789abcdefX" }), wantErr: ErrInvalidConfig},
		"fail pin+pin_file": {cfg: with(func(c *Config) { c.PINFile = "/run/pin" }), wantErr: ErrInvalidConfig},
		"fail no pin":       {cfg: with(func(c *Config) { c.PIN = "" }), wantErr: ErrInvalidConfig},
		"fail pool size -1": {cfg: with(func(c *Config) { c.PoolSize = -1 }), wantErr: ErrInvalidConfig},
		"fail pool too big": {cfg: with(func(c *Config) { c.PoolSize = MaxPoolSize + 1 }), wantErr: ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, tc.cfg.Validate(), tc.wantErr)
		})
	}
}

func TestConfigPoolSize(t *testing.T) {
	require.Equal(t, 7, Config{PoolSize: 7}.poolSize())
	want := min(max(2*runtime.GOMAXPROCS(0), 2), 64)
	require.Equal(t, want, Config{}.poolSize())
}

func TestConfigPINFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	tests := map[string]struct {
		file    string
		want    string
		wantErr error
	}{
		"ok newline":   {file: write("nl", "s3cret\n"), want: "s3cret"},
		"ok crlf":      {file: write("crlf", "s3cret\r\n"), want: "s3cret"},
		"ok bare":      {file: write("bare", "s3cret"), want: "s3cret"},
		"fail empty":   {file: write("empty", "\n"), wantErr: ErrInvalidConfig},
		"fail missing": {file: filepath.Join(dir, "missing"), wantErr: os.ErrNotExist},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pin, err := Config{PINFile: tc.file}.pin()
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, pin)
		})
	}
}
