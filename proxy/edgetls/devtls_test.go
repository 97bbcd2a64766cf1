package edgetls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// devLeaf returns the server certificate of a DevTLS configuration.
func devLeaf(t *testing.T, cfg *tls.Config) *x509.Certificate {
	t.Helper()
	require.Len(t, cfg.Certificates, 1)
	require.NotNil(t, cfg.Certificates[0].Leaf)
	return cfg.Certificates[0].Leaf
}

// caPool reads the CA file DevTLS returned.
func caPool(t *testing.T, caPath string) (*x509.CertPool, *x509.Certificate) {
	t.Helper()
	ca, err := readCert(caPath)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pool, ca
}

// setNow moves the dev CA clock for one test.
func setNow(t *testing.T, at time.Time) {
	t.Helper()
	old := now
	now = func() time.Time { return at }
	t.Cleanup(func() { now = old })
}

func TestDevTLSCreatesVerifiableCertificates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	cfg, caPath, err := DevTLS(dir, []string{"ocv.test", "10.1.2.3"})
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "ca.pem"), caPath)
	require.Equal(t, uint16(tls.VersionTLS12), cfg.MinVersion)
	require.Equal(t, []string{"h2", "http/1.1"}, cfg.NextProtos)

	modes := map[string]os.FileMode{"": 0o700, "ca-key.pem": 0o600, "server-key.pem": 0o600, "ca.pem": 0o644}
	for name, want := range modes {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, want, fi.Mode().Perm(), "mode of %q", name)
	}

	roots, ca := caPool(t, caPath)
	require.True(t, ca.IsCA)
	require.True(t, ca.NotAfter.After(time.Now().AddDate(9, 11, 0)), "CA lasts ten years")
	leaf := devLeaf(t, cfg)
	require.True(t, leaf.NotAfter.Before(time.Now().Add(91*24*time.Hour)), "leaf lasts 90 days")
	for _, host := range []string{"localhost", "127.0.0.1", "::1", "ocv.test", "10.1.2.3"} {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host})
		require.NoError(t, err, "host %s", host)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "other.test"})
	require.Error(t, err)

	// A real handshake with a client that trusts only the dev CA.
	serverConn, clientConn := net.Pipe()
	defer serverConn.Close()
	defer clientConn.Close()
	srv := tls.Server(serverConn, cfg)
	done := make(chan error, 1)
	go func() { done <- srv.HandshakeContext(context.Background()) }()
	cli := tls.Client(clientConn, &tls.Config{RootCAs: roots, ServerName: "localhost", NextProtos: []string{"h2"}})
	require.NoError(t, cli.HandshakeContext(context.Background()))
	require.NoError(t, <-done)
	require.Equal(t, "h2", cli.ConnectionState().NegotiatedProtocol)
}

func TestDevTLSReuse(t *testing.T) {
	dir := t.TempDir()
	cfg1, caPath, err := DevTLS(dir, []string{"ocv.test"})
	require.NoError(t, err)
	_, ca1 := caPool(t, caPath)

	cases := map[string]struct {
		hosts     []string
		shift     time.Duration // clock moved forward
		wantReuse bool
	}{
		"same hosts":                {hosts: []string{"ocv.test"}, wantReuse: true},
		"same hosts other spelling": {hosts: []string{" OCV.test. ", "localhost", "ocv.test"}, wantReuse: true},
		"59 days later, 31 left":    {hosts: []string{"ocv.test"}, shift: 59 * 24 * time.Hour, wantReuse: true},
		"added host":                {hosts: []string{"ocv.test", "api.ocv.test"}},
		"removed host":              {hosts: nil},
		"expiring within 30 days":   {hosts: []string{"ocv.test"}, shift: 61 * 24 * time.Hour},
		"added IP":                  {hosts: []string{"ocv.test", "192.0.2.1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			setNow(t, time.Now().Add(tc.shift))
			cfg, path, err := DevTLS(dir, tc.hosts)
			require.NoError(t, err)
			require.Equal(t, caPath, path)
			_, ca := caPool(t, path)
			require.Equal(t, ca1.SerialNumber, ca.SerialNumber, "the CA is kept")
			got := devLeaf(t, cfg).SerialNumber.Cmp(devLeaf(t, cfg1).SerialNumber) == 0
			require.Equal(t, tc.wantReuse, got)
			// restore the original leaf for the next case
			restoreCfg, _, err := DevTLS(dir, []string{"ocv.test"})
			require.NoError(t, err)
			cfg1 = restoreCfg
		})
	}
}

