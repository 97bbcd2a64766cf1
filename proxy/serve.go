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

// Serve serves hs over TLS (hs.TLSConfig) on ln, HTTP/2 with the limits of
// configureHTTP2 (h2guard.go), until ctx ends, then shuts it down gracefully: it stops accepting and waits up to ShutdownTimeout
// for the requests in flight. It returns nil after a shutdown, and the
// error that stopped serving otherwise; either way its serving goroutine
// has returned.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, log *slog.Logger) error {
	if err := configureHTTP2(hs, log); err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(tls.NewListener(ln, hs.TLSConfig)) }()
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
