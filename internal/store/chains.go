package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Chain is one entry of the chain registry. ChainID is 0 for non-EVM
// chains (NULL in the table).
type Chain struct {
	ID          string
	ChainID     int64
	Family      string
	Name        string
	Aliases     []string
	RPCURL      string
	ExplorerURL string
	IsTestnet   bool
	IsEnabled   bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

const chainColumns = `id, coalesce(chain_id, 0), family, name, aliases, rpc_url, explorer_url, is_testnet, is_enabled, created_at, updated_at`

func scanChain(row pgx.Row) (Chain, error) {
	var c Chain
	err := row.Scan(&c.ID, &c.ChainID, &c.Family, &c.Name, &c.Aliases, &c.RPCURL, &c.ExplorerURL,
		&c.IsTestnet, &c.IsEnabled, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

// ListChains returns every registered chain in id order.
func (s *Store) ListChains(ctx context.Context) ([]Chain, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+chainColumns+` FROM chains ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("listing chains: %w", err)
	}
	defer rows.Close()
	var out []Chain
	for rows.Next() {
		c, err := scanChain(rows)
		if err != nil {
			return nil, fmt.Errorf("listing chains: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ResolveChain finds a chain by its id, one of its aliases (both
// case-insensitive) or its decimal EVM chain id; ErrNotFound otherwise.
func (s *Store) ResolveChain(ctx context.Context, ref string) (Chain, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	var numeric int64
	if n, err := strconv.ParseInt(ref, 10, 64); err == nil && n > 0 {
		numeric = n
	}
	// Ids and aliases never collide with each other by construction
	// (UpsertChain refuses it); an exact id match wins anyway.
	c, err := scanChain(s.pool.QueryRow(ctx, `SELECT `+chainColumns+` FROM chains
		WHERE id = $1 OR $1 = ANY (aliases) OR ($2 > 0 AND chain_id = $2)
		ORDER BY (id = $1) DESC, id LIMIT 1`, ref, numeric))
	if errors.Is(err, pgx.ErrNoRows) {
		return Chain{}, fmt.Errorf("resolving chain: %w", NotFound("chain"))
	}
	if err != nil {
		return Chain{}, fmt.Errorf("resolving chain: %w", err)
	}
	return c, nil
}

// UpsertChain creates the chain c.ID or replaces its fields, with ev. It
// reports whether it was created. ErrConflict when c's chain id, or one of
// its id and aliases, already names another chain.
func (s *Store) UpsertChain(ctx context.Context, c Chain, ev *auditchain.Event) (Chain, bool, error) {
	var out Chain
	var created bool
	if c.Aliases == nil {
		c.Aliases = []string{}
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// Serialise registry writes: the alias check below reads other rows.
		if _, err := tx.Exec(ctx, `LOCK TABLE chains IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("locking chains: %w", err)
		}
		names := append([]string{c.ID}, c.Aliases...)
		var clash bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chains WHERE id <> $1
			AND (id = ANY ($2) OR aliases && $2))`, c.ID, names).Scan(&clash); err != nil {
			return fmt.Errorf("checking chain names: %w", err)
		}
		if clash {
			return fmt.Errorf("registering chain %s: name taken: %w", c.ID, ErrConflict)
		}
		var chainID *int64
		if c.ChainID > 0 {
			chainID = &c.ChainID
		}
		var err error
		out, err = scanChain(tx.QueryRow(ctx, `INSERT INTO chains (id, chain_id, family, name, aliases, rpc_url, explorer_url, is_testnet, is_enabled)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (id) DO UPDATE SET chain_id = excluded.chain_id, family = excluded.family, name = excluded.name,
				aliases = excluded.aliases, rpc_url = excluded.rpc_url, explorer_url = excluded.explorer_url,
				is_testnet = excluded.is_testnet, is_enabled = excluded.is_enabled, updated_at = now()
			RETURNING `+chainColumns, c.ID, chainID, c.Family, c.Name, c.Aliases, c.RPCURL, c.ExplorerURL, c.IsTestnet, c.IsEnabled))
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("registering chain %s: chain id taken: %w", c.ID, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("registering chain %s: %w", c.ID, err)
		}
		created = out.CreatedAt.Equal(out.UpdatedAt)
		return insertEvent(ctx, tx, ev)
	})
	return out, created, err
}
