package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// The values of eip712_default_policy.
const (
	EIP712PolicyDeny  = "deny"
	EIP712PolicyAllow = "allow"
)

// Guardrails are the transaction guardrails of an agent (the spec's Agent
// table). The zero value is the most restrictive signing setup: no message
// or raw signing, dangerous typed data denied, and no limits on
// transactions. An empty list is no restriction, exactly like an absent
// one.
type Guardrails struct {
	MessageSigningEnabled bool               `json:"message_signing_enabled,omitempty"`
	RawSigningEnabled     bool               `json:"raw_signing_enabled,omitempty"`
	EIP712DefaultPolicy   string             `json:"eip712_default_policy,omitempty"` // EIP712PolicyDeny (also "") or EIP712PolicyAllow
	EIP712DomainAllowlist []EIP712DomainRule `json:"eip712_domain_allowlist,omitempty"`
	SigningChains         []string           `json:"signing_chains,omitempty"`    // chain names or decimal chain ids
	TxAllowedChains       []string           `json:"tx_allowed_chains,omitempty"` // chain names or decimal chain ids
	TxToAllowlist         []string           `json:"tx_to_allowlist,omitempty"`   // addresses, case-insensitive
	// TxDelegationAllowlist lists the code addresses an EIP-7702
	// authorization may delegate the agent's account to (an OCV extension).
	// Empty: no delegation is signed at all, unlike the other lists.
	TxDelegationAllowlist []string `json:"tx_delegation_allowlist,omitempty"`
	// TxApprovalAllowlist lists the spenders and operators that may receive
	// an unlimited allowance or permit, or setApprovalForAll(…, true) (an
	// OCV extension). Empty: no unlimited grant is signed at all.
	TxApprovalAllowlist []string `json:"tx_approval_allowlist,omitempty"`
	TxMaxValueETH       Amount   `json:"tx_max_value_eth,omitempty"` // per transaction, native major units
	TxDailyLimitETH     Amount   `json:"tx_daily_limit_eth,omitempty"`
	TxMaxPerDay         *int64   `json:"tx_max_per_day,omitempty"` // all chains, UTC day; nil is no cap
	TxTokenAllowlist    []string `json:"tx_token_allowlist,omitempty"`
	TxKnownTokensOnly   bool     `json:"tx_known_tokens_only,omitempty"`
	// TxOverheadBudget caps the maximum fees of a UTC day per chain, keyed
	// by chain name (case-insensitive), in native major units.
	TxOverheadBudget map[string]Amount `json:"tx_overhead_budget,omitempty"`
	// PerChainGuardrails holds overrides keyed by chain name (matched
	// case-insensitively); the strictest of global and per-chain wins.
	PerChainGuardrails map[string]ChainGuardrails `json:"per_chain_guardrails,omitempty"`
}

// ChainGuardrails are the per-chain overrides of Guardrails. Other keys of
// the stored object (max_ata_creates_per_day) are not transaction
// guardrails and are ignored here.
type ChainGuardrails struct {
	MaxValue       Amount   `json:"max_value,omitempty"`
	DailyLimit     Amount   `json:"daily_limit,omitempty"`
	ToAllowlist    []string `json:"to_allowlist,omitempty"`
	TokenAllowlist []string `json:"token_allowlist,omitempty"`
	MaxPerDay      *int64   `json:"max_per_day,omitempty"`
	// OverheadBudget caps the day's maximum fees on this chain, native
	// major units; the stricter of it and tx_overhead_budget applies.
	OverheadBudget Amount `json:"overhead_budget,omitempty"`
}

