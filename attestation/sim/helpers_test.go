package sim

import (
	"crypto/x509"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/nitro"
)

var (
	testKey   = []byte("0123456789abcdef0123456789abcdef") // stands in for an X25519 public key
	testNonce = []byte("fresh handshake nonce, 32 bytes.")
)

// newTestIssuer makes an issuer in a fresh directory.
func newTestIssuer(t testing.TB, now func() time.Time) *Issuer {
	t.Helper()
	iss, err := New(Config{Dir: t.TempDir(), Now: now})
	require.NoError(t, err)
	return iss
}

// validatorFor trusts root, allows the default PCR0 and reads the clock now.
func validatorFor(t testing.TB, root *x509.Certificate, now func() time.Time) *nitro.Validator {
	t.Helper()
	v, err := nitro.NewValidator(nitro.Config{
		Roots:          []*x509.Certificate{root},
		AllowedPCRs:    map[uint][][]byte{0: {defaultPCR(0)}},
		Now:            now,
		SimulatedRoots: true,
	})
	require.NoError(t, err)
	return v
}

// fakeClock is a concurrency-safe settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
