package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Vault is a named container of secrets with its own KEK in the HSM.
type Vault struct {
	OrgID string
	ID    string
	Name  string
	// NameKey is the name's look-alike key: two vaults of an organization
	// never share one (ErrConflict). Empty means the name itself.
	NameKey     string
	Description string
	KEKVersion  uint32
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

const vaultColumns = `org_id, id, name, description, kek_version, coalesce(created_by::text, ''), created_at, updated_at`

func scanVault(row pgx.Row) (Vault, error) {
	var v Vault
	err := row.Scan(&v.OrgID, &v.ID, &v.Name, &v.Description, &v.KEKVersion, &v.CreatedBy, &v.CreatedAt, &v.UpdatedAt)
	return v, err
}

// CreateVault inserts v, then calls createKEK (which makes the vault's KEK in
// the HSM) and records ev, all before one commit: a vault never exists
// without its KEK. A taken name gives ErrConflict.
func (s *Store) CreateVault(ctx context.Context, v Vault, createKEK func(context.Context) (uint32, error), ev *auditchain.Event) (Vault, error) {
	var out Vault
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// Claim the name first so that a duplicate never reaches the HSM.
		key := v.NameKey
		if key == "" {
			key = v.Name
		}
		_, err := tx.Exec(ctx, `INSERT INTO vaults (org_id, id, name, name_key, description, kek_version, created_by)
			VALUES ($1, $2, $3, $4, $5, 0, nullif($6, '')::uuid)`, v.OrgID, v.ID, v.Name, key, v.Description, v.CreatedBy)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("creating vault: %w", ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("creating vault: %w", err)
		}
		kek, err := createKEK(ctx)
		if err != nil {
			return fmt.Errorf("creating vault key: %w", err)
		}
		out, err = scanVault(tx.QueryRow(ctx, `UPDATE vaults SET kek_version = $3 WHERE org_id = $1 AND id = $2
			RETURNING `+vaultColumns, v.OrgID, v.ID, kek))
		if err != nil {
			return fmt.Errorf("creating vault: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// GetVault returns one vault of the organization.
func (s *Store) GetVault(ctx context.Context, orgID, id string) (Vault, error) {
	v, err := scanVault(s.pool.QueryRow(ctx, `SELECT `+vaultColumns+` FROM vaults WHERE org_id = $1 AND id = $2`, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Vault{}, fmt.Errorf("finding vault: %w", NotFound("vault"))
	}
	if err != nil {
		return Vault{}, fmt.Errorf("finding vault: %w", err)
	}
	return v, nil
}

// ListVaults returns up to limit vaults with ids after the cursor id
// (ids are UUIDv7, so this is creation order).
func (s *Store) ListVaults(ctx context.Context, orgID, after string, limit int) ([]Vault, error) {
	return s.queryVaults(ctx, `SELECT `+vaultColumns+` FROM vaults
		WHERE org_id = $1 AND ($2 = '' OR id > nullif($2, '')::uuid) ORDER BY id LIMIT $3`, orgID, after, limit)
}

// queryVaults runs a query over vaultColumns and scans every row.
func (s *Store) queryVaults(ctx context.Context, query string, args ...any) ([]Vault, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("listing vaults: %w", err)
	}
	defer rows.Close()
	var out []Vault
	for rows.Next() {
		v, err := scanVault(rows)
		if err != nil {
			return nil, fmt.Errorf("listing vaults: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// DeleteVault deletes a vault and, by cascade, its secrets, recording ev in
// the same transaction.
func (s *Store) DeleteVault(ctx context.Context, orgID, id string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM vaults WHERE org_id = $1 AND id = $2`, orgID, id)
		if err != nil {
			return fmt.Errorf("deleting vault: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deleting vault: %w", NotFound("vault"))
		}
		return insertEvent(ctx, tx, ev)
	})
}
