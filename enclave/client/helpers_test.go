package client_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault/memstore"
)

var testPCR0 = bytes.Repeat([]byte{0x6b}, 48)

// testIdentity is the proxy identity every test enclave is configured with.
var testIdentity = mustIdentity()

func mustIdentity() *client.Identity {
	id, err := client.GenerateIdentity()
	if err != nil {
		panic(err)
	}
	return id
}

// env is an enclave (memstore, simulator attester) on a Unix socket that
// tests can stop and start again on the same path.
type env struct {
	addr   string
	ks     *memstore.Store
	issuer *sim.Issuer
	srv    *enclave.Server
	done   chan error
	// requireToken is the server's RequireCallerToken.
	requireToken bool
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir, err := os.MkdirTemp("", "ocv-cli") // Unix socket paths are short
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	ks, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Close() })
	iss, err := sim.New(sim.Config{Dir: filepath.Join(dir, "ca"), PCRs: map[uint][]byte{0: testPCR0}})
	require.NoError(t, err)
	e := &env{addr: "unix://" + filepath.Join(dir, "e.sock"), ks: ks, issuer: iss}
	t.Cleanup(func() { e.stop(t) })
	return e
}

func (e *env) start(t testing.TB) {
	t.Helper()
	srv, err := enclave.New(context.Background(), enclave.Config{Issuer: "https://ocv.test", TokenLifetimes: wire.DefaultTokenLifetimes(), Listen: e.addr, DEKCacheSize: 4096, Mode: wire.ModeSimulated, RequireCallerToken: e.requireToken,
		ProxyIdentityKeys: []ed25519.PublicKey{testIdentity.PublicKey()}}, e.ks, e.issuer)
	require.NoError(t, err)
	e.srv, e.done = srv, make(chan error, 1)
	go func() { e.done <- srv.Serve(context.Background()) }()
}

func (e *env) stop(t testing.TB) {
	t.Helper()
	if e.srv == nil {
		return
	}
	require.NoError(t, e.srv.Close())
	require.NoError(t, <-e.done)
	e.srv = nil
}

// validator trusts the simulator root and allows pcr0.
func (e *env) validator(t testing.TB, pcr0 []byte) *nitro.Validator {
	t.Helper()
	v, err := nitro.NewValidator(nitro.Config{
		Roots: []*x509.Certificate{e.issuer.Root()}, AllowedPCRs: map[uint][][]byte{0: {pcr0}}, SimulatedRoots: true,
	})
	require.NoError(t, err)
	return v
}

func (e *env) client(t testing.TB, pcr0 []byte) *client.Client {
	t.Helper()
	c, err := client.New(context.Background(), client.Config{Addr: e.addr, Validator: e.validator(t, pcr0), Identity: testIdentity, PoolSize: 4, CallTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// waitAttested waits for the background loop (not a timing assertion: the
// bound only keeps a broken test from hanging).
func waitAttested(t testing.TB, c *client.Client) {
	t.Helper()
	require.Eventually(t, func() bool { return c.State().Attested }, 30*time.Second, 5*time.Millisecond, "never attested")
}
