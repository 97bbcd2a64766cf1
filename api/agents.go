package api

import (
	"encoding/json"
	"time"
)

// AgentTokenRequest is the body of POST /v1/auth/agent-token: an agent's
// id and API key.
type AgentTokenRequest struct {
	AgentID *string `json:"agent_id"`
	APIKey  *string `json:"api_key"`
}

// AgentRotateKey is the optional body of POST /v1/agents/{id}/rotate-key.
type AgentRotateKey struct {
	APIKeyExpiresAt *time.Time `json:"api_key_expires_at"`
}

// AgentDirectoryEntry is an agent as the organization's directory shows it
// (GET /v1/agents/org-directory).
type AgentDirectoryEntry struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Capabilities []string `json:"capabilities"`
	Status       string   `json:"status"`
}

// Agent is an agent as the API shows it (never its key): the record's
// fields, the guardrail fields that are set or have a default (stored as
// given, so each is the JSON value the owner sent), and on single reads the
// counters of the agent's current UTC day.
type Agent struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Status            string   `json:"status"`
	IntentsAPIEnabled bool     `json:"intents_api_enabled"`
	Environment       *string  `json:"environment"`
	Scopes            []string `json:"scopes"` // null: derived from policies
	APIKeyPrefix      string   `json:"api_key_prefix"`
	APIKeyLastFour    string   `json:"api_key_last_four"`
	APIKeyExpiresAt   *string  `json:"api_key_expires_at"`
	CreatedBy         string   `json:"created_by"`
	CreatedAt         string   `json:"created_at"`
	UpdatedAt         string   `json:"updated_at"`

	// The counters of single reads (absent from lists and key answers).
	TxCountToday           *int64             `json:"tx_count_today,omitempty"`
	TxSpentTodayByChain    *map[string]string `json:"tx_spent_today_by_chain,omitempty"`
	TxOverheadTodayByChain *map[string]any    `json:"tx_overhead_today_by_chain,omitempty"`
	TxSpentToday           *string            `json:"tx_spent_today,omitempty"`
	TxSpentTodayETH        *string            `json:"tx_spent_today_eth,omitempty"` // deprecated alias of TxSpentToday

	// The guardrail fields (AgentGuardrails), absent when unset.
	ExecutionIntentsEnabled json.RawMessage `json:"execution_intents_enabled,omitempty"`
	ExecutionGuardrails     json.RawMessage `json:"execution_guardrails,omitempty"`
	SystemPrompt            json.RawMessage `json:"system_prompt,omitempty"`
	ShroudEnabled           json.RawMessage `json:"shroud_enabled,omitempty"`
	MemoryEnabled           json.RawMessage `json:"memory_enabled,omitempty"`
	MessageSigningEnabled   json.RawMessage `json:"message_signing_enabled,omitempty"`
	RawSigningEnabled       json.RawMessage `json:"raw_signing_enabled,omitempty"`
	EIP712DefaultPolicy     json.RawMessage `json:"eip712_default_policy,omitempty"`
	EIP712DomainAllowlist   json.RawMessage `json:"eip712_domain_allowlist,omitempty"`
	SigningChains           json.RawMessage `json:"signing_chains,omitempty"`
	TxAllowedChains         json.RawMessage `json:"tx_allowed_chains,omitempty"`
	TxToAllowlist           json.RawMessage `json:"tx_to_allowlist,omitempty"`
	TxDelegationAllowlist   json.RawMessage `json:"tx_delegation_allowlist,omitempty"`
	TxApprovalAllowlist     json.RawMessage `json:"tx_approval_allowlist,omitempty"`
	TxMaxValueETH           json.RawMessage `json:"tx_max_value_eth,omitempty"`
	TxDailyLimitETH         json.RawMessage `json:"tx_daily_limit_eth,omitempty"`
	TxMaxPerDay             json.RawMessage `json:"tx_max_per_day,omitempty"`
	TxOverheadBudget        json.RawMessage `json:"tx_overhead_budget,omitempty"`
	SolanaATAAllowlist      json.RawMessage `json:"solana_ata_allowlist,omitempty"`
	TxTokenAllowlist        json.RawMessage `json:"tx_token_allowlist,omitempty"`
	TxKnownTokensOnly       json.RawMessage `json:"tx_known_tokens_only,omitempty"`
	XRPLAllowedTxTypes      json.RawMessage `json:"xrpl_allowed_tx_types,omitempty"`
	PerChainGuardrails      json.RawMessage `json:"per_chain_guardrails,omitempty"`
	IntentsRequireTEE       json.RawMessage `json:"intents_require_tee,omitempty"`
	ExecutionRequireTEE     json.RawMessage `json:"execution_require_tee,omitempty"`
	CardsEnabled            json.RawMessage `json:"cards_enabled,omitempty"`
	CardMaxOrderUSD         json.RawMessage `json:"card_max_order_usd,omitempty"`
	CardDailyLimitUSD       json.RawMessage `json:"card_daily_limit_usd,omitempty"`
	CardPaytoAllowlist      json.RawMessage `json:"card_payto_allowlist,omitempty"`
	CardRevealEnabled       json.RawMessage `json:"card_reveal_enabled,omitempty"`
	CardRequireApproval     json.RawMessage `json:"card_require_approval,omitempty"`
	DelegationEnabled       json.RawMessage `json:"delegation_enabled,omitempty"`
	ActionApprovalPolicy    json.RawMessage `json:"action_approval_policy,omitempty"`
	PayRequirePasskey       json.RawMessage `json:"pay_require_passkey,omitempty"`
}

// AgentCreated is an agent with its new API key, shown once: the answer of
// POST /v1/agents and POST /v1/agents/{id}/rotate-key.
type AgentCreated struct {
	Agent
	AgentID string `json:"agent_id"` // same as ID
	APIKey  string `json:"api_key"`
}
