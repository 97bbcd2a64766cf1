package handlers

import (
	"context"
	"sync"
	"time"

	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// enclaveCaller is what the enclave needs to authorise the caller itself
// before it opens or seals a value: the caller's access token and address.
type enclaveCaller struct {
	Token    string
	ClientIP string
}

// caller returns the enclave credentials of the request's principal. A JWT
// bearer is forwarded as it is. A personal API key means nothing to the
// enclave, so the proxy has the enclave mint a short-lived access token for
// the key's user and reuses it until shortly before it expires.
func (h *Handlers) caller(ctx context.Context) (enclaveCaller, error) {
	c := enclaveCaller{Token: auth.BearerFrom(ctx), ClientIP: auditlog.FromContext(ctx).Event.ClientIP}
	p, _ := auth.FromContext(ctx)
	if p.APIKeyID == "" {
		return c, nil
	}
	tok, err := h.keyTokens.get(ctx, h.Minter, p)
	if err != nil {
		return enclaveCaller{}, err
	}
	c.Token = tok
	return c, nil
}

// keyTokenCap bounds the cache of tokens minted for API keys.
const keyTokenCap = 10_000

// keyTokenCache holds the access tokens minted for API-key callers.
type keyTokenCache struct {
	mu     sync.Mutex
	tokens map[string]mintedToken
}

type mintedToken struct {
	token string
	until time.Time
}

func (c *keyTokenCache) get(ctx context.Context, m *auth.Minter, p auth.Principal) (string, error) {
	now := time.Now()
	c.mu.Lock()
	t, ok := c.tokens[p.APIKeyID]
	c.mu.Unlock()
	if ok && now.Before(t.until) {
		return t.token, nil
	}
	// The enclave checks the key itself against its sealed record.
	minted, err := m.APIKey(ctx, auth.APIKey{ID: p.APIKeyID, UserID: p.ID, OrgID: p.OrgID}, auth.BearerFrom(ctx))
	if err != nil {
		return "", err
	}
	tok, ttl := minted.Token, minted.TTL
	c.mu.Lock()
	if c.tokens == nil || len(c.tokens) >= keyTokenCap {
		c.tokens = map[string]mintedToken{}
	}
	// Refresh a minute before expiry so that a token never expires in flight.
	c.tokens[p.APIKeyID] = mintedToken{token: tok, until: now.Add(ttl - time.Minute)}
	c.mu.Unlock()
	return tok, nil
}
