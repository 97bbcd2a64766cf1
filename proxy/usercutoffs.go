package proxy

import (
	"context"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// watchUserCutoffs wires the users' access token cut-offs: this replica's
// own changes reach cutoffs right after their commit, tokens minted after
// a cut-off are stamped no earlier, and every replica's changes arrive
// through LISTEN/NOTIFY, with a full load at start, on every (re)connection
// and every minute (like keepAgentCutoffs). It returns at once.
func watchUserCutoffs(ctx context.Context, db *store.Store, cutoffs *auth.UserCutoffs, minter *auth.Minter, log *slog.Logger) {
	set := func(c store.UserCutoff) { cutoffs.Set(c.UserID, c.OrgID, c.At) }
	db.SetUserCutoffHook(set)
	minter.Users = db
	load := func() {
		all, err := db.UserTokenCutoffs(ctx)
		if err != nil {
			log.Warn("loading user token cutoffs", "err", err)
			return
		}
		for _, c := range all {
			set(c)
		}
		cutoffs.Forget(time.Now().Add(-store.UserCutoffWindow))
	}
	load()
	go func() {
		for ctx.Err() == nil {
			err := db.Listen(ctx, store.UserTokensChannel, load, func(payload string) {
				if c, ok := store.ParseUserCutoff(payload); ok {
					set(c)
				}
			})
			if ctx.Err() != nil {
				return
			}
			log.Warn("user token listener stopped; reconnecting", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				load()
				if err := db.PurgeUserTokenCutoffs(ctx); err != nil {
					log.Warn("purging user token cutoffs", "err", err)
				}
			}
		}
	}()
}
