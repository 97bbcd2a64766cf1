package api

import "time"

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
