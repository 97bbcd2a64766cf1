package edgetls

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	defaultLockTTL      = time.Minute
	defaultLockPoll     = time.Second
	defaultUnlockBudget = 30 * time.Second
)

// PGStorage is a certmagic.Storage backed by PostgreSQL, so that every proxy
// replica shares the same certificates, ACME accounts, challenge data and
// locks. It uses the tables of migration 0100_certmagic.sql, which must have
// been applied.
//
// Contract, in the style of certmagic's Storage:
//
//   - Keys are relative slash-separated paths as certmagic builds them. A
//     key that is empty, longer than 1024 bytes, not valid UTF-8, contains
//     control characters or backslashes, or has an empty, "." or ".."
//     component is rejected with ErrInvalidKey (wrapped); keys are never
//     rewritten, so two keys cannot collide. Lock names follow the same rules.
//   - A "file" is a row; a "directory" is any proper prefix (on component
//     boundaries) of a row's key. Nothing stops a key being both.
//   - Load and Stat return an error wrapping fs.ErrNotExist for a missing
//     key. Delete of a missing key returns nil, and Delete of a directory
//     removes everything below it, atomically. List returns an error wrapping
//     fs.ErrNotExist when nothing lies below the prefix.
//   - List(prefix, false) returns the full keys of the immediate children of
//     prefix (files and directories); List(prefix, true) returns every file
//     and every intermediate directory below prefix, as certmagic's
//     FileStorage does. The empty prefix lists from the root. Results are
//     sorted.
//   - Stat of a directory returns IsTerminal false and, as Modified, the
//     newest modification below it.
//   - Every method is safe for concurrent use and honours ctx (cancellation
//     and deadline reach the database round trip). Store is last-writer-wins;
//     Load always returns the value of the last completed Store.
//
// Locks (certmagic.Locker, TryLocker, LockLeaseRenewer) are rows in
// certmagic_locks with an expiry on the database's clock (one clock for all
// replicas, whatever their skew). A holder refreshes its row every third of
// the lock TTL (default one minute); a row whose expiry has passed belongs
// to a crashed holder and is taken over by the next Lock. Waiters poll
// (default every second, with jitter). Within one PGStorage, Lock callers
// for the same name queue in-process first, so a name is held at most once
// per process and Unlock releases exactly that holder. As with any
// lease-based lock, a holder cut off from the database longer than the TTL
// can lose its lock without noticing until Unlock (which then reports
// ErrLockNotHeld); certmagic tolerates this.
type PGStorage struct {
	pool     *pgxpool.Pool
	lockTTL  time.Duration
	lockPoll time.Duration
	logger   *slog.Logger

	mu    sync.Mutex
	slots map[string]*lockSlot
}

// StorageOption tunes a PGStorage; the defaults suit production.
type StorageOption func(*PGStorage)

// WithLockTTL sets how long a lock row stays valid without a refresh
// (default one minute). Holders refresh it every ttl/3.
func WithLockTTL(ttl time.Duration) StorageOption {
	return func(s *PGStorage) {
		if ttl > 0 {
			s.lockTTL = ttl
		}
	}
}

// WithLockPollInterval sets how often a blocked Lock retries (default one
// second; a random jitter of up to half of it is added).
func WithLockPollInterval(d time.Duration) StorageOption {
	return func(s *PGStorage) {
		if d > 0 {
			s.lockPoll = d
		}
	}
}

// WithStorageLogger sets the logger for background lock refresh problems
// (default slog.Default()).
func WithStorageLogger(l *slog.Logger) StorageOption {
	return func(s *PGStorage) {
		if l != nil {
			s.logger = l
		}
	}
}

