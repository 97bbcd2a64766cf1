package edgetls

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// twoStorages returns two PGStorages on separate pools sharing one schema,
// standing in for two proxy replicas.
func twoStorages(t *testing.T, opts ...StorageOption) (*PGStorage, *PGStorage, *pgxpool.Pool) {
	t.Helper()
	cfg := testPoolConfig(t)
	p1, p2 := newTestPool(t, cfg), newTestPool(t, cfg)
	opts = append([]StorageOption{WithLockPollInterval(10 * time.Millisecond)}, opts...)
	return NewPGStorage(p1, opts...), NewPGStorage(p2, opts...), p1
}

func TestPGStorageLockMutualExclusion(t *testing.T) {
	s1, s2, _ := twoStorages(t)
	ctx := context.Background()
	require.NoError(t, s1.Store(ctx, "counter", []byte("0")))

	// Each worker does a read-modify-write under the lock; a lost update
	// would show as a final count below the number of increments.
	const workers, rounds = 4, 5
	var wg sync.WaitGroup
	for i := range workers {
		s := s1
		if i%2 == 1 {
			s = s2
		}
		wg.Go(func() {
			for range rounds {
				if err := s.Lock(ctx, "issue_cert_counter"); err != nil {
					t.Errorf("lock: %v", err)
					return
				}
				v, err := s.Load(ctx, "counter")
				if err == nil {
					n, _ := strconv.Atoi(string(v))
					err = s.Store(ctx, "counter", []byte(strconv.Itoa(n+1)))
				}
				if uerr := s.Unlock(ctx, "issue_cert_counter"); uerr != nil {
					t.Errorf("unlock: %v", uerr)
				}
				if err != nil {
					t.Errorf("increment: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	v, err := s1.Load(ctx, "counter")
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(workers*rounds), string(v))
}

func TestPGStorageLockContention(t *testing.T) {
	s1, s2, _ := twoStorages(t)
	ctx := context.Background()
	require.NoError(t, s1.Lock(ctx, "name"))

	ok, err := s2.TryLock(ctx, "name")
	require.NoError(t, err)
	require.False(t, ok, "another storage holds the lock")
	ok, err = s1.TryLock(ctx, "name")
	require.NoError(t, err)
	require.False(t, ok, "the lock is not reentrant")

	waitCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s2.Lock(waitCtx, "name"), context.DeadlineExceeded)

	// s2 blocks until s1 releases; the flag proves the order without timing.
	var released atomic.Bool
	acquired := make(chan error, 1)
	go func() {
		err := s2.Lock(ctx, "name")
		if err == nil && !released.Load() {
			err = errLockedEarly
		}
		acquired <- err
	}()
	released.Store(true)
	require.NoError(t, s1.Unlock(ctx, "name"))
	require.NoError(t, <-acquired)
	require.NoError(t, s2.Unlock(ctx, "name"))

	ok, err = s1.TryLock(ctx, "name")
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s1.Unlock(ctx, "name"))
}

// errLockedEarly marks a Lock that returned while another holder still had
// the lock.
var errLockedEarly = errors.New("lock acquired while still held elsewhere")

func TestPGStorageLockSameStorage(t *testing.T) {
	s1, _, _ := twoStorages(t)
	ctx := context.Background()
	require.NoError(t, s1.Lock(ctx, "name"))
	var released atomic.Bool
	acquired := make(chan error, 1)
	go func() {
		err := s1.Lock(ctx, "name")
		if err == nil && !released.Load() {
			err = errLockedEarly
		}
		acquired <- err
	}()
	released.Store(true)
	require.NoError(t, s1.Unlock(ctx, "name"))
	require.NoError(t, <-acquired)
	require.NoError(t, s1.Unlock(ctx, "name"))
}

func TestPGStorageStaleLockTakenOver(t *testing.T) {
	s1, _, pool := twoStorages(t)
	ctx := context.Background()
	// A crashed replica left a lock row that expired a minute ago.
	_, err := pool.Exec(ctx, `INSERT INTO certmagic_locks (name, owner, expires)
		VALUES ('stale', 'crashed', clock_timestamp() - interval '1 minute')`)
	require.NoError(t, err)
	require.NoError(t, s1.Lock(ctx, "stale"))
	var owner string
	require.NoError(t, pool.QueryRow(ctx, `SELECT owner FROM certmagic_locks WHERE name = 'stale'`).Scan(&owner))
	require.NotEqual(t, "crashed", owner)
	require.NoError(t, s1.Unlock(ctx, "stale"))

	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM certmagic_locks`).Scan(&n))
	require.Zero(t, n, "Unlock deletes the row")
}

func TestPGStorageUnlockErrors(t *testing.T) {
	s1, s2, pool := twoStorages(t)
	ctx := context.Background()
	require.ErrorIs(t, s1.Unlock(ctx, "never"), ErrLockNotHeld)
	require.ErrorIs(t, s1.RenewLockLease(ctx, "never", time.Hour), ErrLockNotHeld)

	require.NoError(t, s1.Lock(ctx, "lost"))
	require.ErrorIs(t, s2.Unlock(ctx, "lost"), ErrLockNotHeld, "only the holder can unlock")
	// Simulate the lease expiring and another replica taking it over.
	_, err := pool.Exec(ctx, `UPDATE certmagic_locks SET owner = 'other' WHERE name = 'lost'`)
	require.NoError(t, err)
	require.ErrorIs(t, s1.RenewLockLease(ctx, "lost", time.Hour), ErrLockNotHeld)
	require.ErrorIs(t, s1.Unlock(ctx, "lost"), ErrLockNotHeld)
	// The other holder's row is untouched.
	var owner string
	require.NoError(t, pool.QueryRow(ctx, `SELECT owner FROM certmagic_locks WHERE name = 'lost'`).Scan(&owner))
	require.Equal(t, "other", owner)
}

func TestPGStorageLockLease(t *testing.T) {
	s1, _, pool := twoStorages(t, WithLockTTL(300*time.Millisecond))
	ctx := context.Background()
	require.NoError(t, s1.Lock(ctx, "lease"))
	expires := func() time.Time {
		var e time.Time
		require.NoError(t, pool.QueryRow(ctx, `SELECT expires FROM certmagic_locks WHERE name = 'lease'`).Scan(&e))
		return e
	}
	first := expires()
	// The holder refreshes its lease in the background.
	require.Eventually(t, func() bool { return expires().After(first) }, 30*time.Second, 20*time.Millisecond)

	require.NoError(t, s1.RenewLockLease(ctx, "lease", time.Hour))
	long := expires()
	require.True(t, long.After(first.Add(30*time.Minute)))
	require.NoError(t, s1.Unlock(ctx, "lease"))
}
