package enclave

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/keyvault"
)

// Server is the enclave's listener and session handler. It is safe for
// concurrent use.
type Server struct {
	cfg     Config
	opts    options
	log     *slog.Logger
	ln      net.Listener
	handler *ops.Handler
	priv    *ecdh.PrivateKey
	pub     []byte

	// baseCtx is the context of every operation; it is cancelled only when
	// the shutdown grace period is over.
	baseCtx    context.Context
	cancelBase context.CancelFunc

	mu      sync.Mutex
	closing bool
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
	nextID  atomic.Uint64

	closeOnce sync.Once
	closeErr  error
}

// New prepares a Server: it makes the ephemeral X25519 channel key, makes
// sure the token-signing key exists in keystore (creating version 1 as
// P-256 when there is none) and so does the policy-set MAC key (an
// HMAC-SHA256 key, ops.PolicyMACKeyID), and starts listening on cfg.Listen.
// keystore must implement keyvault.KeyWrapper and keyvault.MACer. Serve
// accepts connections; Close releases everything but keystore, which stays
// the caller's.
func New(ctx context.Context, cfg Config, keystore keyvault.KeyStore, issuer attestation.Issuer, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if keystore == nil || issuer == nil {
		return nil, fmt.Errorf("%w: a key store and an attestation issuer are required", ErrInvalidConfig)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating channel key: %w", err)
	}
	pub := priv.PublicKey().Bytes()
	handler, err := ops.New(ctx, keystore, issuer, pub, ops.Config{Mode: cfg.Mode, DEKCacheSize: cfg.DEKCacheSize, Now: o.now,
		RequireCallerToken: cfg.RequireCallerToken, Issuer: cfg.Issuer, LegacyIssuers: cfg.LegacyIssuers, TokenLifetimes: cfg.TokenLifetimes,
		FloorRefresh: cfg.FloorRefresh})
	if err != nil {
		return nil, fmt.Errorf("preparing operations: %w", err)
	}
	ln, err := listen(cfg.Listen)
	if err != nil {
		handler.Close()
		return nil, err
	}
	baseCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Server{
		cfg: cfg, opts: o, log: o.logger, ln: ln, handler: handler, priv: priv, pub: pub,
		baseCtx: baseCtx, cancelBase: cancel, conns: make(map[net.Conn]struct{}),
	}
	s.log.Info("enclave listening", "listen", cfg.Listen, "mode", cfg.Mode, "jwt_kid", handler.KID(), "require_caller_token", cfg.RequireCallerToken,
		"token_issuer", cfg.Issuer, "token_ttl", cfg.TokenLifetimes.User.String(), "agent_token_ttl", cfg.TokenLifetimes.Agent.String(),
		"proxy_identity_keys", peerKeyIDs(cfg.ProxyIdentityKeys))
	if !cfg.RequireCallerToken {
		s.log.Warn("enclave opens and seals without a caller token: transitional setting, never for production")
	}
	return s, nil
}

// Addr is the listener's address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// ChannelPublicKey is the enclave's X25519 channel public key, as bound
// into its attestation documents.
func (s *Server) ChannelPublicKey() []byte { return append([]byte(nil), s.pub...) }

// Serve accepts connections until ctx is done or Close is called, then
// closes the server gracefully. It returns nil after a graceful close.
func (s *Server) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = s.Close() })
	defer stop()
	var delay time.Duration
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if s.isClosing() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Temporary failures (out of file descriptors): back off.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.log.Warn("enclave accept failed", "error", err.Error(), "retry_in", delay.String())
			select {
			case <-time.After(delay):
				continue
			case <-ctx.Done():
				return nil
			}
		}
		delay = 0
		if !s.track(nc) {
			_ = nc.Close()
			return nil
		}
		id := s.nextID.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.untrack(nc)
			s.serveConn(nc, id)
		}()
	}
}

// track registers a connection unless the server is closing.
func (s *Server) track(nc net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[nc] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(nc net.Conn) {
	s.mu.Lock()
	delete(s.conns, nc)
	s.mu.Unlock()
	_ = nc.Close()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// setReadDeadline sets a connection's read deadline, unless the server is
// closing, in which case it wakes the reader at once. Going through the
// lock keeps a handler from undoing Close's wake-up.
func (s *Server) setReadDeadline(nc net.Conn, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		t = time.Unix(1, 0)
	}
	_ = nc.SetReadDeadline(t)
}

// Close stops accepting, lets in-flight requests finish (bounded by the
// shutdown grace), closes every connection, zeroises cached data keys and
// removes the Unix socket. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		if err := s.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			s.closeErr = fmt.Errorf("closing listener: %w", err)
		}
		// Idle connections wake up now; busy ones after their response.
		for nc := range s.conns {
			_ = nc.SetReadDeadline(time.Unix(1, 0))
		}
		s.mu.Unlock()

		done := make(chan struct{})
		go func() { s.wg.Wait(); close(done) }()
		timer := time.NewTimer(s.opts.shutdownGrace)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			s.cancelBase()
			s.mu.Lock()
			for nc := range s.conns {
				_ = nc.Close()
			}
			s.mu.Unlock()
			<-done
		}
		s.cancelBase()
		s.handler.Close()
		s.log.Info("enclave closed")
	})
	return s.closeErr
}
