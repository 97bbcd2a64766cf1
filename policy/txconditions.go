package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// gweiDecimals is the scale of value_above: one gwei is 10^-9 of the
// native major unit.
const gweiDecimals = 9

// TxConditions is a policy's tx_conditions: the conjunction of its present
// fields (nil lists and nil pointers are absent). The zero value holds for
// every request.
type TxConditions struct {
	FunctionNameIn     []string `json:"function_name_in,omitempty"`     // exact function names
	FunctionSelectorIn []string `json:"function_selector_in,omitempty"` // "0x" + 8 hex digits, any case
	ERC20AmountAbove   *big.Int `json:"erc20_amount_above,omitempty"`   // token base units; needs a token amount
	// ValueAboveGwei holds when the native value exceeds this many gwei,
	// that is units of 10^-9 of the major unit (exactly gwei on EVM chains).
	ValueAboveGwei *big.Int `json:"value_above,omitempty"`
	ToAddressIn    []string `json:"to_address_in,omitempty"`  // the transaction's to, case-insensitive
	ChainIn        []string `json:"chain_in,omitempty"`       // chain names or decimal chain ids
	IntentTypeIn   []string `json:"intent_type_in,omitempty"` // Intent* constants
	DecodeFailed   *bool    `json:"decode_failed,omitempty"`
	// ProgramIDIn (Solana) never holds for a request without program ids.
	// For a deny rule it holds when any program id is listed; for an allow
	// rule only when every program id is listed, so that an allow never
	// admits an unlisted program riding along in the same transaction.
	ProgramIDIn []string `json:"program_id_in,omitempty"`
	// DelegateIn (an OCV extension) matches the EIP-7702 delegates of a
	// transaction the way ProgramIDIn matches program ids: a deny rule
	// holds when any delegate is listed, an allow rule only when every
	// delegate is; a request without delegations never matches.
	DelegateIn []string `json:"delegate_in,omitempty"`
}

// txConditionKeys are the keys a tx_conditions object may hold.
var txConditionKeys = []string{
	"function_name_in", "function_selector_in", "erc20_amount_above", "value_above",
	"to_address_in", "chain_in", "intent_type_in", "decode_failed", "program_id_in", "delegate_in",
}

// ParseTxConditions reads a tx_conditions object. Unknown keys, empty
// lists and malformed values are refused (an empty list would otherwise
// silently turn a rule into a match-all or match-nothing rule); a null
// field is absent, and a null or empty raw gives the zero TxConditions.
// Errors wrap ErrInvalidTxConditions and name the field.
func ParseTxConditions(raw json.RawMessage) (TxConditions, error) {
	var c TxConditions
	if len(raw) == 0 || isNull(raw) {
		return c, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return TxConditions{}, fmt.Errorf("%w: must be a JSON object", ErrInvalidTxConditions)
	}
	for key, b := range fields {
		if !slices.Contains(txConditionKeys, key) {
			return TxConditions{}, fmt.Errorf("%w: %s: is not a known condition", ErrInvalidTxConditions, key)
		}
		if isNull(b) {
			continue
		}
		var err error
		switch key {
		case "function_name_in":
			c.FunctionNameIn, err = conditionList(b, nil)
		case "function_selector_in":
			c.FunctionSelectorIn, err = conditionList(b, selectorProblem)
		case "erc20_amount_above":
			c.ERC20AmountAbove, _, err = parseInteger(b)
		case "value_above":
			c.ValueAboveGwei, _, err = parseInteger(b)
		case "to_address_in":
			c.ToAddressIn, err = conditionList(b, nil)
		case "chain_in":
			err = chainsInto(&c.ChainIn)(b)
			if err == nil && len(c.ChainIn) == 0 {
				err = errors.New("must not be empty")
			}
		case "intent_type_in":
			c.IntentTypeIn, err = conditionList(b, intentProblem)
		case "decode_failed":
			var v bool
			if json.Unmarshal(b, &v) != nil {
				err = errors.New("must be a boolean")
			}
			c.DecodeFailed = &v
		case "program_id_in":
			c.ProgramIDIn, err = conditionList(b, nil)
		case "delegate_in":
			c.DelegateIn, err = conditionList(b, nil)
		}
		if err != nil {
			return TxConditions{}, fmt.Errorf("%w: %s: %w", ErrInvalidTxConditions, key, err)
		}
	}
	return c, nil
}

// conditionList reads a non-empty array of non-empty strings, each
// checked by problem when given.
func conditionList(b json.RawMessage, problem func(string) string) ([]string, error) {
	var list []string
	if err := stringsInto(&list)(b); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errors.New("must not be empty")
	}
	for i, s := range list {
		if problem != nil {
			if why := problem(s); why != "" {
				return nil, fmt.Errorf("entry %d %s", i, why)
			}
		}
	}
	return list, nil
}

func selectorProblem(s string) string {
	h, ok := strings.CutPrefix(strings.ToLower(s), "0x")
	if !ok || len(h) != 8 || strings.Trim(h, "0123456789abcdef") != "" {
		return `must be "0x" and 8 hex digits`
	}
	return ""
}

func intentProblem(s string) string {
	if _, ok := normalizeIntent(s); !ok {
		return "must be transaction, personal_sign, typed_data or eip712_digest"
	}
	return ""
}

// callView is one call a request makes, as the per-call conditions
// (function, selector, token amount, to address, decode_failed) see it:
// the top-level call, and each effect of the calls inside it.
type callView struct {
	function     string
	selector     string
	to           string
	tokenAmount  *big.Int
	decodeFailed bool
}

