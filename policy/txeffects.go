package policy

import (
	"math/big"
	"strings"
	"time"
)

// unlimitedAllowance is 2^255: an allowance at or above it is unlimited,
// whatever the decoder said.
var unlimitedAllowance = new(big.Int).Lsh(big.NewInt(1), 255)

// txEffects returns the effects of f. Facts without effects but with a
// decoded token call (Token set) stand for that single call.
func txEffects(f *TxFacts) []TxEffect {
	if f.Effects != nil || f.Token == "" {
		return f.Effects
	}
	return []TxEffect{{Kind: TxEffectTokenTransfer, Function: f.FunctionName, Selector: f.FunctionSelector,
		Target: f.To, Token: f.Token, TokenKnown: f.TokenKnown, Counterparty: f.TokenRecipient, Amount: f.TokenAmount}}
}

// unlimitedGrant reports whether e hands out rights without an amount
// bound: an unlimited allowance or setApprovalForAll(…, true).
func unlimitedGrant(e *TxEffect) bool {
	switch e.Kind {
	case TxEffectApprove:
		return e.Unlimited || (e.Amount != nil && e.Amount.Cmp(unlimitedAllowance) >= 0)
	case TxEffectApprovalForAll:
		return e.Approved
	}
	return false
}

// revocation reports whether e takes rights away rather than grants them:
// an allowance of zero or setApprovalForAll(…, false).
func revocation(e *TxEffect) bool {
	switch e.Kind {
	case TxEffectApprove:
		return !unlimitedGrant(e) && e.Amount != nil && e.Amount.Sign() == 0
	case TxEffectApprovalForAll:
		return !e.Approved
	}
	return false
}

// checkEffectsDecoded denies a negative amount in any effect (it would slip
// under every limit) and a typed-data standard whose message is malformed.
func checkEffectsDecoded(f *TxFacts) (string, string) {
	if f.TypedData != nil && f.TypedData.DecodeFailed {
		return GuardrailDecode, "the typed data of a known standard could not be decoded"
	}
	for _, e := range txEffects(f) {
		if e.Amount != nil && e.Amount.Sign() < 0 {
			return GuardrailDecode, "the request carries a negative amount"
		}
	}
	return "", ""
}

// checkUndecodedCalls denies a call OCV could not decode unless a matching
// tx_conditions allow rule lists its selector in function_selector_in.
func checkUndecodedCalls(rules []TxRule, truths []truth, f *TxFacts, now time.Time) (string, string) {
	for _, e := range txEffects(f) {
		if !e.DecodeFailed || e.Kind == TxEffectPrivileged {
			continue
		}
		if e.Selector == "" || !allowRuleNames(rules, truths, now, "", e.Selector) {
			return GuardrailDecode, "a call could not be decoded and no transaction rule allows its selector"
		}
	}
	return "", ""
}

// checkPrivileged denies a privileged effect (an upgrade, an ownership or
// Safe configuration change, a delegatecall) unless a matching tx_conditions
// allow rule names its function or selector.
func checkPrivileged(rules []TxRule, truths []truth, f *TxFacts, now time.Time) (string, string) {
	for _, e := range txEffects(f) {
		if e.Kind != TxEffectPrivileged {
			continue
		}
		if (e.Function == "" && e.Selector == "") || !allowRuleNames(rules, truths, now, e.Function, e.Selector) {
			return GuardrailPrivilegedCall, "a privileged call (upgrade, ownership or Safe change, delegatecall) that no transaction rule allows"
		}
	}
	return "", ""
}

// checkApprovals denies an unlimited allowance or an operator approval to
// a grantee not in tx_approval_allowlist; an open grantee is never listed.
func checkApprovals(g *Guardrails, f *TxFacts) (string, string) {
	for _, e := range txEffects(f) {
		if unlimitedGrant(&e) && !inAddressList(g.TxApprovalAllowlist, e.Counterparty) {
			if e.Kind == TxEffectApprovalForAll {
				return GuardrailApprovalAllowlist, "an operator approval for a whole collection to an operator not in tx_approval_allowlist"
			}
			return GuardrailApprovalAllowlist, "an unlimited allowance to a spender not in tx_approval_allowlist"
		}
	}
	return "", ""
}

// counterparties returns the addresses the recipient allowlists judge:
// every recipient, every spender of a limited allowance, and the
// transaction's to unless the request is a call to a token contract whose
// top-level effects all concern that token (the token allowlists judge
// it). Unlimited grants were judged by checkApprovals, revocations grant
// nothing, and privileged effects are judged by the rules that name them.
// An open counterparty is "", which no list holds.
func counterparties(f *TxFacts, intent string) []string {
	effects := txEffects(f)
	var out []string
	if intent == IntentTransaction && (len(effects) == 0 || orZero(f.Value).Sign() > 0 || !tokenCall(f, effects)) {
		out = append(out, f.To)
	}
	for i := range effects {
		e := &effects[i]
		switch {
		case e.Kind == TxEffectPrivileged || e.Kind == TxEffectCall:
		case unlimitedGrant(e) || revocation(e):
		default:
			out = append(out, e.Counterparty)
		}
	}
	return out
}

