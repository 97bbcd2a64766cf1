package policy

import (
	"math/big"
	"strings"
	"time"
)

// EvaluateTx decides a sign request against an agent's guardrails g and the
// tx_conditions rules of the policies that target it, given the facts the
// chain package decoded, the agent's counters for the current UTC day and
// the time. Checks run in this order and the first failing one denies,
// naming itself in TxDecision.Guardrail:
//
//  1. intent gates: personal_sign needs message_signing_enabled;
//     eip712_digest needs raw_signing_enabled and then skips everything
//     else (the spec bypasses guardrails for it);
//  2. tx_allowed_chains, then signing_chains;
//  3. tx_decode: a transaction that failed to decode (or carries a
//     negative amount);
//  4. eip712_default_policy: dangerous typed data needs the "allow" default
//     or an eip712_domain_allowlist entry;
//  5. tx_to_allowlist, then per_chain_guardrails (its to_allowlist), then
//     tx_delegation_allowlist (every EIP-7702 delegate must be listed: a
//     delegation hands the account's every asset to the delegate's code);
//  6. tx_token_allowlist (global and per-chain), tx_known_tokens_only;
//  7. tx_max_value_eth (the stricter of global and per-chain max_value);
//  8. tx_conditions (see evalTxRules);
//  9. tx_max_per_day (global count, then per-chain max_per_day);
//  10. tx_daily_limit_eth (the stricter of global and per-chain daily_limit).
//
// personal_sign and typed_data move no value and skip 3, 5–7, 9 and 10.
// Every choice fails closed: an unknown intent type, a limit that cannot
// be converted at f.Decimals, or an invalid rule denies.
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
	steps := []struct {
		applies bool
		check   func() (guardrail, detail string)
	}{
		{true, func() (string, string) { return checkChains(&g, &f) }},
		{isTx, func() (string, string) { return checkDecoded(&f) }},
		{typed, func() (string, string) { return checkTypedData(&g, &f) }},
		{isTx, func() (string, string) { return checkRecipient(&g, &f) }},
		{isTx, func() (string, string) { return checkDelegations(&g, &f) }},
		{isTx, func() (string, string) { return checkToken(&g, &f) }},
		{isTx, func() (string, string) { return checkMaxValue(&g, &f) }},
		{true, func() (string, string) { return evalTxRules(rules, &f, intent, now) }},
		{isTx, func() (string, string) { return checkPerDay(&g, &f, &c) }},
		{isTx, func() (string, string) { return checkDailyValue(&g, &f, &c) }},
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

// checkTypedData denies dangerous typed data unless the default policy is
// allow or its domain is allowlisted. Typed data without facts is treated
// as dangerous with an unknown domain.
func checkTypedData(g *Guardrails, f *TxFacts) (string, string) {
	td := f.TypedData
	if td == nil {
		td = &TypedDataFacts{Dangerous: true}
	}
	if !td.Dangerous || g.EIP712DefaultPolicy == EIP712PolicyAllow {
		return "", ""
	}
	for i := range g.EIP712DomainAllowlist {
		if g.EIP712DomainAllowlist[i].matches(td) {
			return "", ""
		}
	}
	return GuardrailEIP712DefaultPolicy, "dangerous typed data from a domain not in eip712_domain_allowlist"
}

// checkRecipient applies the recipient allowlists to the effective
// recipient: the token recipient of a token transfer, else To.
func checkRecipient(g *Guardrails, f *TxFacts) (string, string) {
	to := f.To
	if f.Token != "" && f.TokenRecipient != "" {
		to = f.TokenRecipient
	}
	if len(g.TxToAllowlist) > 0 && !inAddressList(g.TxToAllowlist, to) {
		return GuardrailToAllowlist, "recipient is not in tx_to_allowlist"
	}
	for _, o := range g.chainOverrides(f.Chain) {
		if len(o.ToAllowlist) > 0 && !inAddressList(o.ToAllowlist, to) {
			return GuardrailPerChain, "recipient is not in this chain's to_allowlist"
		}
	}
	return "", ""
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

func checkToken(g *Guardrails, f *TxFacts) (string, string) {
	if f.Token == "" {
		return "", ""
	}
	if len(g.TxTokenAllowlist) > 0 && !inAddressList(g.TxTokenAllowlist, f.Token) {
		return GuardrailTokenAllowlist, "token is not in tx_token_allowlist"
	}
	for _, o := range g.chainOverrides(f.Chain) {
		if len(o.TokenAllowlist) > 0 && !inAddressList(o.TokenAllowlist, f.Token) {
			return GuardrailTokenAllowlist, "token is not in this chain's token_allowlist"
		}
	}
	if g.TxKnownTokensOnly && !f.TokenKnown {
		return GuardrailKnownTokensOnly, "token is not a known token"
	}
	return "", ""
}

func checkMaxValue(g *Guardrails, f *TxFacts) (string, string) {
	limit, err := strictestLimit(g.TxMaxValueETH, g.chainOverrides(f.Chain),
		func(o ChainGuardrails) Amount { return o.MaxValue }, f.Decimals)
	switch {
	case err != nil:
		return GuardrailMaxValue, "the value limit cannot be applied on this chain"
	case limit != nil && orZero(f.Value).Cmp(limit) > 0:
		return GuardrailMaxValue, "value exceeds the per-transaction limit"
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
	if new(big.Int).Add(spent, orZero(f.Value)).Cmp(limit) > 0 {
		return GuardrailDailyLimit, "value exceeds the daily limit"
	}
	return "", ""
}

// evalTxRules applies the tx_conditions rules: expired rules drop out; of
// the matching rules the highest priority wins and a deny wins a tie. When
// none matches, any allow rule makes the allow rules an allowlist that this
// request is not on. An invalid effect, or rules with an expiry but no
// evaluation time, deny.
func evalTxRules(rules []TxRule, f *TxFacts, intent string, now time.Time) (string, string) {
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
		t := r.Conditions.eval(f, intent, r.Effect)
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
