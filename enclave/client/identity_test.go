package client_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
)

// TestWrongIdentityNeverServed: a client whose identity the enclave does
// not know never gets an attested channel, and says why.
func TestWrongIdentityNeverServed(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c, err := client.New(context.Background(), client.Config{Addr: e.addr, Validator: e.validator(t, testPCR0), Identity: mustIdentity(),
		PoolSize: 2, CallTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	require.Eventually(t, func() bool { return strings.HasPrefix(c.State().Reason, "peer proof: ") }, 30*time.Second, 5*time.Millisecond)
	require.Contains(t, c.State().Reason, "refused the proxy identity")
	require.False(t, c.State().Attested)
	_, err = c.Health(context.Background())
	require.ErrorIs(t, err, wire.ErrUnavailable)
}

func TestLoadIdentity(t *testing.T) {
	dir := t.TempDir()
	id := mustIdentity()
	pemFile := filepath.Join(dir, "id.pem")
	require.NoError(t, id.WriteFile(pemFile))
	require.Error(t, id.WriteFile(pemFile), "never overwrites a key")
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, mode))
		require.NoError(t, os.Chmod(p, mode))
		return p
	}
	seed := bytes.Repeat([]byte{3}, ed25519.SeedSize)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecDER, err := x509.MarshalPKCS8PrivateKey(ec)
	require.NoError(t, err)
	pemBytes, err := id.MarshalPEM()
	require.NoError(t, err)

	tests := map[string]struct {
		path    string
		wantPub ed25519.PublicKey
	}{
		"ok pem":                {pemFile, id.PublicKey()},
		"ok raw seed":           {write("seed", seed, 0o600), ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)},
		"ok owner read only":    {write("ro.pem", pemBytes, 0o400), id.PublicKey()},
		"fail group readable":   {write("g.pem", pemBytes, 0o640), nil},
		"fail world readable":   {write("w.pem", pemBytes, 0o644), nil},
		"fail missing":          {filepath.Join(dir, "none"), nil},
		"fail empty path":       {"", nil},
		"fail garbage":          {write("junk", []byte("not a key"), 0o600), nil},
		"fail seed too short":   {write("short", seed[:31], 0o600), nil},
		"fail not ed25519":      {write("ec.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), 0o600), nil},
		"fail wrong block type": {write("cert.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ecDER}), 0o600), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := client.LoadIdentity(tc.path)
			if tc.wantPub == nil {
				require.ErrorIs(t, err, client.ErrInvalidConfig)
				return
			}
			require.NoError(t, err)
			require.True(t, got.PublicKey().Equal(tc.wantPub))
		})
	}
}
