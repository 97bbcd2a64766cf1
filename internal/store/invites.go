package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// InviteeUserID is the user id an invitation to the address emailKey is
// for: the account's when one exists, else the id chosen by another
// pending invitation of the same address (its user record is sealed
// already), else "" (a new id is chosen).
func (s *Store) InviteeUserID(ctx context.Context, emailKey string) (id string, exists bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT id::text FROM users WHERE email_key = $1`, emailKey).Scan(&id)
	if err == nil {
		return id, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", false, fmt.Errorf("finding invitee: %w", err)
	}
	err = s.pool.QueryRow(ctx, `SELECT user_id::text FROM org_invites WHERE email_key = $1 AND accepted_at IS NULL
		AND user_id IS NOT NULL ORDER BY created_at LIMIT 1`, emailKey).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("finding invitee: %w", err)
	}
	return id, false, nil
}

// PendingInvite is an invitation found by its token's hash.
type PendingInvite struct {
	Invite
	EmailKey string
	Accepted bool
}

// InviteByHash finds the invitation whose token has SHA-256 hash;
// ErrNotFound when there is none.
func (s *Store) InviteByHash(ctx context.Context, hash []byte) (PendingInvite, error) {
	var p PendingInvite
	var userID *string
	err := s.pool.QueryRow(ctx, `SELECT org_id::text, id::text, email, email_key, role, invited_by::text, user_id::text,
		expires_at, created_at, accepted_at IS NOT NULL FROM org_invites WHERE token_hash = $1`, hash).
		Scan(&p.OrgID, &p.ID, &p.Email, &p.EmailKey, &p.Role, &p.InvitedBy, &userID, &p.ExpiresAt, &p.CreatedAt, &p.Accepted)
	if errors.Is(err, pgx.ErrNoRows) {
		return PendingInvite{}, NotFound("invitation")
	}
	if err != nil {
		return PendingInvite{}, fmt.Errorf("finding invitation: %w", err)
	}
	if userID != nil {
		p.UserID = *userID
	}
	return p, nil
}

// AcceptInvite spends the invitation (once: ErrNotFound when it was
// accepted meanwhile or has expired by the database's now(), judged in the
// statement itself) and makes its invitee a
// member with the invitation's role; passwordHash set: the invitee is a
// new user, created with it. ev is the acceptance's audit event.
func (s *Store) AcceptInvite(ctx context.Context, inv PendingInvite, passwordHash string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE org_invites SET accepted_at = now() WHERE org_id = $1 AND id = $2
			AND accepted_at IS NULL AND expires_at > now()`, inv.OrgID, inv.ID)
		if err != nil {
			return fmt.Errorf("accepting invitation: %w", err)
		}
		if tag.RowsAffected() != 1 {
			return NotFound("invitation")
		}
		if passwordHash != "" {
			_, err := tx.Exec(ctx, `INSERT INTO users (id, email, email_key, password_hash) VALUES ($1, $2, $3, $4)`,
				inv.UserID, inv.Email, inv.EmailKey, passwordHash)
			if pgCode(err) == codeUniqueViolation {
				return fmt.Errorf("accepting invitation: account exists: %w", ErrConflict)
			}
			if err != nil {
				return fmt.Errorf("accepting invitation: %w", err)
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO org_members (org_id, user_id, role) VALUES ($1, $2, $3)`, inv.OrgID, inv.UserID, inv.Role)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("accepting invitation: already a member: %w", ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("accepting invitation: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
}

// InviteBlocked reports whether inviting emailKey to orgID would be
// refused (CreateInvite's ErrConflict): the address belongs to a member or
// has a pending invitation that has not expired. Checked before anything
// is sealed for the invitee.
func (s *Store) InviteBlocked(ctx context.Context, orgID, emailKey string) (bool, error) {
	var blocked bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM org_members m JOIN users u ON u.id = m.user_id
			WHERE m.org_id = $1 AND u.email_key = $2)
		OR EXISTS (SELECT 1 FROM org_invites WHERE org_id = $1 AND email_key = $2 AND accepted_at IS NULL AND expires_at > now())`,
		orgID, emailKey).Scan(&blocked)
	if err != nil {
		return false, fmt.Errorf("checking invitation: %w", err)
	}
	return blocked, nil
}
