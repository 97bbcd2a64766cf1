package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Member is a user's membership as its organization sees it.
type Member struct {
	UserID   string
	Email    string
	Role     string
	JoinedAt time.Time
}

// ListMembers lists an organization's members in user id order, after the
// user id after.
func (s *Store) ListMembers(ctx context.Context, orgID, after string, limit int) ([]Member, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.user_id, u.email, m.role, m.created_at
		FROM org_members m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = $1 AND ($2 = '' OR m.user_id > nullif($2, '')::uuid)
		ORDER BY m.user_id LIMIT $3`, orgID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("listing members: %w", err)
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.UserID, &m.Email, &m.Role, &m.JoinedAt); err != nil {
			return nil, fmt.Errorf("listing members: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Invite is an invitation to join an organization with a role. Only the
// SHA-256 of its token is stored.
type Invite struct {
	OrgID     string
	ID        string
	Email     string
	Role      string
	InvitedBy string
	UserID    string // the invitee's user id, chosen at invitation
	Hash      []byte
	ExpiresAt time.Time
	CreatedAt time.Time
}

// CreateInvite stores a pending invitation for the address whose normalised
// form is emailKey, with ev. ErrConflict when the address belongs to a
// member already or has a pending invitation that has not expired (an
// expired one is replaced).
func (s *Store) CreateInvite(ctx context.Context, in Invite, emailKey string, ev *auditchain.Event) (Invite, error) {
	out := in
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var member bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM org_members m JOIN users u ON u.id = m.user_id
			WHERE m.org_id = $1 AND u.email_key = $2)`, in.OrgID, emailKey).Scan(&member); err != nil {
			return fmt.Errorf("checking membership: %w", err)
		}
		if member {
			return fmt.Errorf("inviting: already a member: %w", ErrConflict)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM org_invites WHERE org_id = $1 AND email_key = $2
			AND accepted_at IS NULL AND expires_at <= now()`, in.OrgID, emailKey); err != nil {
			return fmt.Errorf("replacing expired invitation: %w", err)
		}
		err := tx.QueryRow(ctx, `INSERT INTO org_invites (org_id, id, email, email_key, role, token_hash, invited_by, expires_at, user_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, nullif($9, '')::uuid) RETURNING created_at`,
			in.OrgID, in.ID, in.Email, emailKey, in.Role, in.Hash, in.InvitedBy, in.ExpiresAt, in.UserID).Scan(&out.CreatedAt)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("inviting: already invited: %w", ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("inviting: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}
