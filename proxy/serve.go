package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout bounds how long a shutdown waits for requests in flight.
const ShutdownTimeout = 30 * time.Second

// NewHTTPServer returns the HTTPS server of h: the proxy's timeouts and
// header limit, TLS from tc, and net/http's own errors logged as warnings.
func NewHTTPServer(h http.Handler, tc *tls.Config, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		TLSConfig:         tc,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// ServeOption changes how Serve serves.
type ServeOption func(*serveOptions)

type serveOptions struct {
	exempt trustedProxies
}

// PenaltyExempt names the reverse proxies in front of OCV (CIDRs or
// addresses, as the trusted_proxies setting): a client that abuses HTTP/2
// has its new connections refused for a while (penaltybox.go), but not when
// it connects through one of these, which carry many clients.
func PenaltyExempt(list []string) (ServeOption, error) {
	t, err := parseTrustedProxies(list)
	if err != nil {
		return nil, err
	}
	return func(o *serveOptions) { o.exempt = t }, nil
}

// Serve serves hs over TLS (hs.TLSConfig) on ln, HTTP/2 with the limits of
// configureHTTP2 (h2guard.go) and the penalty box (penaltybox.go), until ctx ends, then shuts it down gracefully: it stops accepting and waits up to ShutdownTimeout
// for the requests in flight. It returns nil after a shutdown, and the
// error that stopped serving otherwise; either way its serving goroutine
// has returned.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, log *slog.Logger, opts ...ServeOption) error {
	var o serveOptions
	for _, opt := range opts {
		opt(&o)
	}
	box := newPenaltyBox(o.exempt, time.Now, log)
	if err := configureHTTP2(hs, log, box); err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(tls.NewListener(penaltyListener{Listener: ln, box: box}, hs.TLSConfig)) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("shutting down", "err", err)
	}
	<-errc // http.ErrServerClosed, at once: Shutdown closed the listener first
	return nil
}
