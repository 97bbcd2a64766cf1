package wire

import (
	"encoding/json"
	"time"
)

// SignContext is what the enclave weighs a sign intent against, sent as
// JSON in SignIntentRequest.Context: the chain the request is for, the
// agent's guardrail fields as stored, its transaction rules (policies with
// tx_conditions) and its counters for the current UTC day before this
// request.
type SignContext struct {
	Chain      string                     `json:"chain"`    // canonical chain name ("ethereum", "base", …)
	ChainID    uint64                     `json:"chain_id"` // EVM chain id
	Guardrails map[string]json.RawMessage `json:"guardrails"`
	Rules      []SignRule                 `json:"rules,omitempty"`
	Counters   SignCounters               `json:"counters"`
	TokenKnown bool                       `json:"token_known"` // the called contract is in the token registry
}

// SignRule is one policy with tx_conditions that targets the agent.
type SignRule struct {
	Effect     string          `json:"effect"`
	Priority   int             `json:"priority"`
	Conditions json.RawMessage `json:"conditions"`
	ExpiresAt  *time.Time      `json:"expires_at,omitempty"`
}

// SignCounters are the agent's counters for the UTC day.
type SignCounters struct {
	CountToday      int64  `json:"count_today"`
	CountTodayChain int64  `json:"count_today_chain"`
	SpentTodayChain string `json:"spent_today_chain"` // base units, decimal
}