// NewPGStorage returns a PGStorage on pool. It panics if pool is nil (a
// programmer error at construction time).
func NewPGStorage(pool *pgxpool.Pool, opts ...StorageOption) *PGStorage {
	if pool == nil {
		panic("edgetls: NewPGStorage needs a pool")
	}
	s := &PGStorage{
		pool:     pool,
		lockTTL:  defaultLockTTL,
		lockPoll: defaultLockPoll,
		logger:   slog.Default(),
		slots:    make(map[string]*lockSlot),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Store puts value at key, creating or overwriting it.
func (s *PGStorage) Store(ctx context.Context, key string, value []byte) error {
	if err := validateKey(key, false); err != nil {
		return fmt.Errorf("storing: %w", err)
	}
	if value == nil {
		value = []byte{} // pgx sends a nil slice as NULL; the column is NOT NULL
	}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO certmagic_data (key, value, modified)
		VALUES ($1, $2, clock_timestamp())
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, modified = excluded.modified`,
		key, value)
	if err != nil {
		return fmt.Errorf("storing %q: %w", key, err)
	}
	return nil
}

// Load returns the value at key, or an error wrapping fs.ErrNotExist.
func (s *PGStorage) Load(ctx context.Context, key string) ([]byte, error) {
	if err := validateKey(key, false); err != nil {
		return nil, fmt.Errorf("loading: %w", err)
	}
	var value []byte
	err := s.pool.QueryRow(ctx, `SELECT value FROM certmagic_data WHERE key = $1`, key).Scan(&value)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("loading %q: %w", key, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("loading %q: %w", key, err)
	}
	return value, nil
}

// Delete removes key and, if key is a directory, everything below it. A
// missing key is not an error.
func (s *PGStorage) Delete(ctx context.Context, key string) error {
	if err := validateKey(key, false); err != nil {
		return fmt.Errorf("deleting: %w", err)
	}
	_, err := s.pool.Exec(ctx,
		`DELETE FROM certmagic_data WHERE key = $1 OR key LIKE $2`, key, likePrefix(key))
	if err != nil {
		return fmt.Errorf("deleting %q: %w", key, err)
	}
	return nil
}

// Exists reports whether key exists as a file or a directory. Any error
// (invalid key, database failure) reports false.
func (s *PGStorage) Exists(ctx context.Context, key string) bool {
	if validateKey(key, false) != nil {
		return false
	}
	var ok bool
	err := s.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM certmagic_data WHERE key = $1 OR key LIKE $2)`,
		key, likePrefix(key)).Scan(&ok)
	return err == nil && ok
}

// Stat describes key, or returns an error wrapping fs.ErrNotExist.
func (s *PGStorage) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	if err := validateKey(key, false); err != nil {
		return certmagic.KeyInfo{}, fmt.Errorf("stating: %w", err)
	}
	var (
		size     int64
		modified time.Time
	)
	err := s.pool.QueryRow(ctx,
		`SELECT octet_length(value), modified FROM certmagic_data WHERE key = $1`, key).
		Scan(&size, &modified)
	if err == nil {
		return certmagic.KeyInfo{Key: key, Modified: modified, Size: size, IsTerminal: true}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return certmagic.KeyInfo{}, fmt.Errorf("stating %q: %w", key, err)
	}
	var newest *time.Time
	err = s.pool.QueryRow(ctx,
		`SELECT max(modified) FROM certmagic_data WHERE key LIKE $1`, likePrefix(key)).
		Scan(&newest)
	if err != nil {
		return certmagic.KeyInfo{}, fmt.Errorf("stating %q: %w", key, err)
	}
	if newest == nil {
		return certmagic.KeyInfo{}, fmt.Errorf("stating %q: %w", key, fs.ErrNotExist)
	}
	return certmagic.KeyInfo{Key: key, Modified: *newest, IsTerminal: false}, nil
}

// List returns the keys below prefix: the immediate children, or with
// recursive every file and directory below it. See the type's contract.
func (s *PGStorage) List(ctx context.Context, prefix string, recursive bool) ([]string, error) {
	if err := validateKey(prefix, true); err != nil {
		return nil, fmt.Errorf("listing: %w", err)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT key FROM certmagic_data WHERE key LIKE $1 ORDER BY key`, likePrefix(prefix))
	if err != nil {
		return nil, fmt.Errorf("listing %q: %w", prefix, err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("listing %q: %w", prefix, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("listing %q: %w", prefix, fs.ErrNotExist)
	}
	return listFrom(prefix, keys, recursive), nil
}

// listFrom turns the sorted file keys below prefix into List's result.
func listFrom(prefix string, keys []string, recursive bool) []string {
	seen := make(map[string]struct{}, len(keys))
	var out []string
	add := func(k string) {
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	for _, k := range keys {
		if !recursive {
			if child, ok := childOf(prefix, k); ok {
				add(joinKey(prefix, child))
			}
			continue
		}
		// every intermediate directory between prefix and k, then k
		dir := prefix
		for {
			child, ok := childOf(dir, k)
			if !ok {
				break
			}
			dir = joinKey(dir, child)
			add(dir)
		}
	}
	slices.Sort(out)
	return out
}

var (
	_ certmagic.Storage          = (*PGStorage)(nil)
	_ certmagic.TryLocker        = (*PGStorage)(nil)
	_ certmagic.LockLeaseRenewer = (*PGStorage)(nil)
)
