package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// How broadcast transactions are watched.
const (
	// WatchDelay is when a broadcast transaction is first checked.
	WatchDelay = "5 seconds"
	// WatchFor is how long a transaction is watched before giving up.
	WatchFor = "24 hours"
)

// WatchedTx is a transaction due for a check, with the RPC URL of its
// chain ("" when the chain has none).
type WatchedTx struct {
	AgentTx
	RPCURL     string
	WatchUntil time.Time
}

// ClaimTxChecks takes up to limit watched transactions whose check is due,
// oldest first, and moves their next check lease ahead, so that no other
// replica takes them meanwhile (SKIP LOCKED).
func (s *Store) ClaimTxChecks(ctx context.Context, limit int, lease time.Duration) ([]WatchedTx, error) {
	rows, err := s.pool.Query(ctx, `WITH due AS (
			SELECT org_id AS due_org, id AS due_id FROM agent_transactions WHERE next_check_at <= now()
			ORDER BY next_check_at LIMIT $1 FOR UPDATE SKIP LOCKED)
		UPDATE agent_transactions t SET next_check_at = now() + $2 * interval '1 second'
		FROM due WHERE t.org_id = due.due_org AND t.id = due.due_id
		RETURNING `+agentTxColumns+`, coalesce((SELECT rpc_url FROM chains c WHERE c.id = t.chain), ''),
			coalesce(watch_until, now())`, limit, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("claiming transaction checks: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WatchedTx, error) {
		var w WatchedTx
		t := &w.AgentTx
		err := r.Scan(&t.OrgID, &t.ID, &t.AgentID, &t.Chain, &t.ChainID, &t.KeyVersion, &t.TxType, &t.From, &t.To,
			&t.Value, &t.Nonce, &t.TokenAddress, &t.TokenAmount, &t.TxHash, &t.SignedTx, &t.Status, &t.Error,
			&t.BlockNumber, &t.GasUsed, &t.SignOnly, &t.NonceReserved, &t.CreatedAt, &t.UpdatedAt, &w.RPCURL, &w.WatchUntil)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("claiming transaction checks: %w", err)
	}
	return out, nil
}

// RescheduleTxCheck sets when the transaction is checked next; a zero at
// stops watching it.
func (s *Store) RescheduleTxCheck(ctx context.Context, orgID, id string, at time.Time) error {
	var next *time.Time
	if !at.IsZero() {
		next = &at
	}
	if _, err := s.pool.Exec(ctx, `UPDATE agent_transactions SET next_check_at = $3 WHERE org_id = $1 AND id = $2`,
		orgID, id, next); err != nil {
		return fmt.Errorf("rescheduling transaction check: %w", err)
	}
	return nil
}
