package store

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5"
)

// allChains is the chain of the agent_tx_daily row that totals a day.
const allChains = "*"

// TxLimits are the daily caps a reservation must stay within: a negative
// count means no cap, a nil value no value cap.
type TxLimits struct {
	MaxPerDay      int64
	MaxPerDayChain int64
	DailyValue     *big.Int
}

// TxCounters are an agent's counters for one UTC day, before a request.
type TxCounters struct {
	CountToday      int64
	CountTodayChain int64
	SpentTodayChain *big.Int
}

// Reservation denials.
const (
	DeniedMaxPerDay      = "tx_max_per_day"
	DeniedMaxPerDayChain = "per_chain_max_per_day"
	DeniedDailyValue     = "tx_daily_limit_eth"
)

// ReserveTx counts one more transaction of value (base units) for the
// agent on chain and day (UTC), when the limits allow it, and returns the
// counters before it. denied names the limit that refused ("" when
// reserved; nothing is counted then). The day's rows are locked while the
// check runs, so concurrent reservations never exceed a limit.
func (s *Store) ReserveTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int, lim TxLimits) (TxCounters, string, error) {
	var before TxCounters
	var denied string
	d := day.UTC().Format(time.DateOnly)
	v := value.String()
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO agent_tx_daily (org_id, agent_id, day, chain) VALUES ($1, $2, $3, $4), ($1, $2, $3, $5)
			ON CONFLICT DO NOTHING`, orgID, agentID, d, allChains, chain); err != nil {
			return fmt.Errorf("reserving transaction: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT chain, tx_count, spent::text FROM agent_tx_daily
			WHERE org_id = $1 AND agent_id = $2 AND day = $3 AND chain IN ($4, $5) ORDER BY chain FOR UPDATE`,
			orgID, agentID, d, allChains, chain)
		if err != nil {
			return fmt.Errorf("reserving transaction: %w", err)
		}
		before.SpentTodayChain = new(big.Int)
		for rows.Next() {
			var c, spent string
			var n int64
			if err := rows.Scan(&c, &n, &spent); err != nil {
				rows.Close()
				return fmt.Errorf("reserving transaction: %w", err)
			}
			if c == allChains {
				before.CountToday = n
			} else {
				before.CountTodayChain = n
				before.SpentTodayChain.SetString(spent, 10)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("reserving transaction: %w", err)
		}
		switch {
		case lim.MaxPerDay >= 0 && before.CountToday+1 > lim.MaxPerDay:
			denied = DeniedMaxPerDay
		case lim.MaxPerDayChain >= 0 && before.CountTodayChain+1 > lim.MaxPerDayChain:
			denied = DeniedMaxPerDayChain
		case lim.DailyValue != nil && new(big.Int).Add(before.SpentTodayChain, value).Cmp(lim.DailyValue) > 0:
			denied = DeniedDailyValue
		}
		if denied != "" {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE agent_tx_daily SET tx_count = tx_count + 1, spent = spent + $5::numeric
			WHERE org_id = $1 AND agent_id = $2 AND day = $3 AND chain IN ($4, $6)`, orgID, agentID, d, allChains, v, chain)
		if err != nil {
			return fmt.Errorf("reserving transaction: %w", err)
		}
		return nil
	})
	if err != nil {
		return TxCounters{}, "", err
	}
	return before, denied, nil
}

// ReleaseTx gives back a reservation whose transaction was not signed.
func (s *Store) ReleaseTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int) error {
	_, err := s.pool.Exec(ctx, `UPDATE agent_tx_daily SET tx_count = greatest(tx_count - 1, 0),
		spent = greatest(spent - $5::numeric, 0)
		WHERE org_id = $1 AND agent_id = $2 AND day = $3 AND chain IN ($4, $6)`,
		orgID, agentID, day.UTC().Format(time.DateOnly), allChains, value.String(), chain)
	if err != nil {
		return fmt.Errorf("releasing transaction: %w", err)
	}
	return nil
}

// AgentTxToday returns the agent's count of transactions on day (UTC) and
// its spend per chain (decimal base units).
func (s *Store) AgentTxToday(ctx context.Context, orgID, agentID string, day time.Time) (int64, map[string]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT chain, tx_count, spent::text FROM agent_tx_daily
		WHERE org_id = $1 AND agent_id = $2 AND day = $3`, orgID, agentID, day.UTC().Format(time.DateOnly))
	if err != nil {
		return 0, nil, fmt.Errorf("reading counters: %w", err)
	}
	defer rows.Close()
	var count int64
	spent := map[string]string{}
	for rows.Next() {
		var c, v string
		var n int64
		if err := rows.Scan(&c, &n, &v); err != nil {
			return 0, nil, fmt.Errorf("reading counters: %w", err)
		}
		if c == allChains {
			count = n
		} else {
			spent[c] = v
		}
	}
	return count, spent, rows.Err()
}
