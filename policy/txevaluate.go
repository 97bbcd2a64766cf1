package policy

import (
	"math/big"
	"strings"
	"time"
)

// EvaluateTx decides a sign request against an agent's guardrails g and the
// tx_conditions rules of the policies that target it, given the facts the
// chain package decoded (the request's effects among them), the agent's
// counters for the current UTC day and the time. Checks run in this order
// and the first failing one denies, naming itself in TxDecision.Guardrail:
//
//  1. intent gates: personal_sign needs message_signing_enabled;
//     eip712_digest needs raw_signing_enabled and then skips everything
//     else (the spec bypasses guardrails for it);
//  2. tx_allowed_chains, then signing_chains;
//  3. typed data: eip712_domain_chain_id when the domain's chainId is not
//     the request's chain; tx_decode when a known standard's domain has no
//     chainId;
//  4. tx_decode: a transaction that failed to decode, a known typed-data
//     standard whose message is malformed, or a negative amount anywhere;
//  5. typed data: eip712_default_policy: all typed data, known standard or
//     not, needs the "allow" default or an eip712_domain_allowlist entry;
//     a known standard's effects are then judged below like a
//     transaction's;
//  6. tx_privileged_call: every privileged effect (upgrade, ownership or
//     Safe configuration change, delegatecall) needs a tx_conditions allow
//     rule that holds for the request and names its function
//     (function_name_in) or selector (function_selector_in);
//  7. tx_decode: every call that could not be decoded needs such an allow
//     rule listing its selector in function_selector_in;
//  8. tx_approval_allowlist: every unlimited allowance and every
//     setApprovalForAll(…, true) must go to a listed grantee;
//  9. tx_to_allowlist, then per_chain_guardrails (its to_allowlist): every
//     counterparty (recipients, spenders of limited allowances, inner
//     recipients; an open counterparty is unlisted) and the transaction's
//     to (unless it is the token contract of a plain token call);
//  10. tx_delegation_allowlist: every EIP-7702 delegate must be listed (a
//     delegation hands the account's every asset to the delegate's code);
//  11. tx_token_allowlist (global and per-chain), tx_known_tokens_only, for
//     the token of every token effect;
//  12. tx_overhead_budget: the transaction's maximum fee plus the fees
//     reserved today on its chain must fit the stricter of
//     tx_overhead_budget and the per-chain overhead_budget;
//  13. tx_max_value_eth (the stricter of global and per-chain max_value)
//     against the native value moved, plus the maximum fee when no
//     overhead budget applies to the chain;
//  14. tx_conditions (see evalTxRules), weighed deeply over every call;
//  15. tx_max_per_day (global count, then per-chain max_per_day);
//  16. tx_daily_limit_eth (the stricter of global and per-chain daily_limit).
//
// personal_sign runs 1, 2 and 14; typed_data skips 10, 12, 15 and the
// transaction parts of 4, 9 and 13. Every choice fails closed: an unknown
// intent type, a limit that cannot be converted at f.Decimals, or an
// invalid rule denies.
func EvaluateTx(g Guardrails, rules []TxRule, f TxFacts, c TxCounters, now time.Time) TxDecision {
	intent, ok := normalizeIntent(f.IntentType)
	if !ok {
		return txDeny(GuardrailIntentType, "unknown intent type")
	}
	switch intent {
	case IntentPersonalSign:
		if !g.MessageSigningEnabled {
			return txDeny(GuardrailMessageSigning, "message signing is not enabled for this agent")
		}
	case IntentEIP712Digest:
		if !g.RawSigningEnabled {
			return txDeny(GuardrailRawSigning, "raw digest signing is not enabled for this agent")
		}
		return TxDecision{Allowed: true}
	}
	isTx := intent == IntentTransaction
	typed := intent == IntentTypedData
	moves := isTx || typed
	truths := ruleTruths(rules, &f, intent)
	steps := []struct {
		applies bool
		check   func() (guardrail, detail string)
	}{
		{true, func() (string, string) { return checkChains(&g, &f) }},
		{typed, func() (string, string) { return checkDomainChain(&f) }},
		{isTx, func() (string, string) { return checkDecoded(&f) }},
		{moves, func() (string, string) { return checkEffectsDecoded(&f) }},
		{typed, func() (string, string) { return checkTypedData(&g, &f) }},
		{moves, func() (string, string) { return checkPrivileged(rules, truths, &f, now) }},
		{moves, func() (string, string) { return checkUndecodedCalls(rules, truths, &f, now) }},
		{moves, func() (string, string) { return checkApprovals(&g, &f) }},
		{moves, func() (string, string) { return checkCounterparties(&g, &f, intent) }},
		{isTx, func() (string, string) { return checkDelegations(&g, &f) }},
		{moves, func() (string, string) { return checkTokens(&g, &f) }},
		{isTx, func() (string, string) { return checkOverheadBudget(&g, &f, &c) }},
		{moves, func() (string, string) { return checkMaxValue(&g, &f, isTx) }},
		{true, func() (string, string) { return evalTxRules(rules, truths, now) }},
		{isTx, func() (string, string) { return checkPerDay(&g, &f, &c) }},
		{moves, func() (string, string) { return checkDailyValue(&g, &f, &c) }},
	}
	for _, s := range steps {
		if !s.applies {
			continue
		}
		if guardrail, detail := s.check(); guardrail != "" {
			return txDeny(guardrail, detail)
		}
	}
	return TxDecision{Allowed: true}
}

