package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/policy"
)

// lockMembership serialises membership changes of one organization (NO KEY
// UPDATE does not block inserts that reference the organization) and
// returns the member with its email; ErrNotFound when userID is no member.
func lockMembership(ctx context.Context, tx pgx.Tx, orgID, userID string) (Member, error) {
	var one int
	if err := tx.QueryRow(ctx, `SELECT 1 FROM orgs WHERE id = $1 FOR NO KEY UPDATE`, orgID).Scan(&one); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return Member{}, fmt.Errorf("locking organization: %w", NotFound("member"))
		}
		return Member{}, fmt.Errorf("locking organization: %w", err)
	}
	m := Member{UserID: userID}
	err := tx.QueryRow(ctx, `SELECT u.email, m.role, m.created_at FROM org_members m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = $1 AND m.user_id = $2`, orgID, userID).Scan(&m.Email, &m.Role, &m.JoinedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Member{}, fmt.Errorf("finding member: %w", NotFound("member"))
	}
	if err != nil {
		return Member{}, fmt.Errorf("finding member: %w", err)
	}
	return m, nil
}

// checkNotLastOwner fails with ErrLastOwner when m is the organization's
// only owner.
func checkNotLastOwner(ctx context.Context, tx pgx.Tx, orgID string, m Member) error {
	if m.Role != "owner" {
		return nil
	}
	var owners int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM org_members WHERE org_id = $1 AND role = 'owner'`, orgID).Scan(&owners); err != nil {
		return fmt.Errorf("counting owners: %w", err)
	}
	if owners <= 1 {
		return fmt.Errorf("changing membership: %w", ErrLastOwner)
	}
	return nil
}

// UpdateMemberRole sets a member's role with ev. check sees the member as
// it is (under the organization's membership lock) and may refuse the
// change with its own error. ErrNotFound when userID is no member,
// ErrLastOwner when the change would leave the organization without an owner.
func (s *Store) UpdateMemberRole(ctx context.Context, orgID, userID, role string, check func(Member) error,
	ev *auditchain.Event) (Member, error) {
	var out Member
	err := s.inTxRevoking(ctx, func(tx pgx.Tx, revoke func(userID, orgID string) error) error {
		m, err := lockMembership(ctx, tx, orgID, userID)
		if err != nil {
			return err
		}
		if err := check(m); err != nil {
			return err
		}
		if role != "owner" {
			if err := checkNotLastOwner(ctx, tx, orgID, m); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE org_members SET role = $3 WHERE org_id = $1 AND user_id = $2`,
			orgID, userID, role); err != nil {
			return fmt.Errorf("updating member role: %w", err)
		}
		if m.Role != role { // its access tokens carry the old role
			if err := revoke(userID, orgID); err != nil {
				return err
			}
		}
		m.Role = role
		out = m
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// MemberRemoval is what removing a member did: the member as it was, the
// policy sets its policies left (to be sealed again), and the ids of its
// deleted API keys (announced on APIKeyRevocationChannel).
type MemberRemoval struct {
	Member    Member
	Changes   []PolicyChange
	APIKeyIDs []string
}

// RemoveMember removes a member from the organization with ev: its
// policies there (every affected vault's policy set moves on), its API
// keys (announced) and refresh tokens of that organization, then the
// membership. The user account stays. check is as for UpdateMemberRole.
// ErrNotFound when userID is no member, ErrLastOwner for the only owner.
func (s *Store) RemoveMember(ctx context.Context, orgID, userID string, check func(Member) error,
	ev *auditchain.Event) (MemberRemoval, error) {
	var out MemberRemoval
	err := s.inTxRevoking(ctx, func(tx pgx.Tx, revoke func(userID, orgID string) error) error {
		m, err := lockMembership(ctx, tx, orgID, userID)
		if err != nil {
			return err
		}
		if err := check(m); err != nil {
			return err
		}
		if err := checkNotLastOwner(ctx, tx, orgID, m); err != nil {
			return err
		}
		out.Member = m
		if out.Changes, out.APIKeyIDs, err = removeMembership(ctx, tx, orgID, userID); err != nil {
			return err
		}
		if err := revoke(userID, orgID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// removeMembership deletes userID's policies in the organization (moving
// every affected vault's policy set on), its API keys there (announced on
// APIKeyRevocationChannel), its refresh tokens there and the membership.
func removeMembership(ctx context.Context, tx pgx.Tx, orgID, userID string) ([]PolicyChange, []string, error) {
	changes, err := deletePrincipalPolicies(ctx, tx, orgID, policy.PrincipalUser, userID)
	if err != nil {
		return nil, nil, err
	}
	rows, err := tx.Query(ctx, `DELETE FROM api_keys WHERE org_id = $1 AND user_id = $2 RETURNING id::text`, orgID, userID)
	if err != nil {
		return nil, nil, fmt.Errorf("deleting member api keys: %w", err)
	}
	keyIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("deleting member api keys: %w", err)
	}
	if err := notifyAPIKeyRevocations(ctx, tx, keyIDs); err != nil {
		return nil, nil, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM refresh_tokens WHERE org_id = $1 AND user_id = $2`, orgID, userID); err != nil {
		return nil, nil, fmt.Errorf("deleting member refresh tokens: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM org_members WHERE org_id = $1 AND user_id = $2`, orgID, userID); err != nil {
		return nil, nil, fmt.Errorf("deleting membership: %w", err)
	}
	return changes, keyIDs, nil
}

// notifyAPIKeyRevocations announces deleted API keys to every replica.
func notifyAPIKeyRevocations(ctx context.Context, tx pgx.Tx, ids []string) error {
	for _, id := range ids {
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, APIKeyRevocationChannel, id); err != nil {
			return fmt.Errorf("notifying api key revocation: %w", err)
		}
	}
	return nil
}