// callViews returns the top-level call of f and, when deep, one view per
// effect. The top-level call counts as undecoded when any effect is.
func callViews(f *TxFacts, effects []TxEffect) []callView {
	top := callView{function: f.FunctionName, selector: f.FunctionSelector, to: f.To,
		tokenAmount: f.TokenAmount, decodeFailed: f.DecodeFailed}
	if f.TypedData != nil && f.TypedData.DecodeFailed {
		top.decodeFailed = true
	}
	if f.TypedData != nil && top.function == "" {
		top.function = f.TypedData.Standard
	}
	views := make([]callView, 0, 1+len(effects))
	for _, e := range effects {
		v := callView{function: e.Function, selector: e.Selector, to: e.Target, decodeFailed: e.DecodeFailed}
		if e.Kind == TxEffectNativeTransfer && v.to == "" {
			v.to = e.Counterparty
		}
		if e.Kind == TxEffectTokenTransfer || e.Kind == TxEffectApprove {
			v.tokenAmount = e.Amount
		}
		top.decodeFailed = top.decodeFailed || e.DecodeFailed
		views = append(views, v)
	}
	return append([]callView{top}, views...)
}

// eval evaluates every present condition against f for a rule of the
// given effect, deeply: the per-call conditions are weighed on every call
// view, and a deny rule holds when they hold for any view while an allow
// rule holds only when they hold for every view, so that nothing unlisted
// rides along inside a wrapper. A fact it cannot judge (an unusable
// Decimals) is unknown: the caller lets such a result apply a deny but
// never an allow.
func (c *TxConditions) eval(f *TxFacts, intent string, effect Effect) truth {
	return c.evalViews(f, intent, effect, callViews(f, txEffects(f)))
}

// evalViews is eval over the call views of f computed once by the caller.
func (c *TxConditions) evalViews(f *TxFacts, intent string, effect Effect, views []callView) truth {
	t := c.evalRequest(f, intent, effect)
	if t == truthFails {
		return t
	}
	var acc truth
	if effect == EffectDeny {
		acc = truthFails
		for i := range views {
			switch c.evalCall(&views[i]) {
			case truthHolds:
				return t
			case truthUnknown:
				acc = truthUnknown
			}
		}
		return t.and(acc)
	}
	acc = truthHolds
	for i := range views {
		acc = acc.and(c.evalCall(&views[i]))
	}
	return t.and(acc)
}

// evalRequest weighs the conditions about the request as a whole.
func (c *TxConditions) evalRequest(f *TxFacts, intent string, effect Effect) truth {
	t := truthHolds
	if c.ValueAboveGwei != nil {
		t = t.and(valueAbove(f, c.ValueAboveGwei))
	}
	if c.ChainIn != nil {
		t = t.and(holdsIf(anyChainMatches(c.ChainIn, f)))
	}
	if c.IntentTypeIn != nil {
		t = t.and(holdsIf(intentIn(c.IntentTypeIn, intent)))
	}
	if c.ProgramIDIn != nil {
		t = t.and(holdsIf(programsIn(c.ProgramIDIn, f.ProgramIDs, effect == EffectDeny, false)))
	}
	if c.DelegateIn != nil {
		t = t.and(holdsIf(programsIn(c.DelegateIn, f.Delegations, effect == EffectDeny, true)))
	}
	return t
}

// evalCall weighs the per-call conditions on one call view.
func (c *TxConditions) evalCall(v *callView) truth {
	t := truthHolds
	if c.FunctionNameIn != nil {
		t = t.and(holdsIf(v.function != "" && inList(c.FunctionNameIn, v.function, false)))
	}
	if c.FunctionSelectorIn != nil {
		t = t.and(holdsIf(v.selector != "" && inList(c.FunctionSelectorIn, v.selector, true)))
	}
	if c.ERC20AmountAbove != nil {
		t = t.and(holdsIf(v.tokenAmount != nil && v.tokenAmount.Cmp(c.ERC20AmountAbove) > 0))
	}
	if c.ToAddressIn != nil {
		t = t.and(holdsIf(v.to != "" && inList(c.ToAddressIn, v.to, true)))
	}
	if c.DecodeFailed != nil {
		t = t.and(holdsIf(*c.DecodeFailed == v.decodeFailed))
	}
	return t
}

func holdsIf(ok bool) truth {
	if ok {
		return truthHolds
	}
	return truthFails
}

// valueAbove compares the native value the request moves (base units,
// see nativeValue) with gwei without dividing: value × 10^9 > gwei ×
// 10^Decimals.
func valueAbove(f *TxFacts, gwei *big.Int) truth {
	if f.Decimals < 0 || f.Decimals > MaxDecimals {
		return truthUnknown
	}
	v := new(big.Int).Mul(nativeValue(f), pow10(gweiDecimals))
	return holdsIf(v.Cmp(new(big.Int).Mul(gwei, pow10(f.Decimals))) > 0)
}

func intentIn(list []string, intent string) bool {
	for _, s := range list {
		if n, ok := normalizeIntent(s); ok && n == intent {
			return true
		}
	}
	return false
}

// programsIn reports whether any (or, when !anyOne, every) id is listed,
// optionally ignoring case; no ids never match.
func programsIn(list, ids []string, anyOne, fold bool) bool {
	if len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		if in := inList(list, id, fold); in == anyOne {
			return anyOne
		}
	}
	return !anyOne
}

// inList reports whether s is in list, optionally ignoring case.
func inList(list []string, s string, fold bool) bool {
	for _, e := range list {
		if e == s || (fold && strings.EqualFold(strings.TrimSpace(e), strings.TrimSpace(s))) {
			return true
		}
	}
	return false
}

func anyChainMatches(list []string, f *TxFacts) bool {
	for _, e := range list {
		if chainMatches(e, f) {
			return true
		}
	}
	return false
}
