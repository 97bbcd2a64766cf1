package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// UserByID finds a user with its password hash and lockout state.
func (s *Store) UserByID(ctx context.Context, id string) (User, error) {
	var u User
	var locked *time.Time
	err := s.pool.QueryRow(ctx, `SELECT id, email, coalesce(password_hash, ''), created_at, platform_role, locked_until
		FROM users WHERE id = $1`, id).
		Scan(&u.ID, &u.Email, &u.PasswordHash, &u.CreatedAt, &u.PlatformRole, &locked)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, fmt.Errorf("finding user: %w", ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("finding user: %w", err)
	}
	if locked != nil {
		u.LockedUntil = *locked
	}
	return u, nil
}

// RecordLoginFailure counts one failed password check of userID, atomically
// in one UPDATE so that concurrent failures all count. The max-th failure
// locks the account for lockFor (and restarts the count for after the lock).
// A failure while the account is locked does not count. It returns when the
// account is locked until (zero when it is not locked). ev is recorded in the
// same transaction, and lockEv too when this failure locked the account.
func (s *Store) RecordLoginFailure(ctx context.Context, userID string, max int, lockFor time.Duration,
	ev, lockEv *auditchain.Event) (time.Time, error) {
	var until *time.Time
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var locked bool
		err := tx.QueryRow(ctx, `UPDATE users SET
				failed_logins = CASE WHEN failed_logins + 1 >= $2 THEN 0 ELSE failed_logins + 1 END,
				locked_until  = CASE WHEN failed_logins + 1 >= $2 THEN now() + make_interval(secs => $3) ELSE NULL END
			WHERE id = $1 AND (locked_until IS NULL OR locked_until <= now())
			RETURNING locked_until, locked_until IS NOT NULL`, userID, max, lockFor.Seconds()).Scan(&until, &locked)
		if errors.Is(err, pgx.ErrNoRows) {
			// Already locked (or gone): report the lock, count nothing.
			err = tx.QueryRow(ctx, `SELECT locked_until FROM users WHERE id = $1`, userID).Scan(&until)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("recording sign-in failure: %w", ErrNotFound)
			}
			if err != nil {
				return fmt.Errorf("recording sign-in failure: %w", err)
			}
			return insertEvent(ctx, tx, ev)
		}
		if err != nil {
			return fmt.Errorf("recording sign-in failure: %w", err)
		}
		if err := insertEvent(ctx, tx, ev); err != nil {
			return err
		}
		if locked {
			return insertEvent(ctx, tx, lockEv)
		}
		return nil
	})
	if err != nil || until == nil {
		return time.Time{}, err
	}
	return *until, nil
}

// CompleteSignIn finishes a successful password check of userID in one
// transaction: ErrLocked when the account is locked (checked again here, so
// that a lock set by concurrent failures wins), otherwise the failure count
// is reset, refresh (when not nil) is stored as the first token of a new
// family, and ev is recorded.
func (s *Store) CompleteSignIn(ctx context.Context, userID string, refresh *RefreshToken, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET failed_logins = 0, locked_until = NULL
			WHERE id = $1 AND (locked_until IS NULL OR locked_until <= now())`, userID)
		if err != nil {
			return fmt.Errorf("completing sign-in: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("completing sign-in: %w", ErrLocked)
		}
		if refresh != nil {
			if err := insertRefreshToken(ctx, tx, *refresh); err != nil {
				return err
			}
		}
		return insertEvent(ctx, tx, ev)
	})
}

// ChangePassword replaces the password hash of userID, revokes every refresh
// token of the user (sessions started with the old password end) and resets
// the failure count, with ev, in one transaction.
func (s *Store) ChangePassword(ctx context.Context, userID, hash string, ev *auditchain.Event) error {
	return s.inTxRevoking(ctx, func(tx pgx.Tx, revoke func(userID, orgID string) error) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, failed_logins = 0 WHERE id = $1`, userID, hash)
		if err != nil {
			return fmt.Errorf("changing password: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("changing password: %w", ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `UPDATE refresh_tokens SET revoked_at = now()
			WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
			return fmt.Errorf("revoking refresh tokens: %w", err)
		}
		if err := revoke(userID, AllOrgs); err != nil { // access tokens too
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
}

// SetPassword sets the password of a user who has none; ErrConflict when
// one is already set.
func (s *Store) SetPassword(ctx context.Context, userID, hash string, ev *auditchain.Event) error {
	return s.inTxRevoking(ctx, func(tx pgx.Tx, revoke func(userID, orgID string) error) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1 AND password_hash IS NULL`, userID, hash)
		if err != nil {
			return fmt.Errorf("setting password: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("setting password: %w", ErrConflict)
		}
		if err := revoke(userID, AllOrgs); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
}

// UserSettings are a user's security settings.
type UserSettings struct {
	RequirePasskeyForVaults bool
}

// Settings returns the settings of userID (the defaults when never saved).
func (s *Store) Settings(ctx context.Context, userID string) (UserSettings, error) {
	var out UserSettings
	err := s.pool.QueryRow(ctx, `SELECT require_passkey_for_vaults FROM user_settings WHERE user_id = $1`, userID).
		Scan(&out.RequirePasskeyForVaults)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return UserSettings{}, fmt.Errorf("reading settings: %w", err)
	}
	return out, nil
}

// SaveSettings stores the settings of userID with ev.
func (s *Store) SaveSettings(ctx context.Context, userID string, in UserSettings, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO user_settings (user_id, require_passkey_for_vaults) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET require_passkey_for_vaults = $2, updated_at = now()`,
			userID, in.RequirePasskeyForVaults); err != nil {
			return fmt.Errorf("saving settings: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
}

// ListUsers lists every user of the platform in id order, after the id
// after ("" from the start).
func (s *Store) ListUsers(ctx context.Context, after string, limit int) ([]User, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, email, created_at, platform_role FROM users
		WHERE ($1 = '' OR id > nullif($1, '')::uuid) ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("listing users: %w", err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Email, &u.CreatedAt, &u.PlatformRole); err != nil {
			return nil, fmt.Errorf("listing users: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// SetPlatformRole gives the user with emailKey the platform role, recording
// ev(user, membership) in the same transaction when the role changed. It
// returns the user and whether anything changed; ErrNotFound when there is
// no such user.
func (s *Store) SetPlatformRole(ctx context.Context, emailKey, role string,
	ev func(User, Membership) *auditchain.Event) (User, bool, error) {
	var u User
	var changed bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var m Membership
		err := tx.QueryRow(ctx, `SELECT u.id, u.email, u.platform_role, m.org_id, m.role
			FROM users u JOIN org_members m ON m.user_id = u.id
			WHERE u.email_key = $1 ORDER BY m.created_at LIMIT 1 FOR UPDATE OF u`, emailKey).
			Scan(&u.ID, &u.Email, &u.PlatformRole, &m.OrgID, &m.Role)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("finding user: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("finding user: %w", err)
		}
		if u.PlatformRole == role {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET platform_role = $2 WHERE id = $1`, u.ID, role); err != nil {
			return fmt.Errorf("setting platform role: %w", err)
		}
		u.PlatformRole, changed = role, true
		return insertEvent(ctx, tx, ev(u, m))
	})
	return u, changed, err
}
