package proxy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/idempotency"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

// nonceRetention is how long spent payment nonces are kept. Authorizations
// are refused as expired once past their window (max_timeout_seconds plus
// clock skew, minutes), so a day is far on the safe side.
const nonceRetention = 24 * time.Hour

// NewMeter builds the meter of cfg over db; KeepMetering runs its
// background jobs and its Close returns the leased usage.
func NewMeter(cfg Config, db *store.Store, opts ...metering.Option) (*metering.Meter, error) {
	mc := cfg.meteringConfig()
	// The facilitator is reached through the outbound policy only.
	fac := x402.NewHTTPFacilitator(mc.Payment, cfg.Egress().Client(x402.DefaultSettleTimeout))
	return metering.New(mc, db, append([]metering.Option{metering.WithFacilitator(fac)}, opts...)...)
}

// KeepMetering runs the meter's background jobs until ctx ends: lease
// reconciliation, the daily purge of spent payment nonces and the hourly
// purge of idempotency keys older than 48 hours. Failures are logged and
// retried; it returns nil once every job has returned.
func KeepMetering(ctx context.Context, m *metering.Meter, db *store.Store, log *slog.Logger) error {
	mlog := log.With("component", "metering")
	var wg sync.WaitGroup
	wg.Go(func() { m.Run(ctx, func(err error) { mlog.Warn("reconciling leased usage", "err", err) }) })
	wg.Go(func() {
		every(ctx, 24*time.Hour, func() {
			if _, err := db.PurgePaymentNonces(ctx, nonceRetention); err != nil && ctx.Err() == nil {
				mlog.Warn("purging payment nonces", "err", err)
			}
		})
	})
	wg.Go(func() { idempotency.RunPurger(ctx, db, time.Hour, log.With("component", "idempotency")) })
	wg.Wait()
	return nil
}

// SweepLimiter drops the server's idle rate limit buckets every minute
// until ctx ends; it returns nil.
func (s *Server) SweepLimiter(ctx context.Context) error {
	every(ctx, ratelimit.DefaultIdleTTL, s.limiter.Sweep)
	return nil
}

// every runs f at once and then every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		f()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
