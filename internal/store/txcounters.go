package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5"
)

// TxLimits are the daily caps a reservation must stay within: a negative
// count means no cap, a nil value no value cap, a nil fee budget no fee
// cap.
type TxLimits struct {
	MaxPerDay      int64
	MaxPerDayChain int64
	DailyValue     *big.Int
	// FeeBudget caps the maximum fees reserved on the chain in the day
	// (tx_overhead_budget), base units.
	FeeBudget *big.Int
}

// TxCounters are an agent's counters for one UTC day, before a request.
type TxCounters struct {
	CountToday      int64
	CountTodayChain int64
	SpentTodayChain *big.Int
	// FeesTodayChain are the maximum fees reserved today on the chain
	// (base units).
	FeesTodayChain *big.Int
}

// Reservation denials.
const (
	DeniedMaxPerDay      = "tx_max_per_day"
	DeniedMaxPerDayChain = "per_chain_max_per_day"
	DeniedDailyValue     = "tx_daily_limit_eth"
	DeniedFeeBudget      = "tx_overhead_budget"
)

// denial names the first limit that c plus one transaction of value and
// maximum fee would break ("" when none).
func (lim TxLimits) denial(c TxCounters, value, fee *big.Int) string {
	switch {
	case lim.MaxPerDay >= 0 && c.CountToday+1 > lim.MaxPerDay:
		return DeniedMaxPerDay
	case lim.MaxPerDayChain >= 0 && c.CountTodayChain+1 > lim.MaxPerDayChain:
		return DeniedMaxPerDayChain
	case lim.DailyValue != nil && new(big.Int).Add(c.SpentTodayChain, value).Cmp(lim.DailyValue) > 0:
		return DeniedDailyValue
	case lim.FeeBudget != nil && new(big.Int).Add(c.FeesTodayChain, fee).Cmp(lim.FeeBudget) > 0:
		return DeniedFeeBudget
	}
	return ""
}

// reserveSQL counts one transaction and its maximum fee when the day's row
// allows it, in one statement: the upsert locks the row only while it
// runs. The first request of a day inserts (the caller checked the limits
// against zero). The enclave judges the fees again on the counters
// returned (a proxy may not be trusted to have checked).
const reserveSQL = `INSERT INTO agent_tx_daily AS t (org_id, agent_id, day, tx_count, chain_counts, chain_spent, chain_fees)
	VALUES ($1, $2, $3, 1, jsonb_build_object($4::text, 1), jsonb_build_object($4::text, $5::text), jsonb_build_object($4::text, $9::text))
	ON CONFLICT (org_id, agent_id, day) DO UPDATE SET
		tx_count = t.tx_count + 1,
		chain_counts = t.chain_counts || jsonb_build_object($4::text, coalesce((t.chain_counts ->> $4::text)::bigint, 0) + 1),
		chain_spent = t.chain_spent || jsonb_build_object($4::text, (coalesce((t.chain_spent ->> $4::text)::numeric, 0) + $5::numeric)::text),
		chain_fees = t.chain_fees || jsonb_build_object($4::text, (coalesce((t.chain_fees ->> $4::text)::numeric, 0) + $9::numeric)::text)
	WHERE ($6::bigint < 0 OR t.tx_count + 1 <= $6::bigint)
		AND ($7::bigint < 0 OR coalesce((t.chain_counts ->> $4::text)::bigint, 0) + 1 <= $7::bigint)
		AND ($8::numeric IS NULL OR coalesce((t.chain_spent ->> $4::text)::numeric, 0) + $5::numeric <= $8::numeric)
		AND ($10::numeric IS NULL OR coalesce((t.chain_fees ->> $4::text)::numeric, 0) + $9::numeric <= $10::numeric)
	RETURNING tx_count, coalesce((chain_counts ->> $4::text)::bigint, 0), coalesce(chain_spent ->> $4::text, '0'),
		coalesce(chain_fees ->> $4::text, '0')`

// ReserveTx is ReserveTxFee with no fee.
func (s *Store) ReserveTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int, lim TxLimits) (TxCounters, string, error) {
	return s.ReserveTxFee(ctx, orgID, agentID, chain, day, value, new(big.Int), lim)
}