// tokenCall reports whether every top-level effect is a token effect on
// the contract the transaction calls.
func tokenCall(f *TxFacts, effects []TxEffect) bool {
	top := 0
	for _, e := range effects {
		if e.Depth != 0 {
			continue
		}
		top++
		switch e.Kind {
		case TxEffectTokenTransfer, TxEffectApprove, TxEffectApprovalForAll:
		default:
			return false
		}
		if f.To == "" || !strings.EqualFold(e.Token, f.To) {
			return false
		}
	}
	return top > 0
}

// checkCounterparties applies tx_to_allowlist and the chain's to_allowlist
// to every counterparty.
func checkCounterparties(g *Guardrails, f *TxFacts, intent string) (string, string) {
	parties := counterparties(f, intent)
	if len(g.TxToAllowlist) > 0 {
		for _, p := range parties {
			if !inAddressList(g.TxToAllowlist, p) {
				return GuardrailToAllowlist, "a recipient, spender or operator is not in tx_to_allowlist"
			}
		}
	}
	for _, o := range g.chainOverrides(f.Chain) {
		if len(o.ToAllowlist) == 0 {
			continue
		}
		for _, p := range parties {
			if !inAddressList(o.ToAllowlist, p) {
				return GuardrailPerChain, "a recipient, spender or operator is not in this chain's to_allowlist"
			}
		}
	}
	return "", ""
}

// checkTokens applies tx_token_allowlist (global and per-chain) and
// tx_known_tokens_only to the token of every token effect that grants or
// moves something.
func checkTokens(g *Guardrails, f *TxFacts) (string, string) {
	for _, e := range txEffects(f) {
		switch e.Kind {
		case TxEffectTokenTransfer, TxEffectApprove, TxEffectApprovalForAll:
		default:
			continue
		}
		if revocation(&e) {
			continue
		}
		if len(g.TxTokenAllowlist) > 0 && !inAddressList(g.TxTokenAllowlist, e.Token) {
			return GuardrailTokenAllowlist, "token is not in tx_token_allowlist"
		}
		for _, o := range g.chainOverrides(f.Chain) {
			if len(o.TokenAllowlist) > 0 && !inAddressList(o.TokenAllowlist, e.Token) {
				return GuardrailTokenAllowlist, "token is not in this chain's token_allowlist"
			}
		}
		if g.TxKnownTokensOnly && !e.TokenKnown {
			return GuardrailKnownTokensOnly, "token is not a known token"
		}
	}
	return "", ""
}

// nativeValue is the native value a request moves, base units: for a
// transaction its value, or the native transfers of its inner calls when
// they add up to more (they are paid from the value), plus native
// transfers out of other accounts the signer controls (a Safe); for typed
// data the sum of its native transfers. Negative amounts count as zero
// here (checkEffectsDecoded denies them).
func nativeValue(f *TxFacts) *big.Int {
	own, other := new(big.Int), new(big.Int)
	for _, e := range txEffects(f) {
		if e.Kind != TxEffectNativeTransfer || e.Amount == nil || e.Amount.Sign() <= 0 {
			continue
		}
		if e.From == "" {
			own.Add(own, e.Amount)
		} else {
			other.Add(other, e.Amount)
		}
	}
	if v := f.Value; v != nil && v.Cmp(own) > 0 {
		own.Set(v)
	}
	return own.Add(own, other)
}

// allowRuleNames reports whether an allow rule in force holds for the
// request (truths[i] is rule i's result) and lists function in
// function_name_in or selector in function_selector_in. Whether that rule
// also wins against the deny rules is evalTxRules' decision.
func allowRuleNames(rules []TxRule, truths []truth, now time.Time, function, selector string) bool {
	for i := range rules {
		r := &rules[i]
		if r.Effect != EffectAllow || !ruleInForce(r, now) || truths[i] != truthHolds {
			continue
		}
		c := &r.Conditions
		if (function != "" && inList(c.FunctionNameIn, function, false)) ||
			(selector != "" && inList(c.FunctionSelectorIn, selector, true)) {
			return true
		}
	}
	return false
}

// ruleTruths evaluates every rule's conditions once against f, over call
// views computed once: the checks that consult the rules share the result,
// so that a request with many effects and many rules costs rules × views.
func ruleTruths(rules []TxRule, f *TxFacts, intent string) []truth {
	if len(rules) == 0 {
		return nil
	}
	views := callViews(f, txEffects(f))
	out := make([]truth, len(rules))
	for i := range rules {
		out[i] = rules[i].Conditions.evalViews(f, intent, rules[i].Effect, views)
	}
	return out
}

// ruleInForce reports whether r has not expired at now; an expiring rule
// without an evaluation time is not in force.
func ruleInForce(r *TxRule, now time.Time) bool {
	return r.ExpiresAt.IsZero() || (!now.IsZero() && now.Before(r.ExpiresAt))
}
