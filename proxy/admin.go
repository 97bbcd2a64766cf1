package proxy

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/opencustody/ocv/internal/obs"
)

// AdminHandler serves /metrics (Prometheus text format) and /debug/pprof.
func AdminHandler(m *obs.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	return mux
}

// ServeAdmin serves AdminHandler on addr, which must stay on a private
// interface, until ctx ends; then it closes the listener and its
// connections. A listener that fails is logged and the proxy goes on
// without it: ServeAdmin always returns nil, once its serving goroutine
// has returned.
func ServeAdmin(ctx context.Context, addr string, m *obs.Metrics, log *slog.Logger) error {
	hs := &http.Server{Addr: addr, Handler: AdminHandler(m), ReadHeaderTimeout: 5 * time.Second}
	log.Info("admin listener (metrics, pprof)", "addr", addr)
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		_ = hs.Close()
		err = <-errc
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("admin listener stopped", "err", err)
	}
	return nil
}
