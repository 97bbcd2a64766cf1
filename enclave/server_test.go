package enclave_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/enclave/wire"
)

func TestSessionSealOpen(t *testing.T) {
	e := newEnv(t)
	s := e.session(t)
	require.Equal(t, e.srv.ChannelPublicKey(), s.Result().PublicKey)
	require.True(t, s.Result().Simulated)

	code, _, err := s.Call(wire.OpCreateKEK, encode(t, &wire.CreateKEKRequest{Token: kekOwnerToken(t, e.ks, "org"), OrgID: "org", VaultID: "v1"}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)

	code, body, err := s.Call(wire.OpSeal, encode(t, &wire.SealRequest{OrgID: "org", VaultID: "v1", Path: "p", SecretVersion: 1, Plaintext: []byte("pw")}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
	var sealed wire.SealResponse
	require.NoError(t, sealed.Decode(body))

	open := wire.OpenRequest{OrgID: "org", VaultID: "v1", Path: "p", SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}
	code, body, err = s.Call(wire.OpOpen, encode(t, &open))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
	var opened wire.OpenResponse
	require.NoError(t, opened.Decode(body))
	require.Equal(t, "pw", string(opened.Plaintext))

	open.Path = "q"
	code, body, err = s.Call(wire.OpOpen, encode(t, &open))
	require.NoError(t, err)
	require.Equal(t, wire.Integrity, code)
	require.Empty(t, body, "an error answer carries no data")
}

func TestFrameChecks(t *testing.T) {
	tests := map[string]struct {
		frame     func(t *testing.T, s sessionLike) []byte
		wantCode  wire.Code
		wantAlive bool
	}{
		"fail replayed frame": {
			frame:     func(t *testing.T, s sessionLike) []byte { okCall(t, s); return s.LastRequestFrame() },
			wantCode:  wire.Replay,
			wantAlive: true,
		},
		"fail stale timestamp": {
			frame: func(t *testing.T, s sessionLike) []byte {
				f, err := s.Frame(wire.OpHealth, nil, time.Now().Add(-wire.MaxClockSkew-time.Second))
				require.NoError(t, err)
				return f
			},
			wantCode:  wire.Stale,
			wantAlive: true,
		},
		"fail timestamp from the future": {
			frame: func(t *testing.T, s sessionLike) []byte {
				f, err := s.Frame(wire.OpHealth, nil, time.Now().Add(wire.MaxClockSkew+time.Second))
				require.NoError(t, err)
				return f
			},
			wantCode:  wire.Stale,
			wantAlive: true,
		},
		// Each edit below keeps the frame well-formed; only the MAC can catch it.
		"fail edited body": {
			frame:    func(t *testing.T, s sessionLike) []byte { return edit(t, s, wire.OpSignJWT, []byte(`{"a":1}`), -1) },
			wantCode: wire.Unauthenticated,
		},
		"fail edited op": {
			frame:    func(t *testing.T, s sessionLike) []byte { return edit(t, s, wire.OpHealth, nil, 5) },
			wantCode: wire.Unauthenticated,
		},
		"fail edited timestamp": {
			frame:    func(t *testing.T, s sessionLike) []byte { return edit(t, s, wire.OpHealth, nil, 23) },
			wantCode: wire.Unauthenticated,
		},
		"fail edited mac": {
			frame:    func(t *testing.T, s sessionLike) []byte { return edit(t, s, wire.OpHealth, nil, 40) },
			wantCode: wire.Unauthenticated,
		},
		"fail missing mac": {
			frame: func(t *testing.T, s sessionLike) []byte {
				f, err := s.Frame(wire.OpHealth, nil, time.Now())
				require.NoError(t, err)
				clear(f[40:72])
				return f
			},
			wantCode: wire.Unauthenticated,
		},
		"ok fresh frame": {
			frame: func(t *testing.T, s sessionLike) []byte {
				f, err := s.Frame(wire.OpHealth, nil, time.Now())
				require.NoError(t, err)
				return f
			},
			wantCode:  wire.OK,
			wantAlive: true,
		},
	}
	e := newEnv(t)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := e.session(t)
			code, err := s.SendRawFrame(tc.frame(t, s))
			require.NoError(t, err)
			require.Equal(t, tc.wantCode, code)
			_, _, err = s.Call(wire.OpHealth, nil)
			if tc.wantAlive {
				require.NoError(t, err, "the connection stays usable")
			} else {
				require.ErrorIs(t, err, wire.ErrUnavailable, "the enclave hangs up after a bad MAC")
			}
		})
	}
}

// sessionLike is the part of client.Session these tests use.
type sessionLike interface {
	Call(op wire.Op, body []byte) (wire.Code, []byte, error)
	Frame(op wire.Op, body []byte, at time.Time) ([]byte, error)
	LastRequestFrame() []byte
}

func okCall(t *testing.T, s sessionLike) {
	t.Helper()
	code, _, err := s.Call(wire.OpHealth, nil)
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
}

// edit builds a fresh frame and flips one byte: at index i, or the last
// byte when i < 0.
func edit(t *testing.T, s sessionLike, op wire.Op, body []byte, i int) []byte {
	t.Helper()
	f, err := s.Frame(op, body, time.Now())
	require.NoError(t, err)
	if i < 0 {
		i = len(f) - 1
	}
	f[i] ^= 0x01
	return f
}

