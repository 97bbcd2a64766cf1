package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// KnownToken is one entry of the token registry. The API layer normalises
// ContractAddress (lowercase on EVM chains) before it reaches the store.
type KnownToken struct {
	Chain           string
	ContractAddress string
	Symbol          string
	Decimals        int
	Name            string
	CreatedAt       time.Time
}

// ListTokens returns the registered tokens, of one chain when chain is not
// empty, in (chain, contract address) order.
func (s *Store) ListTokens(ctx context.Context, chain string) ([]KnownToken, error) {
	rows, err := s.pool.Query(ctx, `SELECT chain, contract_address, symbol, decimals, name, created_at FROM known_tokens
		WHERE ($1 = '' OR chain = $1) ORDER BY chain, contract_address`, chain)
	if err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	defer rows.Close()
	var out []KnownToken
	for rows.Next() {
		var k KnownToken
		if err := rows.Scan(&k.Chain, &k.ContractAddress, &k.Symbol, &k.Decimals, &k.Name, &k.CreatedAt); err != nil {
			return nil, fmt.Errorf("listing tokens: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// CreateToken registers a token with ev. ErrConflict when the chain already
// has a token at that address, ErrNotFound when the chain is not registered.
func (s *Store) CreateToken(ctx context.Context, k KnownToken, ev *auditchain.Event) (KnownToken, error) {
	out := k
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO known_tokens (chain, contract_address, symbol, decimals, name)
			VALUES ($1, $2, $3, $4, $5) RETURNING created_at`, k.Chain, k.ContractAddress, k.Symbol, k.Decimals, k.Name).
			Scan(&out.CreatedAt)
		switch pgCode(err) {
		case codeUniqueViolation:
			return fmt.Errorf("registering token: %w", ErrConflict)
		case codeForeignKeyViolation:
			return fmt.Errorf("registering token: chain: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("registering token: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// DeleteToken removes a token from the registry with ev; ErrNotFound when
// there is none at that address.
func (s *Store) DeleteToken(ctx context.Context, chain, address string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM known_tokens WHERE chain = $1 AND contract_address = $2`, chain, address)
		if err != nil {
			return fmt.Errorf("deleting token: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deleting token: %w", NotFound("token"))
		}
		return insertEvent(ctx, tx, ev)
	})
}

// KnownTokenOf returns the registry entry of a token on chain (EVM
// addresses lowercase); ErrNotFound when the token is not registered.
func (s *Store) KnownTokenOf(ctx context.Context, chain, address string) (KnownToken, error) {
	var k KnownToken
	err := s.pool.QueryRow(ctx, `SELECT chain, contract_address, symbol, decimals, name, created_at FROM known_tokens
		WHERE chain = $1 AND contract_address = $2`, chain, address).Scan(&k.Chain, &k.ContractAddress, &k.Symbol,
		&k.Decimals, &k.Name, &k.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return KnownToken{}, fmt.Errorf("token %s: %w", address, ErrNotFound)
	}
	if err != nil {
		return KnownToken{}, fmt.Errorf("reading token: %w", err)
	}
	return k, nil
}
