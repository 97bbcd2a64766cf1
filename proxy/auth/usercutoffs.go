package auth

import (
	"sync"
	"time"
)

// AllOrgs is the organization key of a user cut-off that applies in every
// organization (it matches store.AllOrgs).
const AllOrgs = "00000000-0000-0000-0000-000000000000"

// UserCutoffs holds, per user and organization, the instant before which
// the user's access tokens for that organization are refused; the AllOrgs
// key cuts off every organization (a password change or a deleted user). It
// is kept current like AgentCutoffs: a full load at start and every minute,
// this replica's changes at once and every other replica's through
// LISTEN/NOTIFY. A token is refused when its issue time (claim iat_ms, else
// iat) is before the cut-off.
type UserCutoffs struct {
	mu sync.RWMutex
	at map[userOrg]time.Time
}

type userOrg struct{ user, org string }

// NewUserCutoffs returns an empty set.
func NewUserCutoffs() *UserCutoffs { return &UserCutoffs{at: map[userOrg]time.Time{}} }

// Set moves the cut-off of userID in orgID (AllOrgs: every organization) to
// at (never backwards).
func (c *UserCutoffs) Set(userID, orgID string, at time.Time) {
	k := userOrg{userID, orgID}
	c.mu.Lock()
	if at.After(c.at[k]) {
		c.at[k] = at
	}
	c.mu.Unlock()
}

// Forget drops the cut-offs before before (older than any token that can
// still be valid).
func (c *UserCutoffs) Forget(before time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, at := range c.at {
		if at.Before(before) {
			delete(c.at, k)
		}
	}
}

// Refuses reports whether a token of userID for orgID issued at issuedAt is
// cut off.
func (c *UserCutoffs) Refuses(userID, orgID string, issuedAt time.Time) bool {
	c.mu.RLock()
	own, ok1 := c.at[userOrg{userID, orgID}]
	all, ok2 := c.at[userOrg{userID, AllOrgs}]
	c.mu.RUnlock()
	return ok1 && issuedAt.Before(own) || ok2 && issuedAt.Before(all)
}
