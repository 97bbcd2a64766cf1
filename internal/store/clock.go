package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ClockSyncInterval is how often Clock re-reads the database's time.
const ClockSyncInterval = 30 * time.Second

// Clock is the database's clock as this proxy replica sees it: the one time
// source for every expiry decision the proxy makes (a secret's expires_at,
// a share link, an invitation, a lockout, an API key, a token's exp). Its
// wall time comes from PostgreSQL alone (clock_timestamp(), read at Sync);
// between syncs the replica adds only the time elapsed on its monotonic
// clock, so a replica whose wall clock is wrong or jumps decides exactly as
// the database's now() would, to within half a round trip and the drift of
// one interval. Every replica thus agrees with the SQL that compares with
// now() (refresh tokens, idempotency keys, payment nonces).
type Clock struct {
	mu     sync.RWMutex
	at     time.Time // the database's time at the anchor
	anchor time.Time // the replica's time.Now() at the anchor (its monotonic reading counts)
}

// NewClock returns a clock anchored on the database's time now.
func (s *Store) NewClock(ctx context.Context) (*Clock, error) {
	c := &Clock{}
	if err := c.Sync(ctx, s); err != nil {
		return nil, err
	}
	return c, nil
}

// TimeReader reads the database's current time.
type TimeReader interface {
	DatabaseTime(ctx context.Context) (time.Time, error)
}

// DatabaseTime is PostgreSQL's clock_timestamp(): the server's current time,
// not the start of a transaction.
func (s *Store) DatabaseTime(ctx context.Context) (time.Time, error) {
	var t time.Time
	if err := s.pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("reading the database's clock: %w", err)
	}
	return t, nil
}

// Sync re-anchors c on db's time, taken halfway through the round trip.
// On error c keeps its last anchor (and keeps counting from it).
func (c *Clock) Sync(ctx context.Context, db TimeReader) error {
	before := time.Now()
	t, err := db.DatabaseTime(ctx)
	if err != nil {
		return err
	}
	after := time.Now()
	anchor := before.Add(after.Sub(before) / 2)
	c.mu.Lock()
	c.at, c.anchor = t.UTC(), anchor
	c.mu.Unlock()
	return nil
}

// Run re-syncs c every interval until ctx ends; a failed sync is reported
// to onError and retried at the next tick.
func (c *Clock) Run(ctx context.Context, db TimeReader, interval time.Duration, onError func(error)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			sctx, cancel := context.WithTimeout(ctx, interval)
			if err := c.Sync(sctx, db); err != nil && ctx.Err() == nil && onError != nil {
				onError(err)
			}
			cancel()
		}
	}
}

// Now is the database's current time (UTC, no monotonic reading).
func (c *Clock) Now() time.Time {
	c.mu.RLock()
	at, anchor := c.at, c.anchor
	c.mu.RUnlock()
	return at.Add(time.Since(anchor)).Round(0)
}
