package edgetls

import (
	"context"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"time"
)

// lockSlot serialises, within one PGStorage, the callers of one lock name.
type lockSlot struct {
	sem   chan struct{} // capacity 1: holds a token while a caller owns the name in-process
	refs  int           // callers currently using this slot; the slot is dropped at zero
	lease *lease        // the database lease, when held
}

// lease is a held lock row and its refresher.
type lease struct {
	token string
	stop  context.CancelFunc
	done  chan struct{}
}

// Lock blocks until it holds the named lock across all processes sharing
// the database, or ctx ends. See PGStorage for the lease semantics.
func (s *PGStorage) Lock(ctx context.Context, name string) error {
	if err := validateKey(name, false); err != nil {
		return fmt.Errorf("locking: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("locking %q: %w", name, err)
	}
	slot := s.refSlot(name)
	select {
	case slot.sem <- struct{}{}:
	case <-ctx.Done():
		s.unrefSlot(name, slot, false)
		return fmt.Errorf("locking %q: %w", name, ctx.Err())
	}
	token := rand.Text()
	for {
		ok, err := s.acquireRow(ctx, name, token)
		if err != nil {
			s.unrefSlot(name, slot, true)
			return fmt.Errorf("locking %q: %w", name, err)
		}
		if ok {
			s.hold(slot, name, token)
			return nil
		}
		t := time.NewTimer(s.pollDelay())
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.unrefSlot(name, slot, true)
			return fmt.Errorf("locking %q: %w", name, ctx.Err())
		}
	}
}

// TryLock takes the named lock if it is free (or stale) and reports whether
// it did, without waiting.
func (s *PGStorage) TryLock(ctx context.Context, name string) (bool, error) {
	if err := validateKey(name, false); err != nil {
		return false, fmt.Errorf("trying lock: %w", err)
	}
	slot := s.refSlot(name)
	select {
	case slot.sem <- struct{}{}:
	default:
		s.unrefSlot(name, slot, false)
		return false, nil
	}
	token := rand.Text()
	ok, err := s.acquireRow(ctx, name, token)
	if err != nil || !ok {
		s.unrefSlot(name, slot, true)
		if err != nil {
			return false, fmt.Errorf("trying lock %q: %w", name, err)
		}
		return false, nil
	}
	s.hold(slot, name, token)
	return true, nil
}

// Unlock releases the named lock held by this PGStorage. It returns
// ErrLockNotHeld (wrapped) if this storage does not hold it or its lease was
// lost to another process. If ctx ends before the row is deleted, the lock
// is still released in-process and its row expires after the lock TTL.
func (s *PGStorage) Unlock(ctx context.Context, name string) error {
	if err := validateKey(name, false); err != nil {
		return fmt.Errorf("unlocking: %w", err)
	}
	s.mu.Lock()
	slot := s.slots[name]
	if slot == nil || slot.lease == nil {
		s.mu.Unlock()
		return fmt.Errorf("unlocking %q: %w", name, ErrLockNotHeld)
	}
	l := slot.lease
	slot.lease = nil
	s.mu.Unlock()

	l.stop()
	<-l.done
	ctx, cancel := context.WithTimeout(ctx, defaultUnlockBudget)
	defer cancel()
	tag, err := s.pool.Exec(ctx,
		`DELETE FROM certmagic_locks WHERE name = $1 AND owner = $2`, name, l.token)
	s.unrefSlot(name, slot, true)
	if err != nil {
		return fmt.Errorf("unlocking %q: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("unlocking %q: lease expired: %w", name, ErrLockNotHeld)
	}
	return nil
}

// RenewLockLease sets the expiry of the held lock to leaseDuration from now
// (certmagic extends leases during long retries). The background refresh
// never shortens it. Returns ErrLockNotHeld (wrapped) if the lock is not
// held by this storage.
func (s *PGStorage) RenewLockLease(ctx context.Context, name string, leaseDuration time.Duration) error {
	if err := validateKey(name, false); err != nil {
		return fmt.Errorf("renewing lock lease: %w", err)
	}
	s.mu.Lock()
	var token string
	if slot := s.slots[name]; slot != nil && slot.lease != nil {
		token = slot.lease.token
	}
	s.mu.Unlock()
	if token == "" {
		return fmt.Errorf("renewing lock lease %q: %w", name, ErrLockNotHeld)
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE certmagic_locks SET expires = clock_timestamp() + make_interval(secs => $3)
		WHERE name = $1 AND owner = $2`, name, token, leaseDuration.Seconds())
	if err != nil {
		return fmt.Errorf("renewing lock lease %q: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("renewing lock lease %q: %w", name, ErrLockNotHeld)
	}
	return nil
}

// acquireRow inserts the lock row, or takes over a stale one, and reports
// whether token now owns it. Expiry is compared on the database's clock so
// that replicas with skewed clocks agree on staleness.
func (s *PGStorage) acquireRow(ctx context.Context, name, token string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO certmagic_locks (name, owner, expires)
		VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3))
		ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
		WHERE certmagic_locks.expires < clock_timestamp()`,
		name, token, s.lockTTL.Seconds())
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// hold records the lease and starts refreshing it.
func (s *PGStorage) hold(slot *lockSlot, name, token string) {
	ctx, stop := context.WithCancel(context.Background())
	l := &lease{token: token, stop: stop, done: make(chan struct{})}
	s.mu.Lock()
	slot.lease = l
	s.mu.Unlock()
	go s.keepAlive(ctx, name, l)
}

// keepAlive pushes the lease expiry forward every third of the TTL until
// stopped, or until it finds the lease taken over.
func (s *PGStorage) keepAlive(ctx context.Context, name string, l *lease) {
	defer close(l.done)
	every := max(s.lockTTL/3, 10*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		tag, err := s.pool.Exec(rctx, `
			UPDATE certmagic_locks
			SET expires = GREATEST(expires, clock_timestamp() + make_interval(secs => $3))
			WHERE name = $1 AND owner = $2`, name, l.token, s.lockTTL.Seconds())
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.logger.Warn("refreshing certmagic lock", "lock", name, "error", err)
		case tag.RowsAffected() == 0:
			s.logger.Warn("certmagic lock lease lost to another holder", "lock", name)
			return
		}
	}
}

// refSlot returns the slot for name, creating it, and counts the caller.
func (s *PGStorage) refSlot(name string) *lockSlot {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot := s.slots[name]
	if slot == nil {
		slot = &lockSlot{sem: make(chan struct{}, 1)}
		s.slots[name] = slot
	}
	slot.refs++
	return slot
}

// unrefSlot gives the slot back (releasing the in-process hold when the
// caller had it) and drops the slot once nobody uses it.
func (s *PGStorage) unrefSlot(name string, slot *lockSlot, held bool) {
	if held {
		<-slot.sem
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slot.refs--
	if slot.refs == 0 {
		delete(s.slots, name)
	}
}

// pollDelay is the wait between two attempts of a blocked Lock, jittered so
// that waiting replicas do not retry in lockstep.
func (s *PGStorage) pollDelay() time.Duration {
	return s.lockPoll + mrand.N(s.lockPoll/2+1)
}
