package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"path/filepath"
	"strings"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/internal/obs"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/chainrpc"
	"github.com/opencustody/ocv/proxy/edgetls"
	"github.com/opencustody/ocv/proxy/handlers"
	"github.com/opencustody/ocv/proxy/txwatch"
)

// Run serves the proxy until ctx ends, then shuts down gracefully: it stops
// accepting, finishes in-flight requests (bounded), flushes the audit log
// and closes the enclave channel and the database.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}

	validator, err := newValidator(cfg)
	if err != nil {
		return err
	}
	ec, err := client.New(ctx, client.Config{Addr: cfg.EnclaveAddr, Validator: validator, PoolSize: cfg.EnclavePoolSize,
		Logger: log.With("component", "enclave-client")})
	if err != nil {
		return fmt.Errorf("starting enclave client: %w", err)
	}
	defer ec.Close()
	enclave := enclaveAdapter{ec}

	verifier := auth.NewVerifier(enclave, db, append([]string{cfg.PublicURL}, cfg.LegacyIssuers...)...)
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	go keepRevocations(bg, db, verifier.Revoked, log)
	go keepAgentCutoffs(bg, db, verifier.Agents, log)
	if err := startIdentity(ctx, bg, cfg, db, verifier, log); err != nil {
		return err
	}

	audits := auditlog.NewCommitter(db, 2, 512)
	defer audits.Close()
	go auditlog.NewSealer(db, enclave, cfg.SealInterval, log.With("component", "audit-sealer")).Run(bg)

	openapi, err := api.JSON()
	if err != nil {
		return err
	}
	minter := auth.NewMinter(enclave, cfg.PublicURL, cfg.TokenTTL)
	minter.AgentTTL = cfg.AgentTokenTTL
	watchUserCutoffs(bg, db, verifier.Users, minter, log)
	mailer, err := newMailer(cfg, log.With("component", "mail"))
	if err != nil {
		return err
	}
	ipRules := newIPRuleCache(db, ipRuleCacheTTL)
	go keepIPRules(bg, db, ipRules, log)
	meter, err := startMetering(bg, cfg, db, log)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := meter.Close(closeCtx); err != nil {
			log.Warn("returning leased usage", "err", err)
		}
	}()
	chains := chainrpc.NewPool(chainrpc.Config{})
	defer chains.Close()
	h := handlers.New(handlers.Deps{Vaults: db, Accounts: db, Agents: db, Policies: db, Orgs: db, Shares: db,
		Hooks: db, Admin: db, Keys: db, Txs: db, Pinger: db, Enclave: enclave, Minter: minter,
		Verifier: verifier, OpenAPI: openapi, Identity: cfg.identity(), Mailer: mailer, IPRulesChanged: ipRules.Invalidate,
		Webhooks: cfg.webhookOptions(), Metering: meter, Resources: db, Tiers: cfg.Metering.Tiers, Chains: chains})
	if err := startWebhooks(bg, cfg, db, log.With("component", "webhooks")); err != nil {
		return err
	}
	go txwatch.New(db, chains, txwatch.Config{Interval: cfg.TxWatchInterval}, log.With("component", "txwatch")).Run(bg)
	metrics := obs.NewMetrics()
	metrics.Gauge("ocv_enclave_attested", func() float64 {
		if ec.State().Attested {
			return 1
		}
		return 0
	})
	metrics.Gauge("ocv_audit_queue_depth", func() float64 { return float64(audits.QueueDepth()) })
	srv := NewServer(cfg, log, h, audits, verifier, metrics, ipRules, Limits{Meter: meter, Idempotency: db})
	go sweepLimiter(bg, srv.limiter)
	if cfg.AdminListen != "" {
		go serveAdmin(bg, cfg.AdminListen, metrics, log)
	}

	tlsCfg, err := tlsConfig(ctx, cfg, db, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	hs := &http.Server{
		Handler:           srv,
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("proxy listening", "url", "https://"+ln.Addr().String(), "public_url", cfg.PublicURL, "tls_mode", cfg.TLSMode)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(tls.NewListener(ln, tlsCfg)) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("shutting down", "err", err)
	}
	return nil
}

