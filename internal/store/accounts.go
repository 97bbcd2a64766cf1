package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// User is a human principal.
type User struct {
	ID           string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
	// PlatformRole is "", "admin" or "super_admin" (not an organization role).
	PlatformRole string
	// LockedUntil is when a sign-in lockout ends (zero: not locked).
	LockedUntil time.Time
}

// Membership is a user's role in one organization.
type Membership struct {
	OrgID string
	Role  string
}

// Org is a tenant.
type Org struct {
	ID        string
	Name      string
	Tier      string
	CreatedAt time.Time
}

// CreateUserWithOrg creates a user, an organization it owns, and records ev,
// in one transaction. A taken email gives ErrConflict.
func (s *Store) CreateUserWithOrg(ctx context.Context, u User, emailKey string, o Org, ev *auditchain.Event) (time.Time, error) {
	var created time.Time
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO users (id, email, email_key, password_hash, platform_role)
			VALUES ($1, $2, $3, nullif($4, ''), $5) RETURNING created_at`, u.ID, u.Email, emailKey, u.PasswordHash, u.PlatformRole).Scan(&created)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("creating user: %w", ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("creating user: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO orgs (id, name) VALUES ($1, $2)`, o.ID, o.Name); err != nil {
			return fmt.Errorf("creating organization: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO org_members (org_id, user_id, role) VALUES ($1, $2, 'owner')`, o.ID, u.ID); err != nil {
			return fmt.Errorf("adding owner: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return created, err
}

// UserByEmail finds a user by normalised email, with the organization it
// belongs to (the oldest membership).
func (s *Store) UserByEmail(ctx context.Context, emailKey string) (User, Membership, error) {
	var u User
	var m Membership
	var locked *time.Time
	err := s.pool.QueryRow(ctx, `SELECT u.id, u.email, coalesce(u.password_hash, ''), u.created_at, u.platform_role, u.locked_until,
		m.org_id, m.role
		FROM users u JOIN org_members m ON m.user_id = u.id
		WHERE u.email_key = $1 ORDER BY m.created_at LIMIT 1`, emailKey).
		Scan(&u.ID, &u.Email, &u.PasswordHash, &u.CreatedAt, &u.PlatformRole, &locked, &m.OrgID, &m.Role)
	if locked != nil {
		u.LockedUntil = *locked
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, Membership{}, fmt.Errorf("finding user: %w", ErrNotFound)
	}
	if err != nil {
		return User{}, Membership{}, fmt.Errorf("finding user: %w", err)
	}
	return u, m, nil
}

// RevokeToken records a revoked token id until exp, with its audit event,
// and notifies every replica listening on RevocationChannel.
func (s *Store) RevokeToken(ctx context.Context, jti, orgID string, exp time.Time, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := revokeTokenTx(ctx, tx, jti, orgID, exp); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
}

func revokeTokenTx(ctx context.Context, tx pgx.Tx, jti, orgID string, exp time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO revoked_tokens (jti, org_id, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (jti) DO NOTHING`, jti, orgID, exp); err != nil {
		return fmt.Errorf("revoking token: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, RevocationChannel, jti); err != nil {
		return fmt.Errorf("notifying revocation: %w", err)
	}
	return nil
}

// RevocationChannel is the LISTEN/NOTIFY channel that carries revoked token ids.
const RevocationChannel = "ocv_token_revoked"

// RevokedTokens lists the ids of revoked tokens that have not expired yet.
func (s *Store) RevokedTokens(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.pool.Query(ctx, `SELECT jti, expires_at FROM revoked_tokens WHERE expires_at > now()`)
	if err != nil {
		return nil, fmt.Errorf("listing revoked tokens: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var jti string
		var exp time.Time
		if err := rows.Scan(&jti, &exp); err != nil {
			return nil, fmt.Errorf("listing revoked tokens: %w", err)
		}
		out[jti] = exp
	}
	return out, rows.Err()
}

// IsTokenRevoked reports whether jti was revoked.
func (s *Store) IsTokenRevoked(ctx context.Context, jti string) (bool, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM revoked_tokens WHERE jti = $1`, jti).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("checking revocation: %w", err)
	}
	return n > 0, nil
}

// ListenRevocations calls fn with each revoked token id announced by any
// replica until ctx ends or the connection fails.
func (s *Store) ListenRevocations(ctx context.Context, fn func(jti string)) error {
	conn, done, err := s.acquireUnbounded(ctx)
	if err != nil {
		return fmt.Errorf("acquiring listener connection: %w", err)
	}
	defer done()
	if _, err := conn.Exec(ctx, "LISTEN "+RevocationChannel); err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("waiting for notification: %w", err)
		}
		fn(n.Payload)
	}
}

// PurgeExpiredRevocations drops revocations of tokens that expired anyway.
func (s *Store) PurgeExpiredRevocations(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM revoked_tokens WHERE expires_at < now() - interval '1 hour'`)
	return err
}
