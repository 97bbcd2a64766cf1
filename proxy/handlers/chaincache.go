package handlers

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// chainCacheTTL is how long a resolved chain is reused: registry changes
// (an RPC URL, a disabled chain) reach every replica within it.
const chainCacheTTL = 10 * time.Second

// chainCacheCap bounds the cache (names, aliases and ids resolve apart).
const chainCacheCap = 1024

// chainCache keeps recently resolved chains: signing resolves one on every
// request, and the registry changes rarely.
type chainCache struct {
	mu      sync.Mutex
	entries map[string]cachedChain
}

type cachedChain struct {
	chain store.Chain
	until time.Time
}

// cachedChain resolves ref through the cache; misses and errors go to the
// store (errors are not cached).
func (h *Handlers) cachedChain(ctx context.Context, ref string) (store.Chain, error) {
	key := strings.ToLower(strings.TrimSpace(ref))
	now := time.Now()
	c := &h.chains
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.chain, nil
	}
	ch, err := h.Admin.ResolveChain(ctx, ref)
	if err != nil {
		return store.Chain{}, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= chainCacheCap {
		c.entries = map[string]cachedChain{}
	}
	c.entries[key] = cachedChain{chain: ch, until: now.Add(chainCacheTTL)}
	c.mu.Unlock()
	return ch, nil
}

// forgetChains drops every cached chain (after a registry change on this
// replica).
func (h *Handlers) forgetChains() {
	h.chains.mu.Lock()
	h.chains.entries = nil
	h.chains.mu.Unlock()
}
