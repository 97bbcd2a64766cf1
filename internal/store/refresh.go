package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// RefreshToken is one issued refresh token. Only the SHA-256 of the token
// is stored; the token itself is shown once, to the client.
type RefreshToken struct {
	OrgID     string
	ID        string
	FamilyID  string
	UserID    string
	Hash      []byte
	ExpiresAt time.Time
}

// RefreshGrant is what a valid refresh token grants: an access token for
// the user in the token's organization, with the roles the user has now.
type RefreshGrant struct {
	OrgID        string
	UserID       string
	FamilyID     string
	Role         string
	PlatformRole string
}

func insertRefreshToken(ctx context.Context, tx pgx.Tx, t RefreshToken) error {
	_, err := tx.Exec(ctx, `INSERT INTO refresh_tokens (org_id, id, family_id, user_id, token_hash, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, t.OrgID, t.ID, t.FamilyID, t.UserID, t.Hash, t.ExpiresAt)
	if err != nil {
		return fmt.Errorf("storing refresh token: %w", err)
	}
	return nil
}

// RotateRefreshToken spends the refresh token whose hash is old. The row is
// locked, so concurrent presentations of one token are serialised.
//   - A live token (unused, not revoked, not expired, its user still a
//     member) is marked used; issue is called with the grant (it mints the
//     access token and returns the request's audit event); next is stored in
//     the same family (organization, family and user are taken from the old
//     token); all in one transaction.
//   - A token that was already used: the whole family is revoked and the
//     events of onReuse are recorded, committed, and ErrReused is returned.
//   - An unknown, revoked or expired token: ErrNotFound.
func (s *Store) RotateRefreshToken(ctx context.Context, old []byte, next RefreshToken,
	issue func(context.Context, RefreshGrant) (*auditchain.Event, error),
	onReuse func(RefreshGrant) []*auditchain.Event) error {
	reused := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var g RefreshGrant
		var id string
		var used, revoked *time.Time
		var live bool
		err := tx.QueryRow(ctx, `SELECT org_id, id, family_id, user_id, used_at, revoked_at, expires_at > now()
			FROM refresh_tokens WHERE token_hash = $1 LIMIT 1 FOR UPDATE`, old).
			Scan(&g.OrgID, &id, &g.FamilyID, &g.UserID, &used, &revoked, &live)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("finding refresh token: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("finding refresh token: %w", err)
		}
		if revoked != nil || !live {
			return fmt.Errorf("finding refresh token: %w", ErrNotFound)
		}
		if used != nil {
			if err := revokeFamily(ctx, tx, g.OrgID, g.FamilyID); err != nil {
				return err
			}
			for _, ev := range onReuse(g) {
				if err := insertEvent(ctx, tx, ev); err != nil {
					return err
				}
			}
			reused = true
			return nil
		}
		err = tx.QueryRow(ctx, `SELECT m.role, u.platform_role FROM org_members m JOIN users u ON u.id = m.user_id
			WHERE m.org_id = $1 AND m.user_id = $2`, g.OrgID, g.UserID).Scan(&g.Role, &g.PlatformRole)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("finding refresh token member: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("finding refresh token member: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE refresh_tokens SET used_at = now() WHERE org_id = $1 AND id = $2`, g.OrgID, id); err != nil {
			return fmt.Errorf("spending refresh token: %w", err)
		}
		ev, err := issue(ctx, g)
		if err != nil {
			return err
		}
		next.OrgID, next.FamilyID, next.UserID = g.OrgID, g.FamilyID, g.UserID
		if err := insertRefreshToken(ctx, tx, next); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	if err == nil && reused {
		return fmt.Errorf("refreshing: %w", ErrReused)
	}
	return err
}

func revokeFamily(ctx context.Context, tx pgx.Tx, orgID, familyID string) error {
	if _, err := tx.Exec(ctx, `UPDATE refresh_tokens SET revoked_at = now()
		WHERE org_id = $1 AND family_id = $2 AND revoked_at IS NULL`, orgID, familyID); err != nil {
		return fmt.Errorf("revoking refresh token family: %w", err)
	}
	return nil
}

// RevokeSession revokes an access token as RevokeToken does and, in the
// same transaction, the family of the refresh token whose hash is
// refreshHash when it belongs to userID (any other refresh token is left
// alone, without an error). It reports whether a family was revoked.
func (s *Store) RevokeSession(ctx context.Context, jti, orgID string, exp time.Time, refreshHash []byte, userID string,
	ev *auditchain.Event) (bool, error) {
	var revoked bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := revokeTokenTx(ctx, tx, jti, orgID, exp); err != nil {
			return err
		}
		var org, family string
		err := tx.QueryRow(ctx, `SELECT org_id, family_id FROM refresh_tokens WHERE token_hash = $1 AND user_id = $2 LIMIT 1`,
			refreshHash, userID).Scan(&org, &family)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("finding refresh token: %w", err)
		default:
			if err := revokeFamily(ctx, tx, org, family); err != nil {
				return err
			}
			revoked = true
		}
		return insertEvent(ctx, tx, ev)
	})
	return revoked, err
}

// PurgeExpiredIdentity drops refresh tokens and pending invitations that
// expired more than a day ago (a spent refresh token must outlive its
// expiry for reuse to stay detectable; past it, it is refused anyway).
func (s *Store) PurgeExpiredIdentity(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'`); err != nil {
		return fmt.Errorf("purging refresh tokens: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM org_invites WHERE accepted_at IS NULL AND expires_at < now() - interval '1 day'`); err != nil {
		return fmt.Errorf("purging invitations: %w", err)
	}
	return nil
}
