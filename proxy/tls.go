package proxy

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/edgetls"
)

// TLSConfig chooses the edge's TLS configuration: ACME (certificates kept
// in PostgreSQL, shared by every replica, maintained until ctx ends) in
// acme mode, else a certificate of the local development CA under
// data_dir/tls for the listen host and tls_hosts.
func TLSConfig(ctx context.Context, cfg Config, db *store.Store, log *slog.Logger) (*tls.Config, error) {
	if cfg.TLSMode == "acme" {
		return edgetls.ACME(ctx, edgetls.ACMEConfig{Domains: cfg.ACMEDomains, Email: cfg.ACMEEmail, CA: cfg.ACMECA, AgreeTerms: true},
			edgetls.NewPGStorage(db.Pool()), log.With("component", "acme"))
	}
	host, _, _ := net.SplitHostPort(cfg.Listen)
	tc, caPath, err := edgetls.DevTLS(filepath.Join(cfg.DataDir, "tls"), append([]string{host}, cfg.TLSHosts...))
	if err != nil {
		return nil, err
	}
	log.Info("dev TLS: trust this CA to call the proxy", "ca", caPath)
	return tc, nil
}
