package edgetls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http/httptest"
	"testing"

	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"
	"github.com/stretchr/testify/require"
)

// startPebble runs an in-process pebble ACME server whose validation
// authority checks HTTP-01 on httpPort. It returns the directory URL, the
// PEM of the server's TLS certificate and the CA issuing certificates.
func startPebble(t *testing.T, httpPort int) (string, []byte, *ca.CAImpl) {
	t.Helper()
	t.Setenv("PEBBLE_VA_NOSLEEP", "1") // read by va.New: validate at once
	logger := log.New(io.Discard, "", 0)
	store := db.NewMemoryStore()
	authority := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{"default": {Description: "default"}})
	validator := va.New(logger, httpPort, 0, false, "", store)
	front := wfe.New(logger, store, validator, authority, nil, false, false, 0, 0)
	srv := httptest.NewTLSServer(front.Handler())
	t.Cleanup(srv.Close)
	roots := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv.URL + wfe.DirectoryPath, roots, authority
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

func TestACMEObtainsCertificateWithPebble(t *testing.T) {
	poolCfg := testPoolConfig(t)
	storage := NewPGStorage(newTestPool(t, poolCfg))
	httpPort := freePort(t)
	dir, roots, authority := startPebble(t, httpPort)
	cfg := ACMEConfig{
		Domains:                 []string{"localhost"},
		Email:                   "ops@example.com",
		CA:                      dir,
		TestCA:                  dir,
		RootsPEM:                roots,
		AgreeTerms:              true,
		AltHTTPPort:             httpPort,
		DisableTLSALPNChallenge: true,
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tlsCfg, err := ACME(ctx, cfg, storage, logger)
	require.NoError(t, err)
	require.Equal(t, uint16(tls.VersionTLS12), tlsCfg.MinVersion)
	require.Equal(t, []string{"h2", "http/1.1", "acme-tls/1"}, tlsCfg.NextProtos)

	cert, err := tlsCfg.GetCertificate(&tls.ClientHelloInfo{ServerName: "localhost"})
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	require.NoError(t, err)
	pebbleRoots := x509.NewCertPool()
	pebbleRoots.AddCert(authority.GetRootCert(0).Cert)
	inter := x509.NewCertPool()
	for _, der := range cert.Certificate[1:] {
		c, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		inter.AddCert(c)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pebbleRoots, Intermediates: inter, DNSName: "localhost"})
	require.NoError(t, err)

	keys, err := storage.List(context.Background(), "certificates", true)
	require.NoError(t, err)
	require.NotEmpty(t, keys, "the certificate is in PostgreSQL")

	// A second manager (another replica) loads the same certificate from
	// storage instead of obtaining a new one.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	tlsCfg2, err := ACME(ctx2, cfg, NewPGStorage(newTestPool(t, poolCfg)), logger)
	require.NoError(t, err)
	cert2, err := tlsCfg2.GetCertificate(&tls.ClientHelloInfo{ServerName: "localhost"})
	require.NoError(t, err)
	require.Equal(t, cert.Certificate[0], cert2.Certificate[0])
}
