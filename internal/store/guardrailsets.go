package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// GuardrailSource is what an agent's next guardrail set is made of.
type GuardrailSource struct {
	Guardrails []byte // the agent's guardrail fields (a JSON object)
	Rules      []TxRuleRow
	Version    int64 // the version stored now; the next set is Version+1
}

// TxRuleRow is one policy with tx_conditions that targets an agent.
type TxRuleRow struct {
	Effect     string
	Priority   int
	Conditions []byte
	ExpiresAt  *time.Time
}

// AgentGuardrailSource reads the agent's guardrail fields, the
// tx_conditions of the unexpired policies (any vault) that target it, and
// its guardrail-set version. ErrNotFound for a missing or inactive agent.
func (s *Store) AgentGuardrailSource(ctx context.Context, orgID, agentID string) (GuardrailSource, error) {
	var src GuardrailSource
	err := s.pool.QueryRow(ctx, `SELECT guardrails, guardrail_version FROM agents
		WHERE org_id = $1 AND id = $2 AND status = 'active'`, orgID, agentID).Scan(&src.Guardrails, &src.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return GuardrailSource{}, fmt.Errorf("agent %s: %w", agentID, ErrNotFound)
	}
	if err != nil {
		return GuardrailSource{}, fmt.Errorf("reading guardrails: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT effect, priority, tx_conditions, expires_at FROM policies
		WHERE org_id = $1 AND principal_type = 'agent' AND principal_id = $2 AND tx_conditions IS NOT NULL
			AND tx_conditions <> '{}'::jsonb AND (expires_at IS NULL OR expires_at > now())
		ORDER BY id`, orgID, agentID)
	if err != nil {
		return GuardrailSource{}, fmt.Errorf("reading tx rules: %w", err)
	}
	src.Rules, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (TxRuleRow, error) {
		var t TxRuleRow
		err := r.Scan(&t.Effect, &t.Priority, &t.Conditions, &t.ExpiresAt)
		return t, err
	})
	if err != nil {
		return GuardrailSource{}, fmt.Errorf("reading tx rules: %w", err)
	}
	return src, nil
}

// StageGuardrailSet stores set as the agent's guardrail set at version,
// unsealed, when the stored version is still version-1; ErrConflict when
// another change staged a version first.
func (s *Store) StageGuardrailSet(ctx context.Context, orgID, agentID string, version int64, set []byte) error {
	tag, err := s.pool.Exec(ctx, `UPDATE agents SET guardrail_set = $4, guardrail_mac = NULL, guardrail_version = $3
		WHERE org_id = $1 AND id = $2 AND guardrail_version = $3 - 1`, orgID, agentID, version, set)
	if err != nil {
		return fmt.Errorf("staging guardrail set: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("staging guardrail set %d: %w", version, ErrConflict)
	}
	return nil
}

// SetGuardrailMAC stores the enclave's MAC of the agent's guardrail set at
// version; a set moved on meanwhile keeps its own (missing) MAC.
func (s *Store) SetGuardrailMAC(ctx context.Context, orgID, agentID string, version int64, mac []byte) error {
	if _, err := s.pool.Exec(ctx, `UPDATE agents SET guardrail_mac = $4
		WHERE org_id = $1 AND id = $2 AND guardrail_version = $3`, orgID, agentID, version, mac); err != nil {
		return fmt.Errorf("storing guardrail mac: %w", err)
	}
	return nil
}