// ParseGuardrails reads the transaction guardrails from an agent's stored
// guardrail object; keys it does not know are ignored and a null value is
// an absent field. Amounts may be JSON numbers or decimal strings. Errors
// wrap ErrInvalidGuardrail and name the field.
func ParseGuardrails(fields map[string]json.RawMessage) (Guardrails, error) {
	var g Guardrails
	var err error
	for _, f := range []struct {
		key   string
		parse func(json.RawMessage) error
	}{
		{"message_signing_enabled", boolInto(&g.MessageSigningEnabled)},
		{"raw_signing_enabled", boolInto(&g.RawSigningEnabled)},
		{"eip712_default_policy", func(b json.RawMessage) error {
			g.EIP712DefaultPolicy, err = parseEIP712Policy(b)
			return err
		}},
		{"eip712_domain_allowlist", func(b json.RawMessage) error {
			g.EIP712DomainAllowlist, err = parseDomainAllowlist(b)
			return err
		}},
		{"signing_chains", chainsInto(&g.SigningChains)},
		{"tx_allowed_chains", chainsInto(&g.TxAllowedChains)},
		{"tx_to_allowlist", stringsInto(&g.TxToAllowlist)},
		{"tx_delegation_allowlist", stringsInto(&g.TxDelegationAllowlist)},
		{"tx_approval_allowlist", stringsInto(&g.TxApprovalAllowlist)},
		{"tx_overhead_budget", func(b json.RawMessage) error {
			g.TxOverheadBudget, err = parseBudgets(b)
			return err
		}},
		{"tx_max_value_eth", amountInto(&g.TxMaxValueETH)},
		{"tx_daily_limit_eth", amountInto(&g.TxDailyLimitETH)},
		{"tx_max_per_day", countInto(&g.TxMaxPerDay)},
		{"tx_token_allowlist", stringsInto(&g.TxTokenAllowlist)},
		{"tx_known_tokens_only", boolInto(&g.TxKnownTokensOnly)},
		{"per_chain_guardrails", func(b json.RawMessage) error {
			g.PerChainGuardrails, err = parsePerChain(b)
			return err
		}},
	} {
		raw, ok := fields[f.key]
		if !ok || isNull(raw) {
			continue
		}
		if err := f.parse(raw); err != nil {
			return Guardrails{}, fmt.Errorf("%w: %s: %w", ErrInvalidGuardrail, f.key, err)
		}
	}
	return g, nil
}

// DecodeGuardrails parses a stored guardrail object (see ParseGuardrails).
func DecodeGuardrails(b []byte) (Guardrails, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return Guardrails{}, fmt.Errorf("%w: must be a JSON object: %w", ErrInvalidGuardrail, err)
	}
	return ParseGuardrails(fields)
}

// EncodeGuardrails writes g in its canonical JSON form: set fields only,
// amounts as strings, chain ids as strings, map keys sorted. Decoding the
// result with DecodeGuardrails gives g back.
func EncodeGuardrails(g Guardrails) ([]byte, error) {
	b, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("encoding guardrails: %w", err)
	}
	return b, nil
}

// UnmarshalJSON reads g as DecodeGuardrails does.
func (g *Guardrails) UnmarshalJSON(b []byte) error {
	v, err := DecodeGuardrails(b)
	if err != nil {
		return err
	}
	*g = v
	return nil
}

func parseEIP712Policy(b json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(b, &s); err != nil || (s != EIP712PolicyDeny && s != EIP712PolicyAllow) {
		return "", fmt.Errorf("must be %q or %q", EIP712PolicyDeny, EIP712PolicyAllow)
	}
	return s, nil
}

func parseDomainAllowlist(b json.RawMessage) ([]EIP712DomainRule, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return nil, errors.New("must be an array of domain entries")
	}
	out := make([]EIP712DomainRule, len(raws))
	for i, raw := range raws {
		if err := out[i].UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return out, nil
}

func parsePerChain(b json.RawMessage) (map[string]ChainGuardrails, error) {
	var objs map[string]json.RawMessage
	if err := json.Unmarshal(b, &objs); err != nil {
		return nil, errors.New("must be an object keyed by chain name")
	}
	out := make(map[string]ChainGuardrails, len(objs))
	for name, raw := range objs {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("chain names must not be empty")
		}
		if isNull(raw) {
			continue
		}
		c, err := parseChainGuardrails(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = c
	}
	return out, nil
}