func TestHandshakeRefusals(t *testing.T) {
	e := newEnv(t)
	attest := func(nonce, key []byte) []byte {
		return encode(t, &wire.AttestRequest{Nonce: nonce, ProxyPublicKey: key})
	}
	key := make([]byte, 32)
	key[0] = 9 // the X25519 base point: a valid public key
	tests := map[string]struct {
		op       wire.Op
		body     []byte
		wantCode wire.Code
	}{
		"fail first frame is not attest": {wire.OpOpen, nil, wire.BadRequest},
		"fail short nonce":               {wire.OpAttest, attest(make([]byte, 8), key), wire.BadRequest},
		"fail missing proxy key":         {wire.OpAttest, attest(make([]byte, 32), nil), wire.BadRequest},
		// The all-zero point would make the shared secret zero.
		"fail low-order proxy key": {wire.OpAttest, attest(make([]byte, 32), make([]byte, 32)), wire.BadRequest},
		"ok attest":                {wire.OpAttest, attest(make([]byte, 32), key), wire.OK},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h, _ := rawExchange(t, e.addr, tc.op, tc.body)
			require.Equal(t, tc.wantCode, h.Code)
		})
	}
}

// rawExchange sends one unMAC'd frame on a new connection and reads the
// answer.
func rawExchange(t *testing.T, addr string, op wire.Op, body []byte) (wire.Header, []byte) {
	t.Helper()
	nc, err := net.Dial("unix", strings.TrimPrefix(addr, "unix://"))
	require.NoError(t, err)
	defer nc.Close()
	h := wire.Header{Version: wire.ProtocolVersion, Op: op, Timestamp: time.Now().UnixMilli()}
	frame, err := wire.AppendFrame(nil, &h, body)
	require.NoError(t, err)
	_, err = nc.Write(frame)
	require.NoError(t, err)
	got, gotBody, err := wire.NewFrameReader(nc).Next(wire.MaxBodySize)
	require.NoError(t, err)
	require.True(t, got.IsResponse())
	return got, gotBody
}

func TestAttesterDown(t *testing.T) {
	e := newEnv(t)
	e.stop(t)
	srv, err := enclave.New(context.Background(), enclave.Config{Issuer: "https://ocv.test", TokenLifetimes: wire.DefaultTokenLifetimes(), Listen: e.addr, Mode: wire.ModeSimulated, ProxyIdentityKeys: e.cfg.ProxyIdentityKeys}, e.ks, failingIssuer{})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background()) }()
	defer func() { require.NoError(t, srv.Close()); require.NoError(t, <-done) }()

	key := make([]byte, 32)
	key[0] = 9
	h, _ := rawExchange(t, e.addr, wire.OpAttest, encode(t, &wire.AttestRequest{Nonce: make([]byte, 32), ProxyPublicKey: key}))
	require.Equal(t, wire.Unavailable, h.Code)
}

func TestParallelSessions(t *testing.T) {
	e := newEnv(t)
	s0 := e.session(t)
	code, _, err := s0.Call(wire.OpCreateKEK, encode(t, &wire.CreateKEKRequest{Token: kekOwnerToken(t, e.ks, "o"), OrgID: "o", VaultID: "v"}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		s := e.session(t)
		wg.Go(func() {
			for j := range 20 {
				pt := fmt.Sprintf("value-%d-%d", i, j)
				_, body, err := s.Call(wire.OpSeal, encode(t, &wire.SealRequest{OrgID: "o", VaultID: "v", Path: "p", Plaintext: []byte(pt)}))
				if err != nil {
					errs <- err
					return
				}
				var sealed wire.SealResponse
				if err := sealed.Decode(body); err != nil {
					errs <- err
					return
				}
				_, body, err = s.Call(wire.OpOpen, encode(t, &wire.OpenRequest{OrgID: "o", VaultID: "v", Path: "p", WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}))
				var opened wire.OpenResponse
				if err == nil {
					err = opened.Decode(body)
				}
				if err == nil && string(opened.Plaintext) != pt {
					err = fmt.Errorf("session %d: wrong plaintext", i)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestCloseWithIdleConnections(t *testing.T) {
	e := newEnv(t, enclave.WithShutdownGrace(time.Minute))
	s := e.session(t)
	okCall(t, s)
	e.stop(t) // must not wait for the idle session
	_, _, err := s.Call(wire.OpHealth, nil)
	require.ErrorIs(t, err, wire.ErrUnavailable)
}

func TestListenRefusesLiveSocket(t *testing.T) {
	e := newEnv(t)
	_, err := enclave.New(context.Background(), enclave.Config{Issuer: "https://ocv.test", TokenLifetimes: wire.DefaultTokenLifetimes(), Listen: e.addr, Mode: wire.ModeSimulated, ProxyIdentityKeys: e.cfg.ProxyIdentityKeys}, e.ks, e.issuer)
	require.ErrorIs(t, err, enclave.ErrAddressInUse)
}

func TestServeStopsWithContext(t *testing.T) {
	e := newEnv(t)
	e.stop(t)
	srv, err := enclave.New(context.Background(), enclave.Config{Issuer: "https://ocv.test", TokenLifetimes: wire.DefaultTokenLifetimes(), Listen: e.addr, Mode: wire.ModeSimulated, ProxyIdentityKeys: e.cfg.ProxyIdentityKeys}, e.ks, e.issuer)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	cancel()
	require.NoError(t, <-done)
	require.NoError(t, srv.Close())
}
