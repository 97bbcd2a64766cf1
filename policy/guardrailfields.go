package policy

import (
	"encoding/json"
	"math"
)

// FieldKind is the JSON type a guardrail (or a condition) field must have.
type FieldKind int

// The JSON types of fields.
const (
	// KindBool is true or false.
	KindBool FieldKind = iota
	// KindString is a JSON string.
	KindString
	// KindObject is a JSON object.
	KindObject
	// KindArray is a JSON array of anything.
	KindArray
	// KindStrings is a JSON array of strings.
	KindStrings
	// KindInteger is a non-negative integer of at most 2^53.
	KindInteger
	// KindNumberOrString is a JSON number or a string (decimal amounts).
	KindNumberOrString
)

// GuardrailFields are the agent guardrail fields of the spec's Agent table
// with their JSON types. They are stored as given (a JSON object) and
// returned; the signing guardrails among them are parsed by ParseGuardrails,
// the others only type-checked for now.
var GuardrailFields = map[string]FieldKind{
	"execution_intents_enabled": KindBool, "execution_guardrails": KindObject, "system_prompt": KindString,
	"shroud_enabled": KindBool, "memory_enabled": KindBool, "message_signing_enabled": KindBool,
	"raw_signing_enabled": KindBool, "eip712_default_policy": KindString, "eip712_domain_allowlist": KindArray,
	"signing_chains": KindStrings, "tx_allowed_chains": KindArray, "tx_to_allowlist": KindArray,
	"tx_delegation_allowlist": KindStrings, "tx_approval_allowlist": KindStrings,
	"tx_max_value_eth": KindNumberOrString, "tx_daily_limit_eth": KindNumberOrString, "tx_max_per_day": KindInteger,
	"tx_overhead_budget": KindObject, "solana_ata_allowlist": KindStrings, "tx_token_allowlist": KindStrings,
	"tx_known_tokens_only": KindBool, "xrpl_allowed_tx_types": KindStrings, "per_chain_guardrails": KindObject,
	"intents_require_tee": KindBool, "execution_require_tee": KindBool, "cards_enabled": KindBool,
	"card_max_order_usd": KindNumberOrString, "card_daily_limit_usd": KindNumberOrString, "card_payto_allowlist": KindArray,
	"card_reveal_enabled": KindBool, "card_require_approval": KindBool, "delegation_enabled": KindBool,
	"action_approval_policy": KindObject, "pay_require_passkey": KindBool,
}

// GuardrailDefaults are the values of the boolean guardrails never set:
// what the API shows and what the agent's token carries.
var GuardrailDefaults = map[string]any{
	"execution_intents_enabled": false, "raw_signing_enabled": false, "intents_require_tee": false,
	"execution_require_tee": false, "card_require_approval": true, "delegation_enabled": false, "pay_require_passkey": true,
}

// Matches reports whether raw is JSON of kind k.
func (k FieldKind) Matches(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch k {
	case KindBool:
		_, ok := v.(bool)
		return ok
	case KindString:
		_, ok := v.(string)
		return ok
	case KindObject:
		_, ok := v.(map[string]any)
		return ok
	case KindArray:
		_, ok := v.([]any)
		return ok
	case KindStrings:
		xs, ok := v.([]any)
		for _, x := range xs {
			if _, isStr := x.(string); !isStr {
				return false
			}
		}
		return ok
	case KindInteger:
		f, ok := v.(float64)
		return ok && f >= 0 && f == math.Trunc(f) && f <= 1<<53
	case KindNumberOrString:
		switch v.(type) {
		case float64, string:
			return true
		}
	}
	return false
}

// GuardrailBool reads the boolean guardrail name of a stored guardrail
// object: its value when set to a boolean, else its default (false for a
// guardrail without one).
func GuardrailBool(stored []byte, name string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(stored, &m)
	var b bool
	if raw, ok := m[name]; ok && json.Unmarshal(raw, &b) == nil {
		return b
	}
	d, _ := GuardrailDefaults[name].(bool)
	return d
}
