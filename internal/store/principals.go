package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// ActivePrincipal reports whether id is, now, an existing and active
// principal of orgID: for principalType "user", a member of the
// organization (role is its role there); for "agent", an active agent of
// the organization (role is ""). An id or org id that is not a UUID in
// canonical form (lower case, hyphenated) is not there: the cut-offs that
// refuse a principal's older tokens are keyed by that spelling, so a token
// spelling its subject otherwise must not match the principal here either.
func (s *Store) ActivePrincipal(ctx context.Context, principalType, id, orgID string) (string, bool, error) {
	if !canonicalUUID(id) || !canonicalUUID(orgID) {
		return "", false, nil
	}
	var role string
	var err error
	switch principalType {
	case "user":
		err = s.pool.QueryRow(ctx, `SELECT role FROM org_members WHERE org_id = $1 AND user_id = $2`, orgID, id).Scan(&role)
	case "agent":
		var one int
		err = s.pool.QueryRow(ctx, `SELECT 1 FROM agents WHERE org_id = $1 AND id = $2 AND status = 'active'`, orgID, id).Scan(&one)
	default:
		return "", false, nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading principal: %w", err)
	}
	return role, true, nil
}

func canonicalUUID(s string) bool {
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s
}
