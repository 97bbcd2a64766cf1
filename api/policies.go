package api

import (
	"encoding/json"
	"time"
)

// PolicyTimeWindow is the time_window condition of a policy: a daily
// window, optionally on some weekdays (0 is Sunday).
type PolicyTimeWindow struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Days  []int  `json:"days"`
}

// PolicyConditions are the conditions a policy applies under.
type PolicyConditions struct {
	IPCIDRs       []string          `json:"ip_cidrs"`
	TimeWindow    *PolicyTimeWindow `json:"time_window"`
	EnvironmentIn []string          `json:"environment_in"`
}

// PolicyWrite is the body of POST and PUT on a vault's policies. Pointers
// tell missing fields apart (a client leaves unset ones out); the raw
// fields are JSON objects or null.
type PolicyWrite struct {
	SecretPathPattern   *string           `json:"secret_path_pattern"`
	PrincipalType       *string           `json:"principal_type"`
	PrincipalID         *string           `json:"principal_id"`
	Permissions         []string          `json:"permissions"`
	Conditions          *PolicyConditions `json:"conditions,omitempty"`
	Effect              *string           `json:"effect,omitempty"`
	Priority            *int64            `json:"priority,omitempty"`
	AttributeConditions json.RawMessage   `json:"attribute_conditions,omitempty"`
	TxConditions        json.RawMessage   `json:"tx_conditions,omitempty"`
	ConsensusTrigger    json.RawMessage   `json:"consensus_trigger,omitempty"`
	ExpiresAt           *time.Time        `json:"expires_at,omitempty"`
}

// Policy is a policy as the API answers it.
type Policy struct {
	ID                  string           `json:"id"`
	VaultID             string           `json:"vault_id"`
	SecretPathPattern   string           `json:"secret_path_pattern"`
	PrincipalType       string           `json:"principal_type"`
	PrincipalID         string           `json:"principal_id"`
	Permissions         []string         `json:"permissions"`
	Conditions          PolicyConditions `json:"conditions"`
	Effect              string           `json:"effect"`
	Priority            int              `json:"priority"`
	AttributeConditions json.RawMessage  `json:"attribute_conditions"`
	TxConditions        json.RawMessage  `json:"tx_conditions"`
	ConsensusTrigger    json.RawMessage  `json:"consensus_trigger"`
	ExpiresAt           *string          `json:"expires_at"`
	CreatedAt           string           `json:"created_at"`
	UpdatedAt           string           `json:"updated_at"`
}
