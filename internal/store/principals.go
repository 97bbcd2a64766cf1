package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// HasPrincipal reports whether the principal an access token names is,
// now, there: for principalType "user", a user who is a member of orgID
// with role and whose platform role is platformRole ("" for none); for
// "agent", an active agent of orgID (role and platformRole must be "").
// An id or org id that is not a UUID in canonical form (lower case,
// hyphenated) is not there: the cut-offs that refuse a principal's older
// tokens are keyed by that spelling, so a token spelling its subject
// otherwise must not match the principal here either.
func (s *Store) HasPrincipal(ctx context.Context, principalType, id, orgID, role, platformRole string) (bool, error) {
	if !canonicalUUID(id) || !canonicalUUID(orgID) {
		return false, nil
	}
	var err error
	var one int
	switch {
	case principalType == "user" && role != "":
		err = s.pool.QueryRow(ctx, `SELECT 1 FROM org_members m JOIN users u ON u.id = m.user_id
			WHERE m.org_id = $1 AND m.user_id = $2 AND m.role = $3 AND u.platform_role = $4`,
			orgID, id, role, platformRole).Scan(&one)
	case principalType == "agent" && role == "" && platformRole == "":
		err = s.pool.QueryRow(ctx, `SELECT 1 FROM agents WHERE org_id = $1 AND id = $2 AND status = 'active'`, orgID, id).Scan(&one)
	default:
		return false, nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading principal: %w", err)
	}
	return true, nil
}

func canonicalUUID(s string) bool {
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s
}