func newValidator(cfg Config) (*nitro.Validator, error) {
	vc := nitro.Config{AllowedPCRs: map[uint][][]byte{}, MaxAge: cfg.AttestationMaxAge}
	for _, p := range cfg.AllowedPCR0 {
		b, _ := hex.DecodeString(strings.TrimSpace(p)) // checked by Validate
		vc.AllowedPCRs[0] = append(vc.AllowedPCRs[0], b)
	}
	for _, r := range cfg.AttestationRoots {
		if r == "aws-nitro" {
			vc.Roots = append(vc.Roots, nitro.AWSRoot())
			continue
		}
		root, err := loadRoot(r)
		if err != nil {
			return nil, err
		}
		vc.Roots = append(vc.Roots, root)
		vc.SimulatedRoots = true
	}
	return nitro.NewValidator(vc)
}

// loadRoot reads a root certificate; in simulator mode it may appear only
// once the enclave has started and made its CA, so wait briefly for it.
func loadRoot(path string) (*x509.Certificate, error) {
	var err error
	for i := 0; i < 300; i++ {
		var root *x509.Certificate
		if root, err = sim.LoadRoot(path); err == nil {
			return root, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, fmt.Errorf("loading attestation root %s: %w", path, err)
}

func tlsConfig(ctx context.Context, cfg Config, db *store.Store, log *slog.Logger) (*tls.Config, error) {
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

// keepRevocations keeps the replica's revocation set current: a full load
// at start and every minute, and every other replica's revocations as they
// happen through LISTEN/NOTIFY.
func keepRevocations(ctx context.Context, db *store.Store, set *auth.RevocationSet, log *slog.Logger) {
	load := func() {
		ids, err := db.RevokedTokens(ctx)
		if err != nil {
			log.Warn("loading revoked tokens", "err", err)
			return
		}
		set.Merge(ids, time.Now())
	}
	load()
	go func() {
		for ctx.Err() == nil {
			err := db.ListenRevocations(ctx, func(jti string) { set.Add(jti, time.Time{}) })
			if ctx.Err() != nil {
				return
			}
			log.Warn("revocation listener stopped; reconnecting", "err", err)
			load()
			time.Sleep(time.Second)
		}
	}()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			load()
			if err := db.PurgeExpiredRevocations(ctx); err != nil {
				log.Warn("purging revocations", "err", err)
			}
			if err := db.PurgeExpiredIdentity(ctx); err != nil {
				log.Warn("purging refresh tokens and invitations", "err", err)
			}
		}
	}
}

// keepAgentCutoffs keeps the agents' revocation cutoffs current like
// keepRevocations: a full load at start, on every (re)connection of the
// listener and every minute, and each replica's changes as announced.
func keepAgentCutoffs(ctx context.Context, db *store.Store, cutoffs *auth.AgentCutoffs, log *slog.Logger) {
	load := func() {
		all, err := db.AgentTokenCutoffs(ctx)
		if err != nil {
			log.Warn("loading agent token cutoffs", "err", err)
			return
		}
		cutoffs.Merge(all, time.Now().Add(-store.AgentCutoffWindow))
	}
	load()
	go func() {
		for ctx.Err() == nil {
			err := db.Listen(ctx, store.AgentTokensChannel, load, func(payload string) {
				if id, at, ok := store.ParseAgentCutoff(payload); ok {
					cutoffs.Set(id, at)
				}
			})
			if ctx.Err() != nil {
				return
			}
			log.Warn("agent token listener stopped; reconnecting", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			load()
		}
	}
}

// serveAdmin serves /metrics (Prometheus text format) and /debug/pprof on
// the admin listener, which must stay on a private interface.
func serveAdmin(ctx context.Context, addr string, m *obs.Metrics, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	log.Info("admin listener (metrics, pprof)", "addr", addr)
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("admin listener stopped", "err", err)
	}
}
