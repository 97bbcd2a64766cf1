package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/opencustody/ocv/enclave/client"
	enclavewire "github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/obs"
	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/chainrpc"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/secretcache"
	"github.com/opencustody/ocv/proxy/txwatch"
)

// wire builds the proxy on s in dependency order: what it opens closes
// after the group has returned (in reverse order), each background loop
// starts as soon as what it keeps is built, and the HTTPS server last. On
// an error, what was built so far is left to s.wait.
func wire(ctx context.Context, cfg proxy.Config, log *slog.Logger, s *stack) error {
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return err
	}
	s.onClose(db.Close)
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	// One clock for expiry decisions: the database's (docs/architecture.md, "Clocks").
	clock, err := db.NewClock(ctx)
	if err != nil {
		return err
	}
	s.loop(func(ctx context.Context) error {
		clock.Run(ctx, db, store.ClockSyncInterval, func(err error) { log.Warn("reading the database's clock", "err", err) })
		return nil
	})

	validator, err := proxy.NewValidator(cfg)
	if err != nil {
		return err
	}
	identity, err := client.LoadIdentity(cfg.ProxyIdentityKey)
	if err != nil {
		return err
	}
	log.Info("proxy identity loaded", "proxy_key_id", identity.KeyID().String())
	ec, err := client.New(ctx, client.Config{Addr: cfg.EnclaveAddr, Validator: validator, Identity: identity, PoolSize: cfg.EnclavePoolSize,
		Logger: log.With("component", "enclave-client")})
	if err != nil {
		return fmt.Errorf("starting enclave client: %w", err)
	}
	s.onClose(func() { _ = ec.Close() })
	enclave := proxy.EnclaveAdapter{Client: ec}

	// Authentication: revocations, agent cut-offs and API keys stay
	// current across replicas.
	verifier := auth.NewVerifier(enclave, db, append([]string{cfg.PublicURL}, cfg.LegacyIssuers...)...)
	verifier.Principals = db
	verifier.Lifetimes = enclavewire.TokenLifetimes{User: cfg.TokenTTL, Agent: cfg.AgentTokenTTL}
	s.loop(func(ctx context.Context) error { return proxy.KeepRevocations(ctx, db, verifier.Revoked, log) })
	s.loop(func(ctx context.Context) error { return proxy.KeepAgentCutoffs(ctx, db, verifier.Agents, log) })
	// Tokens are minted by the enclave, from the identity records it sealed.
	minter := auth.NewMinter(enclave, db)
	if err := bootstrapAdmin(ctx, cfg, db, minter, log); err != nil {
		return err
	}
	apiKeys := proxy.NewAPIKeyVerifier(db)
	verifier.APIKeys = apiKeys
	verifier.UseClock(clock.Now)
	s.loop(func(ctx context.Context) error { return proxy.KeepAPIKeyRevocations(ctx, db, apiKeys, log) })

	audits := auditlog.NewCommitter(db, 1, 512)
	s.onClose(audits.Close) // flushes the events of the last requests
	metrics := newMetrics(ec, audits)
	heads, err := headSinks(cfg)
	if err != nil {
		return err
	}
	sealer := auditlog.NewSealer(db, enclave, heads, cfg.SealInterval, log.With("component", "audit-sealer"))
	sealer.Failures = metrics.Counter("ocv_audit_head_failures_total")
	s.loop(quiet(sealer.Run))

	proxy.HookUserCutoffs(ctx, db, verifier.Users, minter, log)
	s.loop(func(ctx context.Context) error { return proxy.KeepUserCutoffs(ctx, db, verifier.Users, log) })
	mailer, err := proxy.NewMailer(cfg, log.With("component", "mail"))
	if err != nil {
		return err
	}
	ipRules := proxy.NewIPRuleCache(db, proxy.IPRuleCacheTTL)
	s.loop(func(ctx context.Context) error { return proxy.KeepIPRules(ctx, db, ipRules, log) })
	meter, err := proxy.NewMeter(cfg, db, metering.WithClock(clock.Now))
	if err != nil {
		return err
	}
	s.onClose(func() { returnLeases(ctx, meter, log) })
	s.loop(func(ctx context.Context) error { return proxy.KeepMetering(ctx, meter, db, log) })
	chains := chainrpc.NewPool(chainrpc.Config{Egress: cfg.Egress()})
	s.onClose(chains.Close)
	h, err := newHandlers(cfg, db, clock, enclave, minter, verifier, mailer, ipRules, meter, chains)
	if err != nil {
		return err
	}
	h.Vaults = sealedSecrets(cfg, db, metrics, log, s)
	webhooks, err := proxy.NewWebhookWorker(cfg, db, log.With("component", "webhooks"))
	if err != nil {
		return err
	}
	webhooks.CountDeadLetters(metrics.Counter("ocv_webhook_delivery_dead_letter_total"))
	s.loop(quiet(webhooks.Run))
	s.loop(quiet(txwatch.New(db, chains, txwatch.Config{Interval: cfg.TxWatchInterval}, log.With("component", "txwatch")).Run))

	srv := proxy.NewServer(cfg, log, h, audits, verifier, metrics, ipRules, proxy.Limits{Meter: meter, Idempotency: db})
	s.loop(srv.SweepLimiter)
	if cfg.AdminListen != "" {
		s.loop(func(ctx context.Context) error { return proxy.ServeAdmin(ctx, cfg.AdminListen, metrics, log) })
	}

	tlsCfg, err := proxy.TLSConfig(ctx, cfg, db, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	exempt, err := proxy.PenaltyExempt(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	hs := proxy.NewHTTPServer(srv, tlsCfg, log)
	log.Info("proxy listening", "url", "https://"+ln.Addr().String(), "public_url", cfg.PublicURL, "tls_mode", cfg.TLSMode)
	s.serve(func(ctx context.Context) error { return proxy.Serve(ctx, hs, ln, log, exempt) })
	return nil
}

// newMetrics is the admin listener's registry with the enclave channel's
// and the audit queue's gauges.
func newMetrics(ec *client.Client, audits *auditlog.Committer) *obs.Metrics {
	m := obs.NewMetrics()
	m.Gauge("ocv_enclave_attested", func() float64 {
		if ec.State().Attested {
			return 1
		}
		return 0
	})
	m.Gauge("ocv_audit_queue_depth", func() float64 { return float64(audits.QueueDepth()) })
	return m
}

// sealedSecrets is the store with secret reads served from the replica's
// cache of sealed secrets, kept fresh by polling the database's log of
// secret changes; its hit rate is in the metrics.
func sealedSecrets(cfg proxy.Config, db *store.Store, m *obs.Metrics, log *slog.Logger, s *stack) secretcache.Vaults {
	c := secretcache.New(secretcache.Config{MaxEntries: cfg.SecretCache.Entries, MaxBytes: cfg.SecretCache.Bytes, TTL: cfg.SecretCache.TTL,
		MaxLag: cfg.SecretCache.MaxLag(), Hits: m.Counter("ocv_secret_cache_hits_total"), Misses: m.Counter("ocv_secret_cache_misses_total"),
		Evictions: m.Counter("ocv_secret_cache_evictions_total"), Invalidations: m.Counter("ocv_secret_cache_invalidations_total")})
	m.Gauge("ocv_secret_cache_entries", func() float64 { n, _ := c.Len(); return float64(n) })
	m.Gauge("ocv_secret_cache_bytes", func() float64 { _, b := c.Len(); return float64(b) })
	log = log.With("component", "secret-cache")
	s.loop(func(ctx context.Context) error {
		return secretcache.Run(ctx, secretcache.StoreFeed(db), c, cfg.SecretCache.Poll, log)
	})
	return secretcache.Vaults{Store: db, Cache: c}
}

// returnLeases gives the meter's unused leased calls back, within 10 s
// even when ctx has ended.
func returnLeases(ctx context.Context, meter *metering.Meter, log *slog.Logger) {
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := meter.Close(closeCtx); err != nil {
		log.Warn("returning leased usage", "err", err)
	}
}

// bootstrapAdmin makes the configured platform administrator. Its identity
// records are sealed by the enclave, so it waits (up to two minutes) for
// the channel to attest at start instead of failing on the first try.
func bootstrapAdmin(ctx context.Context, cfg proxy.Config, db *store.Store, minter *auth.Minter, log *slog.Logger) error {
	deadline := time.Now().Add(2 * time.Minute)
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		err := proxy.BootstrapAdmin(ctx, cfg, db, minter, log)
		if err == nil || !errors.Is(err, enclavewire.ErrUnavailable) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// headSinks are the external audit head sinks: the directory, the bucket
// or both, as configured.
func headSinks(cfg proxy.Config) (auditlog.Sinks, error) {
	var sinks auditlog.Sinks
	if cfg.AuditHeadsDir != "" {
		d, err := auditlog.NewDirSink(cfg.AuditHeadsDir)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, d)
	}
	if cfg.AuditHeadsURL != "" {
		c, err := s3lite.New(cfg.AuditHeadsS3())
		if err != nil {
			return nil, fmt.Errorf("audit heads bucket: %w", err)
		}
		b, err := auditlog.NewS3Sink(c, cfg.AuditHeadsURL)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, b)
	}
	return sinks, nil
}
