package enclave_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
)

// syncBuffer is a log sink the server writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rawSession dials e without proving an identity: its first MAC'd frame is
// whatever the test sends.
func (e *env) rawSession(t testing.TB, opts ...client.SessionOption) (*client.Session, error) {
	t.Helper()
	s, err := client.DialSession(context.Background(), e.addr, e.validator, opts...)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

// requireClosed checks that the enclave hung up: the next call fails.
func requireClosed(t *testing.T, s *client.Session) {
	t.Helper()
	_, _, err := s.Call(wire.OpHealth, nil)
	require.ErrorIs(t, err, wire.ErrUnavailable, "the enclave must close the connection")
}

func proofBody(t testing.TB, id *client.Identity, tr wire.PeerTranscript, edit func(*wire.PeerProof)) []byte {
	t.Helper()
	p, err := id.Sign(&tr)
	require.NoError(t, err)
	if edit != nil {
		edit(p)
	}
	return encode(t, p)
}

func TestPeerProof(t *testing.T) {
	logs := &syncBuffer{}
	e := newEnv(t, enclave.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	other := mustIdentity()
	tests := map[string]struct {
		// frame builds the session's first MAC'd frame (op and body).
		frame    func(t *testing.T, s *client.Session) (wire.Op, []byte)
		wantCode wire.Code
		wantLog  string
	}{
		"ok good key": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpAttest, proofBody(t, testIdentity, s.Transcript(), nil)
		}, wire.OK, "enclave peer authenticated"},
		"fail no proof, an operation": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpHealth, nil
		}, wire.Unauthenticated, "operation before the peer proof"},
		"fail no proof, signing claims": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpSignJWT, encode(t, &wire.SignJWTRequest{Claims: []byte(`{"sub":"x"}`)})
		}, wire.Unauthenticated, "operation before the peer proof"},
		"fail empty proof": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpAttest, nil
		}, wire.BadRequest, "malformed peer proof"},
		"fail no signature": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpAttest, proofBody(t, testIdentity, s.Transcript(), func(p *wire.PeerProof) { p.Signature = [64]byte{} })
		}, wire.Unauthenticated, "signature does not verify"},
		"fail wrong key": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpAttest, proofBody(t, other, s.Transcript(), nil)
		}, wire.Unauthenticated, "unknown proxy identity key"},
		"fail wrong key under the good key's id": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpAttest, proofBody(t, other, s.Transcript(), func(p *wire.PeerProof) { p.KeyID = testIdentity.KeyID() })
		}, wire.Unauthenticated, "signature does not verify"},
		"fail unknown key id": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			return wire.OpAttest, proofBody(t, testIdentity, s.Transcript(), func(p *wire.PeerProof) { p.KeyID[0] ^= 0xff })
		}, wire.Unauthenticated, "unknown proxy identity key"},
		// A proof the real proxy made for another session (its transcript
		// binds the other session's keys and nonce) is worth nothing here.
		"fail another session's proof": {func(t *testing.T, s *client.Session) (wire.Op, []byte) {
			a, err := e.rawSession(t)
			require.NoError(t, err)
			return wire.OpAttest, proofBody(t, testIdentity, a.Transcript(), nil)
		}, wire.Unauthenticated, "signature does not verify"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := e.rawSession(t)
			require.NoError(t, err)
			op, body := tc.frame(t, s)
			code, resp, err := s.Call(op, body)
			require.NoError(t, err)
			require.Equal(t, tc.wantCode, code)
			require.Empty(t, resp)
			require.Contains(t, logs.String(), tc.wantLog)
			if tc.wantCode != wire.OK {
				requireClosed(t, s)
				return
			}
			code, _, err = s.Call(wire.OpHealth, encode(t, &wire.HealthRequest{}))
			require.NoError(t, err)
			require.Equal(t, wire.OK, code, "served once the peer proved its identity")
		})
	}
	require.NotContains(t, logs.String(), "signature=", "the log names the key id only")
}

// TestPeerProofReplayedFrame: the proof frame of one session, replayed byte
// for byte on another, fails the other session's MAC.
func TestPeerProofReplayedFrame(t *testing.T) {
	e := newEnv(t)
	a, err := e.rawSession(t)
	require.NoError(t, err)
	frame, err := a.Frame(wire.OpAttest, proofBody(t, testIdentity, a.Transcript(), nil), time.Now())
	require.NoError(t, err)
	b, err := e.rawSession(t)
	require.NoError(t, err)
	code, err := b.SendRawFrame(frame)
	require.NoError(t, err)
	require.Equal(t, wire.Unauthenticated, code)
	requireClosed(t, b)
}

// TestPeerProofStale: a proof frame outside the freshness window is refused
// and the connection closed (not kept waiting for another proof).
func TestPeerProofStale(t *testing.T) {
	e := newEnv(t)
	s, err := e.rawSession(t)
	require.NoError(t, err)
	frame, err := s.Frame(wire.OpAttest, proofBody(t, testIdentity, s.Transcript(), nil), time.Now().Add(-time.Hour))
	require.NoError(t, err)
	code, err := s.SendRawFrame(frame)
	require.NoError(t, err)
	require.Equal(t, wire.Stale, code)
	requireClosed(t, s)
}

// TestPeerIdentityDial: DialSession and the client prove the identity they
// are given; another key is refused in the handshake.
func TestPeerIdentityDial(t *testing.T) {
	e := newEnv(t)
	_, err := e.rawSession(t, client.WithIdentity(mustIdentity()))
	require.ErrorIs(t, err, wire.ErrUnauthenticated)
	s := e.session(t)
	code, _, err := s.Call(wire.OpHealth, encode(t, &wire.HealthRequest{}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
}

// TestPeerIdentityRotation: with two keys configured, both are served.
func TestPeerIdentityRotation(t *testing.T) {
	next := mustIdentity()
	e := newEnvWith(t, func(c *enclave.Config) {
		c.ProxyIdentityKeys = []ed25519.PublicKey{testIdentity.PublicKey(), next.PublicKey()}
	})
	for _, id := range []*client.Identity{testIdentity, next} {
		s, err := e.rawSession(t, client.WithIdentity(id))
		require.NoError(t, err)
		code, _, err := s.Call(wire.OpHealth, encode(t, &wire.HealthRequest{}))
		require.NoError(t, err)
		require.Equal(t, wire.OK, code)
	}
}

// TestNoPeerKeyRefusedToStart: fail closed, in every mode.
func TestNoPeerKeyRefusedToStart(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.Listen = "unix://" + socketPath(t)
	cfg.ProxyIdentityKeys = nil
	_, err := enclave.New(context.Background(), cfg, e.ks, e.issuer)
	require.ErrorIs(t, err, enclave.ErrInvalidConfig)
}
