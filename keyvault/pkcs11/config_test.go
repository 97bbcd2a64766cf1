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
	def := min(max(2*runtime.GOMAXPROCS(0), 2), 64)
	const unavailable = ^uint(0)
	tests := map[string]struct {
		size    int
		tokenRW uint
		want    int
		wantErr error
	}{
		"ok configured, token unlimited":    {size: 7, want: 7},
		"ok configured, token unavailable":  {size: 7, tokenRW: unavailable, want: 7},
		"ok configured, within token":       {size: 7, tokenRW: 7, want: 7},
		"ok default, token unlimited":       {want: def},
		"ok default, token unavailable":     {tokenRW: unavailable, want: def},
		"ok default, capped by a small HSM": {tokenRW: 1, want: 1},
		"ok default, large token":           {tokenRW: 1000, want: def},
		"fail configured above token's max": {size: 8, tokenRW: 7, wantErr: ErrInvalidConfig},
		"fail configured far above the max": {size: MaxPoolSize, tokenRW: 2, wantErr: ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Config{PoolSize: tc.size}.poolSize(tc.tokenRW)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
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
