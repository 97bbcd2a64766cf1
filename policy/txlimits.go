package policy

import (
	"math/big"
	"sort"
	"strings"
)

// DailyLimits returns the day caps that apply on chain, so that the proxy
// can reserve its counters atomically with the same numbers EvaluateTx
// checks: maxPerDay is tx_max_per_day over all chains, maxPerDayChain the
// strictest per-chain max_per_day (both -1 when unset), and dailyValue the
// stricter of tx_daily_limit_eth and the per-chain daily_limit in base
// units at decimals (nil when unset). A limit that cannot be converted
// (decimals out of range) is reported as 0, which allows nothing.
func (g Guardrails) DailyLimits(chain string, decimals int) (maxPerDay, maxPerDayChain int64, dailyValue *big.Int) {
	maxPerDay, maxPerDayChain = -1, -1
	if g.TxMaxPerDay != nil {
		maxPerDay = *g.TxMaxPerDay
	}
	overrides := g.chainOverrides(chain)
	for _, o := range overrides {
		if o.MaxPerDay != nil && (maxPerDayChain < 0 || *o.MaxPerDay < maxPerDayChain) {
			maxPerDayChain = *o.MaxPerDay
		}
	}
	dailyValue, err := strictestLimit(g.TxDailyLimitETH, overrides, func(o ChainGuardrails) Amount { return o.DailyLimit }, decimals)
	if err != nil {
		return maxPerDay, maxPerDayChain, new(big.Int)
	}
	return maxPerDay, maxPerDayChain, dailyValue
}

// chainOverrides returns the per_chain_guardrails entries whose key names
// chain (case-insensitively), in key order. Several keys may differ only
// in case; all of them apply.
func (g *Guardrails) chainOverrides(chain string) []ChainGuardrails {
	if chain == "" || len(g.PerChainGuardrails) == 0 {
		return nil
	}
	var keys []string
	for k := range g.PerChainGuardrails {
		if strings.EqualFold(strings.TrimSpace(k), chain) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]ChainGuardrails, len(keys))
	for i, k := range keys {
		out[i] = g.PerChainGuardrails[k]
	}
	return out
}

// strictestLimit returns the smallest of global and each override's limit
// in base units, nil when none is set. Any set limit that does not convert
// is an error, so that the caller denies rather than skips it.
func strictestLimit(global Amount, overrides []ChainGuardrails, pick func(ChainGuardrails) Amount, decimals int) (*big.Int, error) {
	var min *big.Int
	consider := func(a Amount) error {
		if a == "" {
			return nil
		}
		v, err := limitUnits(a, decimals)
		if err != nil {
			return err
		}
		if min == nil || v.Cmp(min) < 0 {
			min = v
		}
		return nil
	}
	if err := consider(global); err != nil {
		return nil, err
	}
	for _, o := range overrides {
		if err := consider(pick(o)); err != nil {
			return nil, err
		}
	}
	return min, nil
}

// OverheadBudget returns the fee budget of a UTC day on chain in base
// units at decimals: the stricter of the tx_overhead_budget entry naming
// the chain (case-insensitively) and the per-chain overhead_budget; nil
// when neither is set. A budget that cannot be converted is reported as 0,
// which allows nothing. The proxy reserves fees against the same number
// EvaluateTx checks.
func (g Guardrails) OverheadBudget(chain string, decimals int) *big.Int {
	b, err := g.overheadBudget(chain, decimals)
	if err != nil {
		return new(big.Int)
	}
	return b
}

func (g *Guardrails) overheadBudget(chain string, decimals int) (*big.Int, error) {
	var overrides []ChainGuardrails
	if chain != "" {
		var keys []string
		for k := range g.TxOverheadBudget {
			if strings.EqualFold(strings.TrimSpace(k), chain) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			overrides = append(overrides, ChainGuardrails{OverheadBudget: g.TxOverheadBudget[k]})
		}
	}
	overrides = append(overrides, g.chainOverrides(chain)...)
	return strictestLimit("", overrides, func(o ChainGuardrails) Amount { return o.OverheadBudget }, decimals)
}
