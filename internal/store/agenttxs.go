package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Agent transaction statuses.
const (
	TxSigned    = "signed"
	TxBroadcast = "broadcast"
	TxFailed    = "failed"
	TxConfirmed = "confirmed" // mined with receipt status 1
	TxReverted  = "reverted"  // mined with receipt status 0
	TxAbandoned = "abandoned" // sign-only, never broadcast: its reserved nonce was given back
)

// AgentTx is one transaction an agent's key signed. Values are decimal
// strings of base units (wei).
type AgentTx struct {
	OrgID        string
	ID           string
	AgentID      string
	Chain        string
	ChainID      int64
	KeyVersion   int
	TxType       int
	From         string
	To           string
	Value        string
	Nonce        int64
	TokenAddress string
	TokenAmount  string // "" when not a token transfer
	TxHash       string
	SignedTx     []byte
	Status       string
	Error        string
	BlockNumber  *int64 // set once the receipt is known
	GasUsed      *int64
	// Watch asks InsertAgentTx to have the transaction watched: checked
	// from WatchDelay on, for WatchFor.
	Watch bool
	// SignOnly: the caller broadcasts it (the watcher never sends it).
	// NonceReserved: the server reserved its nonce.
	SignOnly, NonceReserved bool
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

const agentTxColumns = `org_id, id, agent_id, chain, chain_id, key_version, tx_type, from_address, to_address,
	value_wei::text, nonce, token_address, coalesce(token_amount::text, ''), tx_hash, signed_tx, status, error, block_number,
	gas_used, sign_only, nonce_reserved, created_at, updated_at`

func scanAgentTx(row pgx.Row) (AgentTx, error) {
	var t AgentTx
	err := row.Scan(&t.OrgID, &t.ID, &t.AgentID, &t.Chain, &t.ChainID, &t.KeyVersion, &t.TxType, &t.From, &t.To,
		&t.Value, &t.Nonce, &t.TokenAddress, &t.TokenAmount, &t.TxHash, &t.SignedTx, &t.Status, &t.Error,
		&t.BlockNumber, &t.GasUsed, &t.SignOnly, &t.NonceReserved, &t.CreatedAt, &t.UpdatedAt)
	return t, err
}

// InsertAgentTx records a signed transaction with ev and, when event is
// not "", emits event with data, in one transaction sent as one batch.
func (s *Store) InsertAgentTx(ctx context.Context, t AgentTx, ev *auditchain.Event, event string, data any) (AgentTx, error) {
	var out AgentTx
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var amount *string
		if t.TokenAmount != "" {
			amount = &t.TokenAmount
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO agent_transactions (org_id, id, agent_id, chain, chain_id,
			key_version, tx_type, from_address, to_address, value_wei, nonce, token_address, token_amount, tx_hash,
			signed_tx, status, error, next_check_at, watch_until, sign_only, nonce_reserved)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11, $12, $13::numeric, $14, $15, $16, $17,
				CASE WHEN $18 THEN now() + $19::interval END, CASE WHEN $18 THEN now() + $20::interval END, $21, $22)
			RETURNING `+agentTxColumns, t.OrgID, t.ID, t.AgentID, t.Chain, t.ChainID, t.KeyVersion, t.TxType, t.From,
			t.To, orZero(t.Value), t.Nonce, t.TokenAddress, amount, t.TxHash, t.SignedTx, t.Status, t.Error,
			t.Watch, WatchDelay, WatchFor, t.SignOnly, t.NonceReserved)
		if event != "" {
			_, args, err := eventArgsFor(t.OrgID, event, data)
			if err != nil {
				return err
			}
			b.Queue(emitEventSQL, args...)
		}
		queueEvent(tx, b, ev)
		br := tx.SendBatch(ctx, b)
		var err error
		if out, err = scanAgentTx(br.QueryRow()); err != nil {
			_ = br.Close()
			return fmt.Errorf("recording transaction: %w", err)
		}
		for range b.Len() - 1 {
			if _, err := br.Exec(); err != nil {
				_ = br.Close()
				return fmt.Errorf("recording transaction events: %w", err)
			}
		}
		return br.Close()
	})
	return out, err
}

func orZero(v string) string {
	if v == "" {
		return "0"
	}
	return v
}

// SetAgentTxStatus moves a transaction to status (with an error text for
// failures) and emits event with data when event is not "".
func (s *Store) SetAgentTxStatus(ctx context.Context, orgID, id, status, errText, event string, data any) (AgentTx, error) {
	var out AgentTx
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanAgentTx(tx.QueryRow(ctx, `UPDATE agent_transactions SET status = $3, error = $4, updated_at = now(),
			next_check_at = CASE WHEN $3 IN ('failed', 'abandoned') THEN NULL ELSE next_check_at END
			WHERE org_id = $1 AND id = $2 RETURNING `+agentTxColumns, orgID, id, status, errText))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("transaction %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("updating transaction: %w", err)
		}
		if event != "" {
			if _, err := EmitEvent(ctx, tx, orgID, event, data); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// GetAgentTx returns one of the agent's transactions.
func (s *Store) GetAgentTx(ctx context.Context, orgID, agentID, id string) (AgentTx, error) {
	t, err := scanAgentTx(s.pool.QueryRow(ctx, `SELECT `+agentTxColumns+` FROM agent_transactions
		WHERE org_id = $1 AND agent_id = $2 AND id = $3`, orgID, agentID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return AgentTx{}, fmt.Errorf("transaction %s: %w", id, NotFound("transaction"))
	}
	if err != nil {
		return AgentTx{}, fmt.Errorf("reading transaction: %w", err)
	}
	return t, nil
}

// ListAgentTxs pages through the agent's transactions, newest first: ids
// below before ("" for the first page), at most limit.
func (s *Store) ListAgentTxs(ctx context.Context, orgID, agentID, before string, limit int) ([]AgentTx, error) {
	var bound *string
	if before != "" {
		bound = &before
	}
	rows, err := s.pool.Query(ctx, `SELECT `+agentTxColumns+` FROM agent_transactions
		WHERE org_id = $1 AND agent_id = $2 AND ($3::uuid IS NULL OR id < $3::uuid)
		ORDER BY id DESC LIMIT $4`, orgID, agentID, bound, limit)
	if err != nil {
		return nil, fmt.Errorf("listing transactions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AgentTx, error) { return scanAgentTx(r) })
	if err != nil {
		return nil, fmt.Errorf("listing transactions: %w", err)
	}
	return out, nil
}

// CountAgentTxsSince counts the organization's signed transactions since t.
func (s *Store) CountAgentTxsSince(ctx context.Context, orgID string, t time.Time) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM agent_transactions WHERE org_id = $1 AND created_at >= $2`,
		orgID, t).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting transactions: %w", err)
	}
	return n, nil
}

// SetAgentTxReceipt records the receipt of a transaction the chain mined:
// status TxConfirmed or TxReverted, its block and gas used, and stops
// watching it. A transaction already final is left as it is.
func (s *Store) SetAgentTxReceipt(ctx context.Context, orgID, id, status string, block, gasUsed int64) (AgentTx, error) {
	t, err := scanAgentTx(s.pool.QueryRow(ctx, `UPDATE agent_transactions SET status = $3, block_number = $4, gas_used = $5,
		next_check_at = NULL, updated_at = now()
		WHERE org_id = $1 AND id = $2 AND status IN ('signed', 'broadcast') RETURNING `+agentTxColumns,
		orgID, id, status, block, gasUsed))
	if errors.Is(err, pgx.ErrNoRows) {
		return AgentTx{}, fmt.Errorf("transaction %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return AgentTx{}, fmt.Errorf("recording receipt: %w", err)
	}
	return t, nil
}
