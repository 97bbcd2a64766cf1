package secretcache

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// Listener delivers the database's notifications of a channel: ready once
// it listens, then fn with each payload, until ctx ends or the connection
// fails (*store.Store).
type Listener interface {
	Listen(ctx context.Context, channel string, ready func(), fn func(payload string)) error
}

// Run keeps c fresh until ctx ends: it listens on
// store.SecretChangesChannel and drops each announced key. The cache is
// live (serves and stores) only while the listener is connected; it is
// flushed on every connection and every loss, so that a change announced
// while nobody listened is never missed. Run returns nil when ctx ends.
func Run(ctx context.Context, db Listener, c *Cache, log *slog.Logger) error {
	if !c.Enabled() {
		return nil
	}
	for ctx.Err() == nil {
		err := db.Listen(ctx, store.SecretChangesChannel, func() { c.SetLive(true) }, c.apply)
		c.SetLive(false)
		if ctx.Err() != nil {
			break
		}
		log.Warn("secret cache listener stopped; the cache serves nothing until it reconnects", "err", err)
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// apply drops what a notification names; a payload it cannot read flushes
// the whole cache (fail safe).
func (c *Cache) apply(payload string) {
	parts := strings.SplitN(payload, " ", 3)
	switch len(parts) {
	case 3:
		c.Notified(Key{OrgID: parts[0], VaultID: parts[1], Path: parts[2]})
	case 2:
		c.InvalidateVault(parts[0], parts[1])
	default:
		c.Flush()
	}
}
