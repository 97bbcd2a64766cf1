package secretcache

import (
	"context"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// Feed delivers the secret changes committed since its previous poll
// (*store.SecretChangeFeed). started reports that it (re)started and knows
// nothing of what came before.
type Feed interface {
	Poll(ctx context.Context) (changes []store.SecretChange, started bool, err error)
	Close()
}

// OpenFunc opens a Feed.
type OpenFunc func(ctx context.Context) (Feed, error)

// StoreFeed opens db's feed of secret changes.
func StoreFeed(db *store.Store) OpenFunc {
	return func(ctx context.Context) (Feed, error) {
		f, err := db.OpenSecretChangeFeed(ctx)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}

// Run keeps c fresh until ctx ends: it polls the database's log of secret
// changes every interval and drops each changed key. The cache serves only
// while its polls succeed: an entry is served only if a poll succeeded
// within the cache's MaxLag, and the cache is flushed whenever the feed
// (re)starts, so that a change made while nobody polled is never missed.
// Run returns nil when ctx ends.
func Run(ctx context.Context, open OpenFunc, c *Cache, interval time.Duration, log *slog.Logger) error {
	if !c.Enabled() {
		return nil
	}
	defer c.SetLive(false)
	for ctx.Err() == nil {
		feed, err := open(ctx)
		if err == nil {
			err = c.follow(ctx, feed, interval)
			feed.Close()
		}
		c.SetLive(false)
		if ctx.Err() != nil {
			break
		}
		log.Warn("secret cache feed stopped; the cache serves nothing until it restarts", "err", err)
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// follow polls feed until it fails or ctx ends.
func (c *Cache) follow(ctx context.Context, feed Feed, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		changes, started, err := feed.Poll(ctx)
		if err != nil {
			return err
		}
		if started {
			c.SetLive(true)
		}
		for _, ch := range changes {
			c.apply(ch)
		}
		c.polled()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// apply drops what a change names: one key, or a whole vault.
func (c *Cache) apply(ch store.SecretChange) {
	if ch.Path == "" {
		c.InvalidateVault(ch.OrgID, ch.VaultID)
		return
	}
	c.Notified(Key{OrgID: ch.OrgID, VaultID: ch.VaultID, Path: ch.Path})
}
