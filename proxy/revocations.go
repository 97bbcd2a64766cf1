package proxy

import (
	"context"
	"log/slog"
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
	listen := func() error { return db.ListenRevocations(ctx, func(jti string) { set.Add(jti, time.Time{}) }) }
	return listenAndTick(ctx, log, "revocation", listen, load, func() {
		load()
		if err := db.PurgeExpiredRevocations(ctx); err != nil {
			log.Warn("purging revocations", "err", err)
		}
		if err := db.PurgeExpiredIdentity(ctx); err != nil {
			log.Warn("purging refresh tokens and invitations", "err", err)
		}
	})
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
	listen := func() error {
		return db.Listen(ctx, store.AgentTokensChannel, load, func(payload string) {
			if id, at, ok := store.ParseAgentCutoff(payload); ok {
				cutoffs.Set(id, at)
			}
		})
	}
	return listenAndTick(ctx, log, "agent token", listen, nil, load)
}