func txDeny(guardrail, detail string) TxDecision {
	return TxDecision{Guardrail: guardrail, Detail: detail}
}

// checkChains applies tx_allowed_chains and signing_chains; an empty list
// admits every chain, a set list admits only a request naming a listed
// chain.
func checkChains(g *Guardrails, f *TxFacts) (string, string) {
	if len(g.TxAllowedChains) > 0 && !anyChainMatches(g.TxAllowedChains, f) {
		return GuardrailAllowedChains, "chain is not in tx_allowed_chains"
	}
	if len(g.SigningChains) > 0 && !anyChainMatches(g.SigningChains, f) {
		return GuardrailSigningChains, "chain is not in signing_chains"
	}
	return "", ""
}

func checkDecoded(f *TxFacts) (string, string) {
	if f.DecodeFailed {
		return GuardrailDecode, "the transaction could not be decoded"
	}
	// A negative amount cannot come from a real transaction and would slip
	// under every limit: treat it as a decode failure.
	if (f.Value != nil && f.Value.Sign() < 0) || (f.TokenAmount != nil && f.TokenAmount.Sign() < 0) {
		return GuardrailDecode, "the transaction carries a negative amount"
	}
	return "", ""
}

// checkDomainChain binds typed data to the request's chain: a domain
// chainId must equal it, and a known standard (which can move assets or
// grant rights) must carry one, or its signature would be valid on every
// chain.
func checkDomainChain(f *TxFacts) (string, string) {
	td := f.TypedData
	if td == nil {
		return "", ""
	}
	if td.DomainChainID == "" {
		if td.Standard != "" {
			return GuardrailDecode, "typed data of a known standard without a domain chainId"
		}
		return "", ""
	}
	id, ok := chainIDValue(td.DomainChainID)
	if !ok || f.ChainID == 0 || id.Cmp(new(big.Int).SetUint64(f.ChainID)) != 0 {
		return GuardrailDomainChainID, "the typed data's domain chainId is not the request's chain"
	}
	return "", ""
}

// checkTypedData denies typed data, known standard or not, unless the
// default policy is allow or its domain is allowlisted. Typed data without
// facts has an unknown domain.
func checkTypedData(g *Guardrails, f *TxFacts) (string, string) {
	if g.EIP712DefaultPolicy == EIP712PolicyAllow {
		return "", ""
	}
	if td := f.TypedData; td != nil {
		for i := range g.EIP712DomainAllowlist {
			if g.EIP712DomainAllowlist[i].matches(td) {
				return "", ""
			}
		}
	}
	return GuardrailEIP712DefaultPolicy, "typed data from a domain not in eip712_domain_allowlist"
}

// checkDelegations refuses an EIP-7702 authorization whose delegate is not
// in tx_delegation_allowlist; with no list, every delegation is refused.
func checkDelegations(g *Guardrails, f *TxFacts) (string, string) {
	for _, d := range f.Delegations {
		if !inAddressList(g.TxDelegationAllowlist, d) {
			return GuardrailDelegation, "an EIP-7702 authorization delegates to code not in tx_delegation_allowlist"
		}
	}
	return "", ""
}

// checkOverheadBudget applies the chain's overhead budget to the
// transaction's maximum fee plus the fees reserved today.
func checkOverheadBudget(g *Guardrails, f *TxFacts, c *TxCounters) (string, string) {
	budget, err := g.overheadBudget(f.Chain, f.Decimals)
	switch {
	case err != nil:
		return GuardrailOverheadBudget, "the overhead budget cannot be applied on this chain"
	case budget == nil:
		return "", ""
	}
	fees, maxFee := orZero(c.FeesTodayChain), orZero(f.MaxFee)
	if fees.Sign() < 0 || maxFee.Sign() < 0 {
		return GuardrailOverheadBudget, "invalid fee counter"
	}
	if new(big.Int).Add(fees, maxFee).Cmp(budget) > 0 {
		return GuardrailOverheadBudget, "the maximum fee exceeds today's overhead budget on this chain"
	}
	return "", ""
}

