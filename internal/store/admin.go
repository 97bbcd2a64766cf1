package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// OrgPolicyChanges are the policy sets of one organization that moved on
// when a user left it, with a remaining owner or admin (Sealer) on whose
// behalf they are sealed again.
type OrgPolicyChanges struct {
	OrgID   string
	Sealer  Member
	Changes []PolicyChange
}

// UserDeletion is what deleting a user did.
type UserDeletion struct {
	User        User
	Changes     []OrgPolicyChanges
	APIKeyIDs   []string // deleted API keys (announced on APIKeyRevocationChannel)
	DeletedOrgs []string // organizations deleted because the user was their only member
}

type membershipRef struct {
	orgID, role string
}

// DeleteUser deletes a user account with ev, in one transaction. check sees
// the user (locked) and may refuse with its own error. In every
// organization where the user is the only member, the organization is
// deleted with everything it owns (vaults, secrets, agents, policies). In
// the others the user's membership goes as RemoveMember does it (policies,
// API keys, refresh tokens). Share links the user created or received
// are deleted; vaults it created lose their created_by. The user's access tokens are cut off
// everywhere (AllOrgs). ErrNotFound when there is no such user; a
// *LastOwnerError (ErrLastOwner) when the user is the only owner of an
// organization that has other members: nothing is changed then.
func (s *Store) DeleteUser(ctx context.Context, userID string, check func(User) error, ev *auditchain.Event) (UserDeletion, error) {
	var out UserDeletion
	err := s.inTxRevoking(ctx, func(tx pgx.Tx, revoke func(userID, orgID string) error) error {
		u := &out.User
		err := tx.QueryRow(ctx, `SELECT id, email, created_at, platform_role FROM users WHERE id = $1 FOR UPDATE`, userID).
			Scan(&u.ID, &u.Email, &u.CreatedAt, &u.PlatformRole)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("deleting user: %w", NotFound("user"))
		}
		if err != nil {
			return fmt.Errorf("deleting user: %w", err)
		}
		if err := check(*u); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT org_id::text, role FROM org_members WHERE user_id = $1 ORDER BY org_id`, userID)
		if err != nil {
			return fmt.Errorf("listing memberships: %w", err)
		}
		refs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (membershipRef, error) {
			var m membershipRef
			return m, r.Scan(&m.orgID, &m.role)
		})
		if err != nil {
			return fmt.Errorf("listing memberships: %w", err)
		}
		for _, m := range refs {
			if err := leaveOrg(ctx, tx, userID, m, &out); err != nil {
				return err
			}
		}
		// Share links the user created or received go; what the user created
		// in organizations that stay keeps its creator id (no foreign key).
		if _, err := tx.Exec(ctx, `DELETE FROM shares WHERE (creator_type = 'user' AND creator_id = $1) OR recipient_id = $1`,
			userID); err != nil {
			return fmt.Errorf("deleting share links: %w", err)
		}
		orgIDs := make([]string, 0, len(refs))
		for _, m := range refs {
			orgIDs = append(orgIDs, m.orgID)
		}
		if _, err := tx.Exec(ctx, `UPDATE vaults SET created_by = NULL WHERE org_id = ANY ($2::uuid[]) AND created_by = $1`,
			userID, orgIDs); err != nil {
			return fmt.Errorf("clearing vault creators: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, userID); err != nil {
			return fmt.Errorf("deleting user: %w", err)
		}
		// Access tokens already issued stop working at once, everywhere.
		if err := revoke(userID, AllOrgs); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	if err != nil {
		return UserDeletion{}, err
	}
	return out, nil
}

// leaveOrg takes the user out of one organization for DeleteUser: deletes
// the organization when the user is its only member, refuses when the user
// is its last owner, removes the membership otherwise.
func leaveOrg(ctx context.Context, tx pgx.Tx, userID string, m membershipRef, out *UserDeletion) error {
	if _, err := lockMembership(ctx, tx, m.orgID, userID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("leaving organization: %w", NotFound("user")) // the user is what DeleteUser misses
		}
		return err
	}
	var others, otherOwners int
	if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE role = 'owner') FROM org_members
		WHERE org_id = $1 AND user_id <> $2`, m.orgID, userID).Scan(&others, &otherOwners); err != nil {
		return fmt.Errorf("counting members: %w", err)
	}
	switch {
	case others == 0:
		rows, err := tx.Query(ctx, `DELETE FROM api_keys WHERE org_id = $1 RETURNING id::text`, m.orgID)
		if err != nil {
			return fmt.Errorf("deleting organization api keys: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("deleting organization api keys: %w", err)
		}
		if err := notifyAPIKeyRevocations(ctx, tx, ids); err != nil {
			return err
		}
		// Its agents go with it: their access tokens are cut off first, so
		// that a replica that verified one before refuses it from now on.
		if err := revokeOrgAgentTokens(ctx, tx, m.orgID); err != nil {
			return err
		}
		// Vaults, secrets, policies, agents, memberships and the rest
		// go with the organization (ON DELETE CASCADE).
		if _, err := tx.Exec(ctx, `DELETE FROM orgs WHERE id = $1`, m.orgID); err != nil {
			return fmt.Errorf("deleting organization: %w", err)
		}
		out.APIKeyIDs = append(out.APIKeyIDs, ids...)
		out.DeletedOrgs = append(out.DeletedOrgs, m.orgID)
		return nil
	case m.role == "owner" && otherOwners == 0:
		return fmt.Errorf("deleting user: %w", &LastOwnerError{OrgID: m.orgID})
	}
	changes, ids, err := removeMembership(ctx, tx, m.orgID, userID)
	if err != nil {
		return err
	}
	out.APIKeyIDs = append(out.APIKeyIDs, ids...)
	if len(changes) == 0 {
		return nil
	}
	oc := OrgPolicyChanges{OrgID: m.orgID, Changes: changes, Sealer: Member{}}
	err = tx.QueryRow(ctx, `SELECT m.user_id::text, u.email, m.role, m.created_at FROM org_members m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = $1 AND m.role IN ('owner', 'admin') ORDER BY m.role = 'owner' DESC, m.created_at LIMIT 1`, m.orgID).
		Scan(&oc.Sealer.UserID, &oc.Sealer.Email, &oc.Sealer.Role, &oc.Sealer.JoinedAt)
	if err != nil {
		return fmt.Errorf("finding a sealer: %w", err)
	}
	out.Changes = append(out.Changes, oc)
	return nil
}

// OrgUsage is an organization's tier and how many capped resources it has.
type OrgUsage struct {
	Tier    string
	Vaults  int64
	Secrets int64
	Agents  int64
}

// OrgUsage counts the organization's vaults, secrets and agents;
// ErrNotFound when there is no such organization.
func (s *Store) OrgUsage(ctx context.Context, orgID string) (OrgUsage, error) {
	var u OrgUsage
	err := s.pool.QueryRow(ctx, `SELECT o.tier,
			(SELECT count(*) FROM vaults WHERE org_id = o.id),
			(SELECT count(*) FROM secrets WHERE org_id = o.id),
			(SELECT count(*) FROM agents WHERE org_id = o.id)
		FROM orgs o WHERE o.id = $1`, orgID).Scan(&u.Tier, &u.Vaults, &u.Secrets, &u.Agents)
	if errors.Is(err, pgx.ErrNoRows) {
		return OrgUsage{}, fmt.Errorf("counting usage of org %s: %w", orgID, NotFound("organization"))
	}
	if err != nil {
		return OrgUsage{}, fmt.Errorf("counting usage of org %s: %w", orgID, err)
	}
	return u, nil
}