func TestDevTLSRecreatesExpiringCA(t *testing.T) {
	dir := t.TempDir()
	cfg1, caPath, err := DevTLS(dir, nil)
	require.NoError(t, err)
	_, ca1 := caPool(t, caPath)

	setNow(t, ca1.NotAfter.Add(-60*24*time.Hour))
	cfg2, _, err := DevTLS(dir, nil)
	require.NoError(t, err)
	roots, ca2 := caPool(t, caPath)
	require.NotEqual(t, ca1.SerialNumber, ca2.SerialNumber)
	leaf := devLeaf(t, cfg2)
	require.NotEqual(t, devLeaf(t, cfg1).SerialNumber, leaf.SerialNumber)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", CurrentTime: now()})
	require.NoError(t, err)
}

func TestDevTLSErrors(t *testing.T) {
	cases := map[string]struct {
		hosts   []string
		prepare func(t *testing.T, dir string)
		wantErr error
	}{
		"fail host with space": {hosts: []string{"bad host"}, wantErr: ErrInvalidHost},
		"fail host with slash": {hosts: []string{"a/b"}, wantErr: ErrInvalidHost},
		"fail empty host":      {hosts: []string{""}, wantErr: ErrInvalidHost},
		"fail double wildcard": {hosts: []string{"*.*.ocv.test"}, wantErr: ErrInvalidHost},
		"wildcard host":        {hosts: []string{"*.ocv.test"}},
		"bracketed IPv6":       {hosts: []string{"[2001:db8::1]"}},
		"fail corrupt CA": {
			prepare: func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("junk"), 0o644))
			},
			wantErr: ErrInvalidDevCA,
		},
		// a CA whose key was lost must not be replaced behind the user's back
		"fail CA without key": {
			prepare: func(t *testing.T, dir string) {
				_, _, err := DevTLS(dir, nil)
				require.NoError(t, err)
				require.NoError(t, os.Remove(filepath.Join(dir, "ca-key.pem")))
			},
			wantErr: ErrInvalidDevCA,
		},
		"fail CA with a foreign key": {
			prepare: func(t *testing.T, dir string) {
				_, _, err := DevTLS(dir, nil)
				require.NoError(t, err)
				key, err := os.ReadFile(filepath.Join(dir, "server-key.pem"))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "ca-key.pem"), key, 0o600))
			},
			wantErr: ErrInvalidDevCA,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			_, _, err := DevTLS(dir, tc.hosts)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
	_, _, err := DevTLS("", nil)
	require.ErrorIs(t, err, ErrInvalidConfig)
}

func TestDevTLSConcurrentFirstUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	const n = 8
	serials := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cfg, caPath, err := DevTLS(dir, []string{"ocv.test"})
			if err != nil {
				t.Errorf("DevTLS: %v", err)
				return
			}
			ca, err := readCert(caPath)
			if err != nil {
				t.Errorf("reading CA: %v", err)
				return
			}
			roots := x509.NewCertPool()
			roots.AddCert(ca)
			if _, err := cfg.Certificates[0].Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "ocv.test"}); err != nil {
				t.Errorf("verifying leaf: %v", err)
			}
			serials[i] = ca.SerialNumber.String()
		})
	}
	wg.Wait()
	for _, s := range serials {
		require.Equal(t, serials[0], s, "every caller sees the same CA")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{".lock", "ca.pem", "ca-key.pem", "server.pem", "server-key.pem"}, names, "no temporary files left")
}
