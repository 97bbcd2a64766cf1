package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// APIKey is what a personal API key resolves to.
type APIKey struct {
	ID           string
	UserID       string
	OrgID        string
	Role         string    // the owner's organization role now
	PlatformRole string    // the owner's platform role now
	ExpiresAt    time.Time // zero: never
}

// APIKeyResolver finds a personal API key by the SHA-256 of its value.
// Implementations are safe for concurrent use and return ErrInvalidToken
// (wrapped) when no key has this hash.
type APIKeyResolver interface {
	ResolveAPIKey(ctx context.Context, hash []byte) (APIKey, error)
}

// apiKeyCacheCap bounds the cache; past it the cache is cleared.
const apiKeyCacheCap = 100_000

// APIKeyVerifier authenticates personal API keys presented as bearer
// values. A key is resolved in the database once and then served from
// memory for at most ttl. Deleting a key calls Forget on this replica and
// is announced to the others, which call Forget too; Flush drops everything
// (after a missed notification). An expired key is refused even from the
// cache.
type APIKeyVerifier struct {
	resolver APIKeyResolver
	ttl      time.Duration
	now      func() time.Time

	mu     sync.RWMutex
	gen    uint64 // bumped by Forget and Flush, so that a lookup in flight is not cached
	byHash map[[32]byte]cachedKey
}

type cachedKey struct {
	key APIKey
	at  time.Time
}

// NewAPIKeyVerifier caches resolved keys for ttl.
func NewAPIKeyVerifier(r APIKeyResolver, ttl time.Duration) *APIKeyVerifier {
	return &APIKeyVerifier{resolver: r, ttl: ttl, now: time.Now, byHash: map[[32]byte]cachedKey{}}
}

// Verify authenticates a personal API key; ErrInvalidToken when it is
// malformed, unknown, deleted or expired.
func (v *APIKeyVerifier) Verify(ctx context.Context, token string) (Principal, error) {
	k, err := v.Resolve(ctx, token)
	if err != nil {
		return Principal{}, err
	}
	return Principal{Type: PrincipalUser, ID: k.UserID, OrgID: k.OrgID, Role: k.Role, PlatformRole: k.PlatformRole,
		APIKeyID: k.ID, ExpiresAt: k.ExpiresAt}, nil
}

// Resolve returns the key behind token; ErrInvalidToken when it is
// malformed, unknown, deleted or expired.
func (v *APIKeyVerifier) Resolve(ctx context.Context, token string) (APIKey, error) {
	if !WellFormed(APIKeyPrefix, token) {
		return APIKey{}, ErrInvalidToken
	}
	var hash [32]byte
	copy(hash[:], HashOpaque(token))
	now := v.now()
	v.mu.RLock()
	c, ok := v.byHash[hash]
	gen := v.gen
	v.mu.RUnlock()
	if !ok || now.Sub(c.at) >= v.ttl {
		k, err := v.resolver.ResolveAPIKey(ctx, hash[:])
		if errors.Is(err, ErrInvalidToken) {
			return APIKey{}, ErrInvalidToken
		}
		if err != nil {
			return APIKey{}, fmt.Errorf("resolving api key: %w", err)
		}
		c = cachedKey{key: k, at: now}
		v.mu.Lock()
		if v.gen == gen {
			if len(v.byHash) >= apiKeyCacheCap {
				v.byHash = map[[32]byte]cachedKey{}
			}
			v.byHash[hash] = c
		}
		v.mu.Unlock()
	}
	if !c.key.ExpiresAt.IsZero() && !now.Before(c.key.ExpiresAt) {
		return APIKey{}, ErrInvalidToken
	}
	return c.key, nil
}

// Forget drops the key with this id from the cache: its next use is
// resolved again (and refused once it is deleted).
func (v *APIKeyVerifier) Forget(keyID string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gen++
	for h, c := range v.byHash {
		if c.key.ID == keyID {
			delete(v.byHash, h)
		}
	}
}

// Flush drops every cached key.
func (v *APIKeyVerifier) Flush() {
	v.mu.Lock()
	v.gen++
	v.byHash = map[[32]byte]cachedKey{}
	v.mu.Unlock()
}
