package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// ReserveNonce hands out the next nonce of address on an EVM chain, given
// the chain's pending nonce: a released nonce the chain has not used yet
// first, else the higher of the stored next and the chain's. No two calls
// get the same nonce.
func (s *Store) ReserveNonce(ctx context.Context, orgID string, chainID int64, address string, chainPending uint64) (uint64, error) {
	var n uint64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO evm_nonces (org_id, chain_id, address, next) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, orgID, chainID, address, int64(chainPending)); err != nil {
			return fmt.Errorf("reserving nonce: %w", err)
		}
		var next int64
		var released []int64
		if err := tx.QueryRow(ctx, `SELECT next, released FROM evm_nonces WHERE org_id = $1 AND chain_id = $2 AND address = $3
			FOR UPDATE`, orgID, chainID, address).Scan(&next, &released); err != nil {
			return fmt.Errorf("reserving nonce: %w", err)
		}
		// Released nonces below the chain's were used meanwhile (by a
		// transaction broadcast elsewhere): drop them.
		released = slices.DeleteFunc(released, func(r int64) bool { return r < int64(chainPending) })
		slices.Sort(released)
		if len(released) > 0 {
			n, released = uint64(released[0]), released[1:]
		} else {
			n = max(uint64(next), chainPending)
			next = int64(n) + 1
		}
		if released == nil {
			released = []int64{}
		}
		if _, err := tx.Exec(ctx, `UPDATE evm_nonces SET next = $4, released = $5 WHERE org_id = $1 AND chain_id = $2 AND address = $3`,
			orgID, chainID, address, next, released); err != nil {
			return fmt.Errorf("reserving nonce: %w", err)
		}
		return nil
	})
	return n, err
}

// ReleaseNonce returns a reserved nonce whose transaction never reached the
// chain: the newest one rolls next back, an older one is kept for reuse.
func (s *Store) ReleaseNonce(ctx context.Context, orgID string, chainID int64, address string, nonce uint64) error {
	_, err := s.pool.Exec(ctx, `UPDATE evm_nonces SET
			next = CASE WHEN next = $4 + 1 THEN $4 ELSE next END,
			released = CASE WHEN next = $4 + 1 OR $4 = ANY (released) OR $4 >= next THEN released ELSE array_append(released, $4) END
		WHERE org_id = $1 AND chain_id = $2 AND address = $3`, orgID, chainID, address, int64(nonce))
	if err != nil {
		return fmt.Errorf("releasing nonce: %w", err)
	}
	return nil
}
