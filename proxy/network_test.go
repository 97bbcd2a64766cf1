package proxy

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/mail"
)

func TestValidateNetwork(t *testing.T) {
	tests := map[string]struct {
		cfg     Config
		wantErr bool
	}{
		"defaults":                  {cfg: Config{}},
		"trusted proxies":           {cfg: Config{TrustedProxies: []string{"10.0.0.0/8", "::1"}}},
		"bad trusted proxy":         {cfg: Config{TrustedProxies: []string{"lb.example.com"}}, wantErr: true},
		"smtp":                      {cfg: Config{SMTPAddr: "mail.example.com:587", SMTPFrom: "ocv@example.com"}},
		"smtp without from":         {cfg: Config{SMTPAddr: "mail.example.com:587"}, wantErr: true},
		"smtp without port":         {cfg: Config{SMTPAddr: "mail.example.com", SMTPFrom: "ocv@example.com"}, wantErr: true},
		"insecure on loopback":      {cfg: Config{SMTPAddr: "127.0.0.1:25", SMTPFrom: "ocv@example.com", SMTPInsecure: true}},
		"insecure elsewhere":        {cfg: Config{SMTPAddr: "mail.example.com:25", SMTPFrom: "ocv@example.com", SMTPInsecure: true}, wantErr: true},
		"username without password": {cfg: Config{SMTPAddr: "mail.example.com:587", SMTPFrom: "ocv@example.com", SMTPUsername: "u"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			errs := tc.cfg.validateNetwork()
			require.Equal(t, tc.wantErr, len(errs) > 0, "%v", errs)
		})
	}
}

func TestNewMailerChoice(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	require.NoError(t, os.WriteFile(pw, []byte("secret\n"), 0o600))

	m, err := NewMailer(Config{SMTPAddr: "127.0.0.1:25", SMTPFrom: "ocv@example.com", SMTPUsername: "u", SMTPPasswordFile: pw}, log)
	require.NoError(t, err)
	require.IsType(t, &mail.SMTPSender{}, m)

	m, err = NewMailer(Config{TLSMode: "dev", DataDir: dir}, log)
	require.NoError(t, err)
	require.IsType(t, &mail.FileOutbox{}, m)
	require.Equal(t, filepath.Join(dir, "mail"), m.(*mail.FileOutbox).Dir())

	m, err = NewMailer(Config{TLSMode: "acme"}, log)
	require.NoError(t, err)
	require.IsType(t, &mail.LogSender{}, m)

	_, err = NewMailer(Config{SMTPAddr: "127.0.0.1:25", SMTPFrom: "ocv@example.com", SMTPPasswordFile: filepath.Join(dir, "missing")}, log)
	require.Error(t, err)
}