// ReserveTxFee counts one more transaction of value and maximum fee (base
// units) for the agent on chain and day (UTC), when the limits allow it,
// and returns the counters before it. denied names the limit that refused
// ("" when reserved; nothing is counted then). Concurrent reservations
// never exceed a limit: each is one conditional upsert of the day's row,
// and each sees the fees of those before it.
func (s *Store) ReserveTxFee(ctx context.Context, orgID, agentID, chain string, day time.Time, value, fee *big.Int,
	lim TxLimits) (TxCounters, string, error) {
	if value == nil || value.Sign() < 0 || fee == nil || fee.Sign() < 0 {
		return TxCounters{}, "", errors.New("reserving transaction: value and fee must be non-negative")
	}
	zero := TxCounters{SpentTodayChain: new(big.Int), FeesTodayChain: new(big.Int)}
	if d := lim.denial(zero, value, fee); d != "" {
		return TxCounters{}, d, nil
	}
	d := day.UTC().Format(time.DateOnly)
	var after TxCounters
	var spent, fees string
	err := s.pool.QueryRow(ctx, reserveSQL, orgID, agentID, d, chain, value.String(), lim.MaxPerDay, lim.MaxPerDayChain,
		decimalOrNil(lim.DailyValue), fee.String(), decimalOrNil(lim.FeeBudget)).Scan(&after.CountToday, &after.CountTodayChain, &spent, &fees)
	if errors.Is(err, pgx.ErrNoRows) {
		// A limit refused: name it from the day's counters.
		c, rerr := s.dayCounters(ctx, orgID, agentID, chain, d)
		if rerr != nil {
			return TxCounters{}, "", rerr
		}
		if denied := lim.denial(c, value, fee); denied != "" {
			return TxCounters{}, denied, nil
		}
		return TxCounters{}, DeniedMaxPerDay, nil // moved meanwhile; refuse rather than guess
	}
	if err != nil {
		return TxCounters{}, "", fmt.Errorf("reserving transaction: %w", err)
	}
	total, ok := decimalInt(spent)
	if !ok {
		return TxCounters{}, "", fmt.Errorf("reserving transaction: spent %q is not a decimal", spent)
	}
	feeTotal, ok := decimalInt(fees)
	if !ok {
		return TxCounters{}, "", fmt.Errorf("reserving transaction: fees %q is not a decimal", fees)
	}
	return TxCounters{CountToday: after.CountToday - 1, CountTodayChain: after.CountTodayChain - 1,
		SpentTodayChain: total.Sub(total, value), FeesTodayChain: feeTotal.Sub(feeTotal, fee)}, "", nil
}

// decimalOrNil is v as decimal text for a numeric parameter, nil for nil.
func decimalOrNil(v *big.Int) *string {
	if v == nil {
		return nil
	}
	s := v.String()
	return &s
}

// decimalInt reads a counter stored as decimal text.
func decimalInt(s string) (*big.Int, bool) {
	return new(big.Int).SetString(s, 10)
}

// dayCounters reads the agent's counters of day (YYYY-MM-DD) for chain.
func (s *Store) dayCounters(ctx context.Context, orgID, agentID, chain, day string) (TxCounters, error) {
	c := TxCounters{SpentTodayChain: new(big.Int), FeesTodayChain: new(big.Int)}
	var spent, fees string
	err := s.pool.QueryRow(ctx, `SELECT tx_count, coalesce((chain_counts ->> $4::text)::bigint, 0), coalesce(chain_spent ->> $4::text, '0'),
			coalesce(chain_fees ->> $4::text, '0')
		FROM agent_tx_daily WHERE org_id = $1 AND agent_id = $2 AND day = $3`, orgID, agentID, day, chain).
		Scan(&c.CountToday, &c.CountTodayChain, &spent, &fees)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return TxCounters{}, fmt.Errorf("reading counters: %w", err)
	}
	c.SpentTodayChain.SetString(spent, 10)
	c.FeesTodayChain.SetString(fees, 10)
	return c, nil
}

// ReleaseTx is ReleaseTxFee with no fee.
func (s *Store) ReleaseTx(ctx context.Context, orgID, agentID, chain string, day time.Time, value *big.Int) error {
	return s.ReleaseTxFee(ctx, orgID, agentID, chain, day, value, new(big.Int))
}

// ReleaseTxFee gives back a reservation (its value and maximum fee) whose
// transaction was not signed (or never reached the chain). No counter goes
// below zero.
func (s *Store) ReleaseTxFee(ctx context.Context, orgID, agentID, chain string, day time.Time, value, fee *big.Int) error {
	if value == nil || value.Sign() < 0 || fee == nil || fee.Sign() < 0 {
		return errors.New("releasing transaction: value and fee must be non-negative")
	}
	_, err := s.pool.Exec(ctx, `UPDATE agent_tx_daily AS t SET
			tx_count = greatest(t.tx_count - 1, 0),
			chain_counts = t.chain_counts || jsonb_build_object($4::text, greatest(coalesce((t.chain_counts ->> $4::text)::bigint, 0) - 1, 0)),
			chain_spent = t.chain_spent || jsonb_build_object($4::text, greatest(coalesce((t.chain_spent ->> $4::text)::numeric, 0) - $5::numeric, 0)::text),
			chain_fees = t.chain_fees || jsonb_build_object($4::text, greatest(coalesce((t.chain_fees ->> $4::text)::numeric, 0) - $6::numeric, 0)::text)
		WHERE org_id = $1 AND agent_id = $2 AND day = $3`,
		orgID, agentID, day.UTC().Format(time.DateOnly), chain, value.String(), fee.String())
	if err != nil {
		return fmt.Errorf("releasing transaction: %w", err)
	}
	return nil
}

// AgentTxToday returns the agent's count of transactions on day (UTC) and
// its spend per chain (decimal base units).
func (s *Store) AgentTxToday(ctx context.Context, orgID, agentID string, day time.Time) (int64, map[string]string, error) {
	var count int64
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT tx_count, chain_spent FROM agent_tx_daily WHERE org_id = $1 AND agent_id = $2 AND day = $3`,
		orgID, agentID, day.UTC().Format(time.DateOnly)).Scan(&count, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, map[string]string{}, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("reading counters: %w", err)
	}
	spent := map[string]string{}
	if err := json.Unmarshal(raw, &spent); err != nil {
		return 0, nil, fmt.Errorf("reading counters: %w", err)
	}
	return count, spent, nil
}
