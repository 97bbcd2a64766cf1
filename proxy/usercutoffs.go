package proxy

import (
	"context"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// HookUserCutoffs wires the users' access token cut-offs: this replica's
// own changes reach cutoffs right after their commit, tokens minted after
// a cut-off are stamped no earlier, and every cut-off is loaded once before
// it returns, so that the server never starts without them.
// KeepUserCutoffs then keeps them current.
func HookUserCutoffs(ctx context.Context, db *store.Store, cutoffs *auth.UserCutoffs, minter *auth.Minter, log *slog.Logger) {
	db.SetUserCutoffHook(func(c store.UserCutoff) { setUserCutoff(cutoffs, c) })
	minter.Users = db
	loadUserCutoffs(ctx, db, cutoffs, log)
}

// KeepUserCutoffs keeps the cut-offs that HookUserCutoffs loaded current
// until ctx ends: every replica's changes arrive through LISTEN/NOTIFY,
// with a full load on every (re)connection and every minute (like
// KeepAgentCutoffs), and expired cut-offs are purged every minute. It
// returns nil once its listener has returned too.
func KeepUserCutoffs(ctx context.Context, db *store.Store, cutoffs *auth.UserCutoffs, log *slog.Logger) error {
	load := func() { loadUserCutoffs(ctx, db, cutoffs, log) }
	listen := func() error {
		return db.Listen(ctx, store.UserTokensChannel, load, func(payload string) {
			if c, ok := store.ParseUserCutoff(payload); ok {
				setUserCutoff(cutoffs, c)
			}
		})
	}
	return listenAndTick(ctx, log, "user token", listen, nil, func() {
		load()
		if err := db.PurgeUserTokenCutoffs(ctx); err != nil {
			log.Warn("purging user token cutoffs", "err", err)
		}
	})
}

func setUserCutoff(cutoffs *auth.UserCutoffs, c store.UserCutoff) {
	cutoffs.Set(c.UserID, c.OrgID, c.At)
}

// loadUserCutoffs merges every user cut-off and forgets those older than
// the window.
func loadUserCutoffs(ctx context.Context, db *store.Store, cutoffs *auth.UserCutoffs, log *slog.Logger) {
	all, err := db.UserTokenCutoffs(ctx)
	if err != nil {
		log.Warn("loading user token cutoffs", "err", err)
		return
	}
	for _, c := range all {
		setUserCutoff(cutoffs, c)
	}
	cutoffs.Forget(time.Now().Add(-store.UserCutoffWindow))
}
