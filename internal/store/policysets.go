package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/policy"
)

// storePolicySetBytes moves the vault's policy_version on by one and stores
// the canonical encoding of its whole policy set at that version, with a
// NULL MAC (the enclave's SealPolicySet fills it), and returns the version
// and the encoding. The caller holds the vault's row lock, inside the
// transaction of the policy change.
func storePolicySetBytes(ctx context.Context, tx pgx.Tx, orgID, vaultID string) (uint64, []byte, error) {
	var version int64
	if err := tx.QueryRow(ctx, `UPDATE vaults SET policy_version = policy_version + 1 WHERE org_id = $1 AND id = $2
		RETURNING policy_version`, orgID, vaultID).Scan(&version); err != nil {
		return 0, nil, fmt.Errorf("moving policy version: %w", err)
	}
	ps, err := collectPolicies(tx.Query(ctx, `SELECT `+policyColumns+` FROM policies WHERE org_id = $1 AND vault_id = $2`,
		orgID, vaultID))
	if err != nil {
		return 0, nil, err
	}
	set := policy.EncodeSet(vaultID, uint64(version), rules(ps))
	if _, err := tx.Exec(ctx, `INSERT INTO vault_policy_sets (org_id, vault_id, version, set, mac) VALUES ($1, $2, $3, $4, NULL)
		ON CONFLICT (org_id, vault_id) DO UPDATE SET version = excluded.version, set = excluded.set, mac = NULL`,
		orgID, vaultID, version, set); err != nil {
		return 0, nil, fmt.Errorf("storing policy set: %w", err)
	}
	return uint64(version), set, nil
}

// PolicySet returns the vault's encoded policy set, its version and its MAC
// (nil until the enclave sealed it). A vault without any policy change yet
// has version 0 and the encoding of the empty set. ErrNotFound for a vault
// missing in the organization.
func (s *Store) PolicySet(ctx context.Context, orgID, vaultID string) (version uint64, set, mac []byte, err error) {
	var v int64
	err = s.pool.QueryRow(ctx, `SELECT ps.version, ps.set, ps.mac FROM vaults v
		JOIN vault_policy_sets ps ON ps.org_id = v.org_id AND ps.vault_id = v.id
		WHERE v.org_id = $1 AND v.id = $2`, orgID, vaultID).Scan(&v, &set, &mac)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := s.GetVault(ctx, orgID, vaultID); err != nil {
			return 0, nil, nil, err
		}
		return 0, policy.EncodeSet(vaultID, 0, nil), nil, nil
	}
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading policy set: %w", err)
	}
	return uint64(v), set, mac, nil
}

// SetPolicySetMAC stores the enclave's MAC of the vault's policy set at
// version; a set that moved on meanwhile is left alone (its own change
// seals it). It reports whether the MAC was stored.
func (s *Store) SetPolicySetMAC(ctx context.Context, orgID, vaultID string, version uint64, mac []byte) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE vault_policy_sets SET mac = $4 WHERE org_id = $1 AND vault_id = $2 AND version = $3`,
		orgID, vaultID, int64(version), mac)
	if err != nil {
		return false, fmt.Errorf("storing policy set mac: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// ListPolicies lists a vault's policies in id order after the id after.
func (s *Store) ListPolicies(ctx context.Context, orgID, vaultID, after string, limit int) ([]Policy, error) {
	return collectPolicies(s.pool.Query(ctx, `SELECT `+policyColumns+` FROM policies
		WHERE org_id = $1 AND vault_id = $2 AND ($3 = '' OR id > nullif($3, '')::uuid) ORDER BY id LIMIT $4`,
		orgID, vaultID, after, limit))
}

// PrincipalPolicies returns a principal's policies in one vault (one
// indexed query), as enforcement evaluates them. A vault the organization
// does not have simply has none.
func (s *Store) PrincipalPolicies(ctx context.Context, orgID, vaultID, principalType, principalID string) ([]policy.Policy, error) {
	ps, err := collectPolicies(s.pool.Query(ctx, `SELECT `+policyColumns+` FROM policies
		WHERE org_id = $1 AND vault_id = $2 AND principal_type = $3 AND principal_id = $4`,
		orgID, vaultID, principalType, principalID))
	if err != nil {
		return nil, err
	}
	return rules(ps), nil
}

// AgentPolicies returns every policy of an agent across the organization's
// vaults (for its derived scopes).
func (s *Store) AgentPolicies(ctx context.Context, orgID, agentID string) ([]policy.Policy, error) {
	ps, err := collectPolicies(s.pool.Query(ctx, `SELECT `+policyColumns+` FROM policies
		WHERE org_id = $1 AND principal_type = 'agent' AND principal_id = $2`, orgID, agentID))
	if err != nil {
		return nil, err
	}
	return rules(ps), nil
}

// ListVaultsFor lists, like ListVaults, only the vaults where the principal
// holds at least one unexpired allow policy.
func (s *Store) ListVaultsFor(ctx context.Context, orgID, principalType, principalID, after string, limit int) ([]Vault, error) {
	return s.queryVaults(ctx, `SELECT `+vaultColumns+` FROM vaults v
		WHERE v.org_id = $1 AND ($4 = '' OR v.id > nullif($4, '')::uuid)
		AND EXISTS (SELECT 1 FROM policies p WHERE p.org_id = v.org_id AND p.vault_id = v.id AND p.principal_type = $2
			AND p.principal_id = $3 AND p.effect = 'allow' AND (p.expires_at IS NULL OR p.expires_at > now()))
		ORDER BY v.id LIMIT $5`, orgID, principalType, principalID, after, limit)
}
