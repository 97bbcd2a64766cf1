package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SealedRecord is an identity record as the enclave sealed it: its
// canonical bytes and MAC (enclave/wire/identity.go).
type SealedRecord struct {
	Record []byte
	MAC    []byte
}

// SealedIdentity returns the sealed record stored under name (its floor
// name); ErrNotFound when there is none.
func (s *Store) SealedIdentity(ctx context.Context, name string) (SealedRecord, error) {
	var r SealedRecord
	err := s.pool.QueryRow(ctx, `SELECT record, mac FROM sealed_identity WHERE name = $1`, name).Scan(&r.Record, &r.MAC)
	if errors.Is(err, pgx.ErrNoRows) {
		return SealedRecord{}, fmt.Errorf("sealed identity record: %w", ErrNotFound)
	}
	if err != nil {
		return SealedRecord{}, fmt.Errorf("reading sealed identity record: %w", err)
	}
	return r, nil
}

// PutSealedIdentity stores sealed records by name, replacing the older
// version of each, in one transaction.
func (s *Store) PutSealedIdentity(ctx context.Context, recs map[string]SealedRecord) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		for name, r := range recs {
			if _, err := tx.Exec(ctx, `INSERT INTO sealed_identity (name, record, mac) VALUES ($1, $2, $3)
				ON CONFLICT (name) DO UPDATE SET record = excluded.record, mac = excluded.mac, updated_at = now()`,
				name, r.Record, r.MAC); err != nil {
				return fmt.Errorf("storing sealed identity record: %w", err)
			}
		}
		return nil
	})
}

// AgentKeyHash returns the SHA-256 of an agent's current API key (its
// sealed record's verifier); ErrNotFound for an unknown agent.
func (s *Store) AgentKeyHash(ctx context.Context, orgID, agentID string) ([]byte, error) {
	var h []byte
	err := s.pool.QueryRow(ctx, `SELECT key_hash FROM agents WHERE org_id = $1 AND id = $2`, orgID, agentID).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("agent key: %w", NotFound("agent"))
	}
	if err != nil {
		return nil, fmt.Errorf("reading agent key: %w", err)
	}
	return h, nil
}
