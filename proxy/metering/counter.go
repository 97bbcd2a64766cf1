package metering

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// LeaseStore is the counter's storage; *store.Store implements it.
// LeaseUsage adds n to the period's counter only if the result stays within
// limit, atomically, and returns the counter (after the lease when granted).
type LeaseStore interface {
	LeaseUsage(ctx context.Context, orgID, period string, n, limit int64) (used int64, granted bool, err error)
	ReturnUsage(ctx context.Context, orgID, period string, n int64) error
}

// Decision is the outcome of counting one call.
type Decision struct {
	Allowed bool
	// Used is the number of calls counted this period, including calls
	// leased but not yet served by other replicas; Limit is the tier's
	// quota (meaningless when Unlimited).
	Used, Limit int64
	Unlimited   bool
}

// Counter counts API calls per organization and month against a limit.
//
// To stay cheap at high request rates, each Counter (one per proxy replica)
// leases blocks of calls from PostgreSQL with one guarded upsert
// (store.LeaseUsage: used + n <= limit) and serves calls from the block in
// memory. A block used up within a second doubles the next one, up to
// maxGrowth times the configured block, so that a busy organization costs
// PostgreSQL a commit every few hundred calls rather than every 50; a slower
// pace starts again from the configured block. Blocks shrink near the limit (to an eighth of what is left, down to
// one call), so replicas share the last calls of a quota instead of one of
// them holding them. Because a call is only served from units already added
// to the table, the count never under-counts and never lets more than limit
// calls through, across any number of replicas. Unused units go back to the
// table when a lease ages out (Reconcile) and on Close. An abrupt crash loses
// at most the unused part of one block (at most maxGrowth configured blocks)
// per organization and replica: the table then over-counts by that much,
// never under-counts.
//
// A Counter is safe for concurrent use.
type Counter struct {
	st     LeaseStore
	tiers  Tiers
	block  int64
	maxAge time.Duration
	now    func() time.Time

	mu     sync.Mutex
	leases map[leaseKey]*lease
}

type leaseKey struct{ org, period string }

// lease is the block of calls one organization holds for one period.
type lease struct {
	mu        sync.Mutex
	remaining int64     // leased units not yet served
	dbUsed    int64     // the table's counter as last seen
	leasedAt  time.Time // when the current block was leased
	size      int64     // the current block's size before the limit's shrinking; 0 before the first
	dead      bool      // reconciled and removed from the map
}

// DefaultBlock is the default number of calls leased at a time.
const DefaultBlock = 50

// DefaultLeaseMaxAge is how long unused leased calls stay with a replica.
const DefaultLeaseMaxAge = 30 * time.Second

// maxGrowth bounds a busy organization's block: at most maxGrowth times
// the configured block.
const maxGrowth = 16

// fastLease is the pace that grows the next block: a block used up sooner
// than this after it was leased doubles the next one.
const fastLease = time.Second

// maxLeaseAttempts bounds retries when other replicas keep taking the
// calls this one tried to lease.
const maxLeaseAttempts = 32

// CounterConfig configures a Counter.
type CounterConfig struct {
	Tiers       Tiers            // nil: DefaultTiers
	Block       int64            // calls leased at a time; <= 0: DefaultBlock
	LeaseMaxAge time.Duration    // unused calls go back after this; <= 0: DefaultLeaseMaxAge
	Now         func() time.Time // nil: time.Now
}

