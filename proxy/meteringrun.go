package proxy

import (
	"context"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/idempotency"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

// nonceRetention is how long spent payment nonces are kept. Authorizations
// are refused as expired once past their window (max_timeout_seconds plus
// clock skew, minutes), so a day is far on the safe side.
const nonceRetention = 24 * time.Hour

// startMetering builds the meter over db and starts its background jobs on
// bg: lease reconciliation, the daily purge of spent payment nonces and the
// hourly purge of idempotency keys older than 48 hours.
func startMetering(bg context.Context, cfg Config, db *store.Store, log *slog.Logger) (*metering.Meter, error) {
	m, err := metering.New(cfg.meteringConfig(), db)
	if err != nil {
		return nil, err
	}
	mlog := log.With("component", "metering")
	go m.Run(bg, func(err error) { mlog.Warn("reconciling leased usage", "err", err) })
	go every(bg, 24*time.Hour, func() {
		if _, err := db.PurgePaymentNonces(bg, time.Now().Add(-nonceRetention)); err != nil && bg.Err() == nil {
			mlog.Warn("purging payment nonces", "err", err)
		}
	})
	go idempotency.RunPurger(bg, db, time.Hour, log.With("component", "idempotency"))
	return m, nil
}

// sweepLimiter drops idle rate limit buckets every minute.
func sweepLimiter(ctx context.Context, l *ratelimit.Limiter) {
	every(ctx, ratelimit.DefaultIdleTTL, l.Sweep)
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
