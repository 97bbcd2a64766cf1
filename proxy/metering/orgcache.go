package metering

import (
	"context"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// BillingStore reads an organization's tier and credits and spends credits;
// *store.Store implements it.
type BillingStore interface {
	OrgBilling(ctx context.Context, orgID string) (store.OrgBilling, error)
	SpendCredit(ctx context.Context, orgID string, cents int64) (balance int64, ok bool, err error)
}

// orgCache keeps each organization's tier and credit balance for a short
// time, so that counting a call costs no database round trip. A tier change
// or a top-up shows within the TTL; spending updates the cached balance at
// once. Only the balance shown in headers can be stale: spending itself is
// always an atomic update in the database.
type orgCache struct {
	st  BillingStore
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[string]cachedOrg
}

type cachedOrg struct {
	b  store.OrgBilling
	at time.Time
}

// maxCachedOrgs bounds the cache; past it, expired entries are swept.
const maxCachedOrgs = 10_000

func newOrgCache(st BillingStore, ttl time.Duration, now func() time.Time) *orgCache {
	return &orgCache{st: st, ttl: ttl, now: now, m: map[string]cachedOrg{}}
}

func (c *orgCache) get(ctx context.Context, orgID string) (store.OrgBilling, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[orgID]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < c.ttl {
		return e.b, nil
	}
	b, err := c.st.OrgBilling(ctx, orgID)
	if err != nil {
		return b, err
	}
	c.put(orgID, b, now)
	return b, nil
}

func (c *orgCache) put(orgID string, b store.OrgBilling, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedOrgs {
		for k, e := range c.m {
			if now.Sub(e.at) >= c.ttl {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCachedOrgs {
			clear(c.m)
		}
	}
	c.m[orgID] = cachedOrg{b: b, at: now}
}

// spend takes cents from the organization's credits and refreshes the
// cached balance with the database's answer.
func (c *orgCache) spend(ctx context.Context, orgID string, b store.OrgBilling, cents int64) (int64, bool, error) {
	bal, ok, err := c.st.SpendCredit(ctx, orgID, cents)
	if err != nil {
		return 0, false, err
	}
	b.CreditCents = bal
	c.put(orgID, b, c.now())
	return bal, ok, nil
}