// checkMaxValue applies the per-request value limit to the native value
// moved; for a transaction on a chain without an overhead budget the
// maximum fee counts too.
func checkMaxValue(g *Guardrails, f *TxFacts, isTx bool) (string, string) {
	limit, err := strictestLimit(g.TxMaxValueETH, g.chainOverrides(f.Chain),
		func(o ChainGuardrails) Amount { return o.MaxValue }, f.Decimals)
	switch {
	case err != nil:
		return GuardrailMaxValue, "the value limit cannot be applied on this chain"
	case limit == nil:
		return "", ""
	}
	v := nativeValue(f)
	if v.Cmp(limit) > 0 {
		return GuardrailMaxValue, "value exceeds the per-transaction limit"
	}
	if !isTx {
		return "", ""
	}
	if budget, err := g.overheadBudget(f.Chain, f.Decimals); err == nil && budget == nil {
		if fee := orZero(f.MaxFee); fee.Sign() < 0 || new(big.Int).Add(v, fee).Cmp(limit) > 0 {
			return GuardrailMaxValue, "value plus the maximum fee exceeds the per-transaction limit"
		}
	}
	return "", ""
}

func checkPerDay(g *Guardrails, f *TxFacts, c *TxCounters) (string, string) {
	maxAll, maxChain, _ := g.DailyLimits(f.Chain, 0)
	if maxAll >= 0 && c.CountToday >= maxAll {
		return GuardrailMaxPerDay, "daily transaction count reached"
	}
	if maxChain >= 0 && c.CountTodayChain >= maxChain {
		return GuardrailMaxPerDay, "daily transaction count for this chain reached"
	}
	return "", ""
}

func checkDailyValue(g *Guardrails, f *TxFacts, c *TxCounters) (string, string) {
	limit, err := strictestLimit(g.TxDailyLimitETH, g.chainOverrides(f.Chain),
		func(o ChainGuardrails) Amount { return o.DailyLimit }, f.Decimals)
	switch {
	case err != nil:
		return GuardrailDailyLimit, "the daily limit cannot be applied on this chain"
	case limit == nil:
		return "", ""
	}
	spent := orZero(c.SpentTodayChain)
	if spent.Sign() < 0 {
		return GuardrailDailyLimit, "invalid daily spend counter"
	}
	if new(big.Int).Add(spent, nativeValue(f)).Cmp(limit) > 0 {
		return GuardrailDailyLimit, "value exceeds the daily limit"
	}
	return "", ""
}

// evalTxRules applies the tx_conditions rules: expired rules drop out; of
// the matching rules the highest priority wins and a deny wins a tie. When
// none matches, any allow rule makes the allow rules an allowlist that this
// request is not on. An invalid effect, or rules with an expiry but no
// evaluation time, deny.
func evalTxRules(rules []TxRule, truths []truth, now time.Time) (string, string) {
	var best *TxRule
	anyAllow := false
	for i := range rules {
		r := &rules[i]
		if r.Effect != EffectAllow && r.Effect != EffectDeny {
			return GuardrailConditions, "a transaction rule is invalid"
		}
		if !r.ExpiresAt.IsZero() {
			if now.IsZero() {
				return GuardrailConditions, "no evaluation time for an expiring rule"
			}
			if !now.Before(r.ExpiresAt) {
				continue
			}
		}
		if r.Effect == EffectAllow {
			anyAllow = true
		}
		t := truths[i]
		// An unknown condition may let a deny apply, never an allow.
		if t == truthFails || (t == truthUnknown && r.Effect == EffectAllow) {
			continue
		}
		if best == nil || r.Priority > best.Priority || (r.Priority == best.Priority && r.Effect == EffectDeny) {
			best = r
		}
	}
	switch {
	case best != nil && best.Effect == EffectDeny:
		return GuardrailConditions, "denied by a transaction rule"
	case best == nil && anyAllow:
		return GuardrailConditions, "no transaction rule allows this request"
	}
	return "", ""
}

func inAddressList(list []string, addr string) bool {
	return strings.TrimSpace(addr) != "" && inList(list, addr, true)
}

// orZero returns v, or 0 for nil.
func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
