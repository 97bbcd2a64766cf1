package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// agentSigner is the bench's signing agent for the signing scenarios: an
// agent with the intents API and message signing on, an ethereum signing
// key, and an agent token that a background loop renews.
type agentSigner struct {
	c      *client
	id     string
	apiKey string
	token  atomic.Pointer[string]
	// nonce and msg number the transactions and messages, so that every
	// request of a run (all workers, all concurrency levels) is distinct.
	nonce atomic.Uint64
	msg   atomic.Uint64
}

// newAgentSigner creates the agent "bench-signer" and its ethereum key with
// the user's token, then signs the agent in. It returns the agent token's
// lifetime.
func newAgentSigner(ctx context.Context, c *client) (*agentSigner, time.Duration, error) {
	var created struct {
		AgentID string `json:"agent_id"`
		APIKey  string `json:"api_key"`
	}
	agent := map[string]any{"name": "bench-signer", "intents_api_enabled": true, "message_signing_enabled": true}
	if err := c.call(ctx, http.MethodPost, "/v1/agents", agent, &created, http.StatusCreated); err != nil {
		return nil, 0, fmt.Errorf("creating the signing agent: %w", err)
	}
	if created.AgentID == "" || created.APIKey == "" {
		return nil, 0, fmt.Errorf("creating the signing agent: %w: answer lacks agent_id or api_key", ErrUnexpectedStatus)
	}
	s := &agentSigner{c: c, id: created.AgentID, apiKey: created.APIKey}
	key := map[string]string{"chain": "ethereum"}
	if err := c.call(ctx, http.MethodPost, s.path("/signing-keys"), key, nil, http.StatusCreated); err != nil {
		return nil, 0, fmt.Errorf("creating the agent's ethereum key: %w", err)
	}
	ttl, err := s.login(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s, ttl, nil
}

// path is the agent's API path followed by suffix.
func (s *agentSigner) path(suffix string) string {
	return "/v1/agents/" + url.PathEscape(s.id) + suffix
}

// login exchanges the agent's id and API key for an agent token and stores
// it; it returns the token's lifetime. The request carries no user token.
func (s *agentSigner) login(ctx context.Context) (time.Duration, error) {
	var t struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	cred := map[string]string{"agent_id": s.id, "api_key": s.apiKey}
	if err := s.c.callAs(ctx, "", http.MethodPost, "/v1/auth/agent-token", cred, &t, http.StatusOK); err != nil {
		return 0, fmt.Errorf("signing the agent in: %w", err)
	}
	if t.AccessToken == "" {
		return 0, fmt.Errorf("signing the agent in: %w: answer has no access_token", ErrUnexpectedStatus)
	}
	s.token.Store(&t.AccessToken)
	return time.Duration(t.ExpiresIn) * time.Second, nil
}

// keepToken re-issues the agent token until ctx ends (agent tokens live
// 2 h by default; a long run outlives them).
func (s *agentSigner) keepToken(ctx context.Context, ttl time.Duration) {
	keepRenewing(ctx, "agent token", ttl, s.login)
}
