package store

import (
	"context"
	"fmt"
)

// CountVaults returns how many vaults the organization has.
func (s *Store) CountVaults(ctx context.Context, orgID string) (int64, error) {
	return s.countByOrg(ctx, "vaults", `SELECT count(*) FROM vaults WHERE org_id = $1`, orgID)
}

// CountSecrets returns how many secret paths the organization has (versions
// are not counted).
func (s *Store) CountSecrets(ctx context.Context, orgID string) (int64, error) {
	return s.countByOrg(ctx, "secrets", `SELECT count(*) FROM secrets WHERE org_id = $1`, orgID)
}

// CountAgents returns how many agents the organization has.
func (s *Store) CountAgents(ctx context.Context, orgID string) (int64, error) {
	return s.countByOrg(ctx, "agents", `SELECT count(*) FROM agents WHERE org_id = $1`, orgID)
}

// SecretExists reports whether a secret exists at the path.
func (s *Store) SecretExists(ctx context.Context, orgID, vaultID, path string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM secrets WHERE org_id = $1 AND vault_id = $2 AND path = $3)`,
		orgID, vaultID, path).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("checking secret of org %s: %w", orgID, err)
	}
	return ok, nil
}

func (s *Store) countByOrg(ctx context.Context, what, query, orgID string) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, query, orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting %s of org %s: %w", what, orgID, err)
	}
	return n, nil
}