// parseBudgets reads tx_overhead_budget: an object of chain name to
// amount (a JSON number or decimal string); a null entry is absent.
func parseBudgets(b json.RawMessage) (map[string]Amount, error) {
	var raws map[string]json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil || raws == nil {
		return nil, errors.New("must be an object of chain name to amount")
	}
	out := make(map[string]Amount, len(raws))
	for name, raw := range raws {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("chain names must not be empty")
		}
		if isNull(raw) {
			continue
		}
		var a Amount
		if err := a.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = a
	}
	return out, nil
}

func parseChainGuardrails(b json.RawMessage) (ChainGuardrails, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || fields == nil {
		return ChainGuardrails{}, errors.New("must be an object")
	}
	var c ChainGuardrails
	for _, f := range []struct {
		key   string
		parse func(json.RawMessage) error
	}{
		{"max_value", amountInto(&c.MaxValue)},
		{"daily_limit", amountInto(&c.DailyLimit)},
		{"to_allowlist", stringsInto(&c.ToAllowlist)},
		{"token_allowlist", stringsInto(&c.TokenAllowlist)},
		{"max_per_day", countInto(&c.MaxPerDay)},
		{"overhead_budget", amountInto(&c.OverheadBudget)},
	} {
		raw, ok := fields[f.key]
		if !ok || isNull(raw) {
			continue
		}
		if err := f.parse(raw); err != nil {
			return ChainGuardrails{}, fmt.Errorf("%s: %w", f.key, err)
		}
	}
	return c, nil
}

func isNull(b json.RawMessage) bool {
	return strings.TrimSpace(string(b)) == "null"
}

func boolInto(dst *bool) func(json.RawMessage) error {
	return func(b json.RawMessage) error {
		if err := json.Unmarshal(b, dst); err != nil {
			return errors.New("must be a boolean")
		}
		return nil
	}
}

func amountInto(dst *Amount) func(json.RawMessage) error {
	return func(b json.RawMessage) error { return dst.UnmarshalJSON(b) }
}

// countInto reads a non-negative integer that fits int64.
func countInto(dst **int64) func(json.RawMessage) error {
	return func(b json.RawMessage) error {
		v, _, err := parseInteger(b)
		if err != nil {
			return err
		}
		if !v.IsInt64() {
			return fmt.Errorf("%w: out of range", ErrInvalidAmount)
		}
		n := v.Int64()
		*dst = &n
		return nil
	}
}

// stringsInto reads an array of non-empty strings.
func stringsInto(dst *[]string) func(json.RawMessage) error {
	return func(b json.RawMessage) error {
		var list []string
		if err := json.Unmarshal(b, &list); err != nil {
			return errors.New("must be an array of strings")
		}
		for i, s := range list {
			if strings.TrimSpace(s) == "" {
				return fmt.Errorf("entry %d must not be empty", i)
			}
		}
		*dst = list
		return nil
	}
}

// chainsInto reads an array of chain names and chain ids; a chain id may
// be a JSON integer and is kept as its decimal text.
func chainsInto(dst *[]string) func(json.RawMessage) error {
	return func(b json.RawMessage) error {
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			return errors.New("must be an array of chain names or ids")
		}
		list := make([]string, 0, len(raws))
		for i, raw := range raws {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if strings.TrimSpace(s) == "" {
					return fmt.Errorf("entry %d must not be empty", i)
				}
				list = append(list, s)
				continue
			}
			v, ok := new(big.Int).SetString(strings.TrimSpace(string(raw)), 10)
			if !ok || !v.IsUint64() || v.Sign() == 0 {
				return fmt.Errorf("entry %d must be a chain name or a positive integer chain id", i)
			}
			list = append(list, v.String())
		}
		*dst = list
		return nil
	}
}
