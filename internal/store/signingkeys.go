package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Signing key statuses.
const (
	SigningKeyActive  = "active"
	SigningKeyRotated = "rotated"
	SigningKeyDeleted = "deleted"
)

// SigningKey is the public half of an agent's key for one chain; the
// private half is in the HSM.
type SigningKey struct {
	OrgID         string
	AgentID       string
	Chain         string
	Version       int
	Curve         string
	PublicKey     []byte
	Address       string
	Imported      bool
	Status        string
	CreatedAt     time.Time
	DeactivatedAt *time.Time
}

const signingKeyColumns = `org_id, agent_id, chain, version, curve, public_key, address, imported, status, created_at, deactivated_at`

func scanSigningKey(row pgx.Row) (SigningKey, error) {
	var k SigningKey
	err := row.Scan(&k.OrgID, &k.AgentID, &k.Chain, &k.Version, &k.Curve, &k.PublicKey, &k.Address, &k.Imported,
		&k.Status, &k.CreatedAt, &k.DeactivatedAt)
	return k, err
}

// ActiveSigningKey returns the agent's active key for chain; a not-found
// naming the signing key (matching ErrNotFound) when there is none.
func (s *Store) ActiveSigningKey(ctx context.Context, orgID, agentID, chain string) (SigningKey, error) {
	k, err := scanSigningKey(s.pool.QueryRow(ctx, `SELECT `+signingKeyColumns+` FROM signing_keys
		WHERE org_id = $1 AND agent_id = $2 AND chain = $3 AND status = 'active'`, orgID, agentID, chain))
	if errors.Is(err, pgx.ErrNoRows) {
		return SigningKey{}, fmt.Errorf("signing key %s: %w", chain, NotFound("signing key"))
	}
	if err != nil {
		return SigningKey{}, fmt.Errorf("reading signing key: %w", err)
	}
	return k, nil
}

// ListSigningKeys returns the agent's active keys in chain order.
func (s *Store) ListSigningKeys(ctx context.Context, orgID, agentID string) ([]SigningKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+signingKeyColumns+` FROM signing_keys
		WHERE org_id = $1 AND agent_id = $2 AND status = 'active' ORDER BY chain`, orgID, agentID)
	if err != nil {
		return nil, fmt.Errorf("listing signing keys: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SigningKey, error) { return scanSigningKey(r) })
	if err != nil {
		return nil, fmt.Errorf("listing signing keys: %w", err)
	}
	return out, nil
}

// CountSigningKeys counts the organization's active signing keys (wallets).
func (s *Store) CountSigningKeys(ctx context.Context, orgID string) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM signing_keys WHERE org_id = $1 AND status = 'active'`, orgID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting signing keys: %w", err)
	}
	return n, nil
}

// NextSigningKeyVersion is one more than the highest version the agent
// ever had for chain (1 for the first key).
func (s *Store) NextSigningKeyVersion(ctx context.Context, orgID, agentID, chain string) (int, error) {
	var v int
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) + 1 FROM signing_keys
		WHERE org_id = $1 AND agent_id = $2 AND chain = $3`, orgID, agentID, chain).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("reading signing key versions: %w", err)
	}
	return v, nil
}

// AddSigningKey records a new key version with ev. With rotate the active
// version (there must be one: else ErrNotFound) becomes rotated and the
// signing_key.rotated event is emitted; without it an active key for the
// chain is ErrConflict.
func (s *Store) AddSigningKey(ctx context.Context, k SigningKey, rotate bool, ev *auditchain.Event) (SigningKey, error) {
	var out SigningKey
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if rotate {
			var old int
			err := tx.QueryRow(ctx, `UPDATE signing_keys SET status = 'rotated', deactivated_at = now()
				WHERE org_id = $1 AND agent_id = $2 AND chain = $3 AND status = 'active' RETURNING version`,
				k.OrgID, k.AgentID, k.Chain).Scan(&old)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("rotating signing key %s: %w", k.Chain, ErrNotFound)
			}
			if err != nil {
				return fmt.Errorf("rotating signing key: %w", err)
			}
			data := map[string]any{"agent_id": k.AgentID, "chain": k.Chain, "previous_version": old,
				"version": k.Version, "address": k.Address}
			if _, err := EmitEvent(ctx, tx, k.OrgID, "signing_key.rotated", data); err != nil {
				return err
			}
		}
		var err error
		out, err = scanSigningKey(tx.QueryRow(ctx, `INSERT INTO signing_keys
			(org_id, agent_id, chain, version, curve, public_key, address, imported)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+signingKeyColumns,
			k.OrgID, k.AgentID, k.Chain, k.Version, k.Curve, k.PublicKey, k.Address, k.Imported))
		switch {
		case pgCode(err) == codeUniqueViolation:
			return fmt.Errorf("adding signing key %s: %w", k.Chain, ErrConflict)
		case pgCode(err) == codeForeignKeyViolation:
			return fmt.Errorf("adding signing key: agent: %w", ErrNotFound)
		case err != nil:
			return fmt.Errorf("adding signing key: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// DeleteSigningKey deactivates the agent's active key for chain, with ev;
// a not-found naming the signing key when there is none.
func (s *Store) DeleteSigningKey(ctx context.Context, orgID, agentID, chain string, ev *auditchain.Event) (SigningKey, error) {
	var out SigningKey
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanSigningKey(tx.QueryRow(ctx, `UPDATE signing_keys SET status = 'deleted', deactivated_at = now()
			WHERE org_id = $1 AND agent_id = $2 AND chain = $3 AND status = 'active' RETURNING `+signingKeyColumns,
			orgID, agentID, chain))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("deleting signing key %s: %w", chain, NotFound("signing key"))
		}
		if err != nil {
			return fmt.Errorf("deleting signing key: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}