// NewCounter returns a counter over st.
func NewCounter(st LeaseStore, cfg CounterConfig) *Counter {
	if cfg.Tiers == nil {
		cfg.Tiers = DefaultTiers()
	}
	if cfg.Block <= 0 {
		cfg.Block = DefaultBlock
	}
	if cfg.LeaseMaxAge <= 0 {
		cfg.LeaseMaxAge = DefaultLeaseMaxAge
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Counter{st: st, tiers: cfg.Tiers, block: cfg.Block, maxAge: cfg.LeaseMaxAge, now: cfg.Now,
		leases: map[leaseKey]*lease{}}
}

// Take counts one call of orgID against its tier's monthly quota for the
// current month (UTC). Over the quota it returns Allowed false and counts
// nothing. A storage error is returned: the caller fails closed.
func (c *Counter) Take(ctx context.Context, orgID string, tier Tier) (Decision, error) {
	requests := c.tiers.For(tier).Requests
	limit, unlimited := requests, requests == Unlimited
	if unlimited {
		limit = math.MaxInt64 - 1<<32 // counted, never refused; headroom for used + n
	}
	key := leaseKey{org: orgID, period: store.UsagePeriod(c.now())}
	for {
		l := c.lease(key)
		l.mu.Lock()
		if l.dead { // reconciled away while we waited: use the new one
			l.mu.Unlock()
			continue
		}
		d, err := c.takeLocked(ctx, key, l, limit)
		l.mu.Unlock()
		d.Unlimited = unlimited
		if unlimited {
			d.Limit = Unlimited
		}
		return d, err
	}
}

func (c *Counter) lease(key leaseKey) *lease {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.leases[key]
	if !ok {
		l = &lease{}
		c.leases[key] = l
	}
	return l
}

func (c *Counter) takeLocked(ctx context.Context, key leaseKey, l *lease, limit int64) (Decision, error) {
	if l.remaining > 0 {
		l.remaining--
		return Decision{Allowed: true, Used: l.dbUsed - l.remaining, Limit: limit}, nil
	}
	l.size = c.nextSize(l)
	for range maxLeaseAttempts {
		n := blockSize(limit-l.dbUsed, l.size)
		used, ok, err := c.st.LeaseUsage(ctx, key.org, key.period, n, limit)
		if err != nil {
			return Decision{}, fmt.Errorf("counting a call for org %s: %w", key.org, err)
		}
		l.dbUsed = used
		if ok {
			l.remaining, l.leasedAt = n-1, c.now()
			return Decision{Allowed: true, Used: used - l.remaining, Limit: limit}, nil
		}
		if used >= limit {
			return Decision{Used: used, Limit: limit}, nil
		}
		// Others took calls between our view and our lease: retry with a
		// block sized from the fresher count.
	}
	return Decision{}, fmt.Errorf("counting a call for org %s: %w", key.org, ErrContention)
}

// nextSize is the size of the block l leases next (before shrinking near
// the limit): the configured block, doubled while blocks are used up
// faster than fastLease, up to maxGrowth configured blocks.
func (c *Counter) nextSize(l *lease) int64 {
	if l.size == 0 || c.now().Sub(l.leasedAt) >= fastLease {
		return c.block
	}
	return min(2*l.size, maxGrowth*c.block)
}

// blockSize is how many calls to lease when about left remain and the
// block is most: an eighth of what is left, between 1 and most.
func blockSize(left, most int64) int64 {
	n := left / 8
	if n > most {
		n = most
	}
	if n < 1 {
		n = 1
	}
	return n
}

// Reconcile returns to the table the unused calls of leases older than the
// maximum age (and of past months) and forgets those leases. Run it
// periodically (Meter.Run does).
func (c *Counter) Reconcile(ctx context.Context) error { return c.release(ctx, false) }

// Close returns every unused leased call to the table. Call it at shutdown,
// after the server stopped serving.
func (c *Counter) Close(ctx context.Context) error { return c.release(ctx, true) }

func (c *Counter) release(ctx context.Context, all bool) error {
	c.mu.Lock()
	keys := make([]leaseKey, 0, len(c.leases))
	for k := range c.leases {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	now, period := c.now(), store.UsagePeriod(c.now())
	var errs []error
	for _, k := range keys {
		c.mu.Lock()
		l := c.leases[k]
		c.mu.Unlock()
		if l == nil {
			continue
		}
		l.mu.Lock()
		if all || k.period != period || now.Sub(l.leasedAt) >= c.maxAge {
			if err := c.st.ReturnUsage(ctx, k.org, k.period, l.remaining); err != nil {
				// Keep the units: they are returned on a later pass, or
				// over-counted if this replica dies first.
				errs = append(errs, fmt.Errorf("reconciling usage of org %s: %w", k.org, err))
			} else {
				l.remaining, l.dead = 0, true
				c.mu.Lock()
				delete(c.leases, k)
				c.mu.Unlock()
			}
		}
		l.mu.Unlock()
	}
	return errors.Join(errs...)
}
