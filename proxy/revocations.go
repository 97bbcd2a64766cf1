package proxy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// KeepRevocations keeps the replica's revocation set current until ctx
// ends: a full load at start and every minute, and every other replica's
// revocations as they happen through LISTEN/NOTIFY. Every minute it also
// purges expired revocations, refresh tokens and invitations. Failures are
// logged and retried; it returns nil once its listener has returned too.
func KeepRevocations(ctx context.Context, db *store.Store, set *auth.RevocationSet, log *slog.Logger) error {
	load := func() {
		ids, err := db.RevokedTokens(ctx)
		if err != nil {
			log.Warn("loading revoked tokens", "err", err)
			return
		}
		set.Merge(ids, time.Now())
	}
	load()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for ctx.Err() == nil {
			err := db.ListenRevocations(ctx, func(jti string) { set.Add(jti, time.Time{}) })
			if ctx.Err() != nil {
				return
			}
			log.Warn("revocation listener stopped; reconnecting", "err", err)
			load()
			pause(ctx, time.Second)
		}
	})
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
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

// KeepAgentCutoffs keeps the agents' revocation cutoffs current like
// KeepRevocations: a full load at start, on every (re)connection of the
// listener and every minute, and each replica's changes as announced. It
// returns nil when ctx ends, once its listener has returned too.
func KeepAgentCutoffs(ctx context.Context, db *store.Store, cutoffs *auth.AgentCutoffs, log *slog.Logger) error {
	load := func() {
		all, err := db.AgentTokenCutoffs(ctx)
		if err != nil {
			log.Warn("loading agent token cutoffs", "err", err)
			return
		}
		cutoffs.Merge(all, time.Now().Add(-store.AgentCutoffWindow))
	}
	load()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
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
			pause(ctx, time.Second)
		}
	})
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			load()
		}
	}
}

// pause waits d or until ctx ends, whichever comes first.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
