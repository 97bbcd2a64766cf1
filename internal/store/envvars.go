package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// VaultIDByName returns the id of the organization's oldest vault named
// name (the env-var resolver's organization layer is the vault "shared");
// ErrNotFound when there is none.
func (s *Store) VaultIDByName(ctx context.Context, orgID, name string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT id::text FROM vaults WHERE org_id = $1 AND name = $2
		ORDER BY created_at, id LIMIT 1`, orgID, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("finding vault: %w", NotFound("vault"))
	}
	if err != nil {
		return "", fmt.Errorf("finding vault: %w", err)
	}
	return id, nil
}
