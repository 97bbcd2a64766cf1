package auth

import (
	"sync"
	"time"
)

// AgentCutoffs holds, per agent id, the instant before which the agent's
// JWTs are refused (its tokens_valid_after). A replica fills it at start
// and every minute from the database, from its own changes at once and
// from every other replica's through LISTEN/NOTIFY. A token is refused when
// its issue time (millisecond precision, claim iat_ms) is before the cutoff.
type AgentCutoffs struct {
	mu sync.RWMutex
	at map[string]time.Time
}

// NewAgentCutoffs returns an empty set.
func NewAgentCutoffs() *AgentCutoffs { return &AgentCutoffs{at: map[string]time.Time{}} }

// Set moves agentID's cutoff to at (never backwards).
func (c *AgentCutoffs) Set(agentID string, at time.Time) {
	c.mu.Lock()
	if at.After(c.at[agentID]) {
		c.at[agentID] = at
	}
	c.mu.Unlock()
}

// Merge sets every cutoff of a full load and forgets those before forget
// (older than any token that can still be valid).
func (c *AgentCutoffs) Merge(all map[string]time.Time, forget time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, at := range all {
		if at.After(c.at[id]) {
			c.at[id] = at
		}
	}
	for id, at := range c.at {
		if at.Before(forget) {
			delete(c.at, id)
		}
	}
}

// Refuses reports whether a token of agentID issued at issuedAt is revoked.
func (c *AgentCutoffs) Refuses(agentID string, issuedAt time.Time) bool {
	c.mu.RLock()
	at, ok := c.at[agentID]
	c.mu.RUnlock()
	return ok && issuedAt.Before(at)
}
