package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SecretChange is one change to what a secret read returns, logged by the
// triggers of migration 0030 in the writing transaction: one secret, or
// every secret of a vault when Path is empty.
type SecretChange struct {
	OrgID, VaultID, Path string
}

// secretChangesRetention is how long logged changes are kept: a feed whose
// last poll is older must start again (SecretChangeFeed.Poll says so).
const secretChangesRetention = 2 * time.Minute

// SecretChangeFeed reads the changes committed since its previous poll, on
// a connection of its own.
type SecretChangeFeed struct {
	conn     *pgxpool.Conn
	snapshot string    // the database snapshot of the last poll
	at       time.Time // when it was taken
	old      string    // a snapshot at least secretChangesRetention old, for purging
	oldAt    time.Time
}

// OpenSecretChangeFeed holds a pool connection for polling secret changes.
// The first Poll starts the feed: it returns no changes.
func (s *Store) OpenSecretChangeFeed(ctx context.Context) (*SecretChangeFeed, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquiring secret change feed connection: %w", err)
	}
	return &SecretChangeFeed{conn: c}, nil
}

// Close returns the feed's connection.
func (f *SecretChangeFeed) Close() { f.conn.Release() }

// Poll returns the changes of every transaction that committed after the
// previous poll's snapshot and up to the current one (found by visibility,
// so a transaction that started earlier and committed later is not missed).
// started is true when the feed (re)started instead: on the first poll and
// when the previous one is older than the log's retention; the caller then
// knows nothing of the changes before.
func (f *SecretChangeFeed) Poll(ctx context.Context) (changes []SecretChange, started bool, err error) {
	now := time.Now()
	if f.snapshot == "" || now.Sub(f.at) > secretChangesRetention/4 {
		if err := f.conn.QueryRow(ctx, `SELECT pg_current_snapshot()::text`).Scan(&f.snapshot); err != nil {
			return nil, false, fmt.Errorf("starting secret change feed: %w", err)
		}
		f.at = now
		if f.old == "" {
			f.old, f.oldAt = f.snapshot, now
		}
		return nil, true, nil
	}
	rows, err := f.conn.Query(ctx, `SELECT s.now::text, c.org_id::text, c.vault_id::text, c.path
		FROM (SELECT pg_current_snapshot() AS now) s
		LEFT JOIN secret_changes c ON c.xid >= pg_snapshot_xmin($1::pg_snapshot)
			AND NOT pg_visible_in_snapshot(c.xid, $1::pg_snapshot)`, f.snapshot)
	if err != nil {
		return nil, false, fmt.Errorf("polling secret changes: %w", err)
	}
	defer rows.Close()
	var snapshot string
	for rows.Next() {
		var org, vault, path *string
		if err := rows.Scan(&snapshot, &org, &vault, &path); err != nil {
			return nil, false, fmt.Errorf("polling secret changes: %w", err)
		}
		if org != nil && vault != nil {
			c := SecretChange{OrgID: *org, VaultID: *vault}
			if path != nil {
				c.Path = *path
			}
			changes = append(changes, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("polling secret changes: %w", err)
	}
	f.snapshot, f.at = snapshot, now
	if now.Sub(f.oldAt) > secretChangesRetention {
		// Every change that completed before a snapshot this old is known
		// to every feed still running (a feed older than that restarts).
		if _, err := f.conn.Exec(ctx, `DELETE FROM secret_changes WHERE xid < pg_snapshot_xmin($1::pg_snapshot)`, f.old); err != nil {
			return nil, false, fmt.Errorf("purging secret changes: %w", err)
		}
		f.old, f.oldAt = snapshot, now
	}
	return changes, false, nil
}

// InIdempotentTx reports whether ctx carries an open idempotent transaction
// of this store: statements with ctx see the request's uncommitted writes,
// and the writes become visible to others only at its commit.
func (s *Store) InIdempotentTx(ctx context.Context) bool {
	return boundTx(ctx, s.pool.Pool) != nil
}
