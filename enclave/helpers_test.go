package enclave_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault/memstore"
)

var testPCR0 = bytes.Repeat([]byte{0x5a}, 48)

// testIdentity is the proxy identity every test enclave is configured with.
var testIdentity = mustIdentity()

func mustIdentity() *client.Identity {
	id, err := client.GenerateIdentity()
	if err != nil {
		panic(err)
	}
	return id
}

// env is a running enclave on a Unix socket with memstore and the
// simulator attester, and a validator that trusts it.
type env struct {
	addr      string
	cfg       enclave.Config
	srv       *enclave.Server
	ks        *memstore.Store
	issuer    attestation.Issuer
	validator attestation.Validator
	serveErr  chan error
}

// socketPath is short: Unix socket paths are limited to 108 bytes.
func socketPath(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ocv-enc")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "e.sock")
}

func newEnv(t testing.TB, opts ...enclave.Option) *env {
	t.Helper()
	return newEnvWith(t, nil, opts...)
}

// newEnvWith is newEnv with the server Config edited by edit.
func newEnvWith(t testing.TB, edit func(*enclave.Config), opts ...enclave.Option) *env {
	t.Helper()
	ks, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Close() })
	iss, err := sim.New(sim.Config{Dir: t.TempDir(), PCRs: map[uint][]byte{0: testPCR0}})
	require.NoError(t, err)
	v, err := nitro.NewValidator(nitro.Config{
		Roots: []*x509.Certificate{iss.Root()}, AllowedPCRs: map[uint][][]byte{0: {testPCR0}}, SimulatedRoots: true,
	})
	require.NoError(t, err)
	e := &env{addr: "unix://" + socketPath(t), ks: ks, issuer: iss, validator: v}
	e.cfg = enclave.Config{Issuer: "https://ocv.test", TokenLifetimes: wire.DefaultTokenLifetimes(), Listen: e.addr, DEKCacheSize: 64, Mode: wire.ModeSimulated,
		ProxyIdentityKeys: []ed25519.PublicKey{testIdentity.PublicKey()}}
	if edit != nil {
		edit(&e.cfg)
	}
	e.start(t, opts...)
	return e
}

// start runs a server on e.addr (again, after a stop).
func (e *env) start(t testing.TB, opts ...enclave.Option) {
	t.Helper()
	srv, err := enclave.New(context.Background(), e.cfg, e.ks, e.issuer, opts...)
	require.NoError(t, err)
	e.srv = srv
	e.serveErr = make(chan error, 1)
	go func() { e.serveErr <- srv.Serve(context.Background()) }()
	t.Cleanup(func() { e.stop(t) })
}

var stopMu sync.Mutex

func (e *env) stop(t testing.TB) {
	t.Helper()
	stopMu.Lock()
	defer stopMu.Unlock()
	if e.srv == nil {
		return
	}
	require.NoError(t, e.srv.Close())
	require.NoError(t, <-e.serveErr)
	e.srv = nil
}

func (e *env) session(t testing.TB) *client.Session {
	t.Helper()
	s, err := client.DialSession(context.Background(), e.addr, e.validator, client.WithIdentity(testIdentity))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func encode(t testing.TB, m wire.Message) []byte {
	t.Helper()
	b, err := m.Append(nil)
	require.NoError(t, err)
	return b
}

// failingIssuer stands in for an attester that is down.
type failingIssuer struct{}

func (failingIssuer) Issue(context.Context, []byte, []byte) ([]byte, error) {
	return nil, errors.New("nsm unavailable")
}
