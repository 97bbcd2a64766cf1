package wire

import (
	"encoding/json"
	"time"
)

// SignContext is what the proxy tells the enclave about a sign intent, sent
// as JSON in SignIntentRequest.Context: the chain the request is for, the
// agent's counters for the current UTC day before this request and whether
// the called contract is a registered token. The guardrails themselves come
// in the sealed GuardrailSet.
type SignContext struct {
	Chain      string       `json:"chain"`    // canonical chain name ("ethereum", "base", …)
	ChainID    uint64       `json:"chain_id"` // EVM chain id
	Counters   SignCounters `json:"counters"`
	TokenKnown bool         `json:"token_known"` // the called contract is in the token registry
}

// GuardrailSet is an agent's signing configuration as a human last set it:
// its guardrail fields as stored and its transaction rules (policies with
// tx_conditions). The enclave MACs it (SealGuardrails) only for a human of
// the organization and only at a version newer than any it has seen for
// the agent, and weighs every sign intent against the set it verifies.
type GuardrailSet struct {
	AgentID    string                     `json:"agent_id"`
	Version    uint64                     `json:"version"`
	Guardrails map[string]json.RawMessage `json:"guardrails"`
	Rules      []SignRule                 `json:"rules"`
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
	// FeesTodayChain is the maximum fees (gas limit × max fee) reserved
	// today on this chain, base units, decimal; "" is 0.
	FeesTodayChain string `json:"fees_today_chain,omitempty"`
}
