package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// APIKeyRevocationChannel is the LISTEN/NOTIFY channel that carries the ids
// of deleted personal API keys, so that every replica drops them from its
// cache at once.
const APIKeyRevocationChannel = "ocv_api_key_revoked"

// APIKey is a personal API key of one member of an organization. Only the
// SHA-256 of the key is stored, with its last four characters for display.
type APIKey struct {
	OrgID     string
	ID        string
	UserID    string
	Name      string
	Hash      []byte
	LastFour  string
	ExpiresAt *time.Time
	CreatedAt time.Time
}

// APIKeyOwner is what a key resolves to: the key, and the roles its owner
// has now.
type APIKeyOwner struct {
	Key          APIKey
	Role         string
	PlatformRole string
}

const apiKeyColumns = `k.org_id, k.id, k.user_id, k.name, k.last_four, k.expires_at, k.created_at`

func scanAPIKey(row pgx.Row, extra ...any) (APIKey, error) {
	var k APIKey
	err := row.Scan(append([]any{&k.OrgID, &k.ID, &k.UserID, &k.Name, &k.LastFour, &k.ExpiresAt, &k.CreatedAt}, extra...)...)
	return k, err
}

// CreateAPIKey stores k with ev and returns it as stored.
func (s *Store) CreateAPIKey(ctx context.Context, k APIKey, ev *auditchain.Event) (APIKey, error) {
	var out APIKey
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanAPIKey(tx.QueryRow(ctx, `INSERT INTO api_keys AS k (org_id, id, user_id, name, key_hash, last_four, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+apiKeyColumns,
			k.OrgID, k.ID, k.UserID, k.Name, k.Hash, k.LastFour, k.ExpiresAt))
		if pgCode(err) == codeForeignKeyViolation {
			return fmt.Errorf("creating api key: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("creating api key: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// ListAPIKeys lists the keys of one member in id order, after the id after.
func (s *Store) ListAPIKeys(ctx context.Context, orgID, userID, after string, limit int) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+apiKeyColumns+` FROM api_keys k
		WHERE k.org_id = $1 AND k.user_id = $2 AND ($3 = '' OR k.id > nullif($3, '')::uuid)
		ORDER BY k.id LIMIT $4`, orgID, userID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("listing api keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("listing api keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// DeleteAPIKey deletes a key of one member with ev and announces it on
// APIKeyRevocationChannel; ErrNotFound when the member has no such key.
func (s *Store) DeleteAPIKey(ctx context.Context, orgID, userID, id string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM api_keys WHERE org_id = $1 AND id = $2 AND user_id = $3`, orgID, id, userID)
		if err != nil {
			return fmt.Errorf("deleting api key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deleting api key: %w", NotFound("API key"))
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, APIKeyRevocationChannel, id); err != nil {
			return fmt.Errorf("notifying api key revocation: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
}

// APIKeyByHash finds the key whose SHA-256 is hash, with its owner's roles;
// ErrNotFound when there is none. Expiry is the caller's to check.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (APIKeyOwner, error) {
	var o APIKeyOwner
	var err error
	o.Key, err = scanAPIKey(s.pool.QueryRow(ctx, `SELECT `+apiKeyColumns+`, m.role, u.platform_role
		FROM api_keys k JOIN org_members m ON m.org_id = k.org_id AND m.user_id = k.user_id
		JOIN users u ON u.id = k.user_id
		WHERE k.key_hash = $1 LIMIT 1`, hash), &o.Role, &o.PlatformRole)
	if errors.Is(err, pgx.ErrNoRows) {
		return APIKeyOwner{}, fmt.Errorf("finding api key: %w", ErrNotFound)
	}
	if err != nil {
		return APIKeyOwner{}, fmt.Errorf("finding api key: %w", err)
	}
	return o, nil
}

// Listen calls ready once it listens on channel, then fn with the payload
// of each notification, until ctx ends or the connection fails.
func (s *Store) Listen(ctx context.Context, channel string, ready func(), fn func(payload string)) error {
	conn, done, err := s.acquireUnbounded(ctx)
	if err != nil {
		return fmt.Errorf("acquiring listener connection: %w", err)
	}
	defer done()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listening on %s: %w", channel, err)
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("waiting for notification: %w", err)
		}
		fn(n.Payload)
	}
}
