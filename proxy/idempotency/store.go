package idempotency

import (
	"context"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// PurgeAfter is the age past which records are deleted (spec: 48 hours).
const PurgeAfter = 48 * time.Hour

// Store keeps idempotency records; *store.Store implements it. It must be
// safe for concurrent use, and of concurrent BeginIdempotent calls for one
// key across every replica at most one may hold it: the others get the
// key's stored answer or a record in state store.IdempotencyInFlight. The
// hold runs the request's writes in one transaction with the answer
// (store.IdempotencyHold).
type Store interface {
	BeginIdempotent(ctx context.Context, c store.IdempotencyClaim, afterCommit func()) (store.IdempotencyHold, store.IdempotencyRecord, error)
}

// Purger deletes old records; *store.Store implements it.
type Purger interface {
	PurgeIdempotencyKeys(ctx context.Context, olderThan time.Duration) (int64, error)
}

// RunPurger deletes records older than PurgeAfter at once and then every
// `every` (for example time.Hour; the spec's floor is nightly) until ctx is
// done. Failures are logged and retried at the next tick. Running it on
// every replica is harmless. log may be nil.
func RunPurger(ctx context.Context, p Purger, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	runPurger(ctx, p, t.C, log)
}

func runPurger(ctx context.Context, p Purger, tick <-chan time.Time, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for {
		n, err := p.PurgeIdempotencyKeys(ctx, PurgeAfter)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("purging idempotency keys", "err", err)
		case n > 0:
			log.Info("purged idempotency keys", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}
