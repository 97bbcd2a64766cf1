package proxy

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store/storetest"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

// TestLoopsReturnWithTheirListeners runs every background loop the proxy
// exports against PostgreSQL, ends their context and checks that each
// returns nil promptly and that the pool then closes at once (pgxpool's
// Close waits for every connection to come back).
func TestLoopsReturnWithTheirListeners(t *testing.T) {
	db := storetest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := DefaultConfig()
	cfg.PublicURL = "https://ocv.example"
	verifier := auth.NewVerifier(nil, db, cfg.PublicURL)
	keys := NewAPIKeyVerifier(db)
	ipRules := NewIPRuleCache(db, IPRuleCacheTTL)
	meter, err := NewMeter(cfg, db)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	HookUserCutoffs(ctx, db, verifier.Users, auth.NewMinter(nil, db), log)
	srv := &Server{limiter: ratelimit.New(cfg.RateLimit.limiter())}

	loops := map[string]func(context.Context) error{
		"revocations":         func(ctx context.Context) error { return KeepRevocations(ctx, db, verifier.Revoked, log) },
		"agent cutoffs":       func(ctx context.Context) error { return KeepAgentCutoffs(ctx, db, verifier.Agents, log) },
		"user cutoffs":        func(ctx context.Context) error { return KeepUserCutoffs(ctx, db, verifier.Users, log) },
		"api key revocations": func(ctx context.Context) error { return KeepAPIKeyRevocations(ctx, db, keys, log) },
		"ip rules":            func(ctx context.Context) error { return KeepIPRules(ctx, db, ipRules, log) },
		"metering":            func(ctx context.Context) error { return KeepMetering(ctx, meter, db, log) },
		"rate limit sweep":    srv.SweepLimiter,
		"admin listener":      func(ctx context.Context) error { return ServeAdmin(ctx, "127.0.0.1:0", nil, log) },
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(loops))
	for name, loop := range loops {
		wg.Go(func() {
			if err := loop(ctx); err != nil {
				errs <- err
			}
			t.Logf("%s returned", name)
		})
	}
	// Let the listeners connect, so that they hold connections to give back.
	require.Eventually(t, func() bool { return db.Pool().Stat().AcquiredConns() >= 5 }, 10*time.Second, 10*time.Millisecond)
	cancel()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a loop did not return within 10 s of its context ending")
	}
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	closed := make(chan struct{})
	go func() { db.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the pool did not close within 5 s: something still holds a connection")
	}
}
