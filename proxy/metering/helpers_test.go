package metering_test

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/opencustody/ocv/internal/store"
)

// fakeStore is an in-memory metering.Store with the same guarded semantics
// as the PostgreSQL one.
type fakeStore struct {
	mu      sync.Mutex
	used    map[[2]string]int64
	leases  int
	orgs    map[string]store.OrgBilling
	nonces  map[string]bool
	failAll error
}

func newFakeStore() *fakeStore {
	return &fakeStore{used: map[[2]string]int64{}, orgs: map[string]store.OrgBilling{}, nonces: map[string]bool{}}
}

func (f *fakeStore) setOrg(org, tier string, credits int64, hasCredits bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.orgs[org] = store.OrgBilling{Tier: tier, CreditCents: credits, HasCredits: hasCredits}
}

func (f *fakeStore) LeaseUsage(_ context.Context, org, period string, n, limit int64) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAll != nil {
		return 0, false, f.failAll
	}
	f.leases++
	k := [2]string{org, period}
	if f.used[k]+n > limit {
		return f.used[k], false, nil
	}
	f.used[k] += n
	return f.used[k], true, nil
}

func (f *fakeStore) ReturnUsage(_ context.Context, org, period string, n int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAll != nil {
		return f.failAll
	}
	k := [2]string{org, period}
	f.used[k] = max(f.used[k]-n, 0)
	return nil
}

func (f *fakeStore) Usage(_ context.Context, org, period string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.used[[2]string{org, period}], nil
}

func (f *fakeStore) UsageHistory(_ context.Context, org string, limit int) ([]store.PeriodUsage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []store.PeriodUsage
	for k, v := range f.used {
		if k[0] == org {
			out = append(out, store.PeriodUsage{Period: k[1], Used: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Period > out[j].Period })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (f *fakeStore) OrgBilling(_ context.Context, org string) (store.OrgBilling, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAll != nil {
		return store.OrgBilling{}, f.failAll
	}
	b, ok := f.orgs[org]
	if !ok {
		return b, fmt.Errorf("fake: %w", store.ErrNotFound)
	}
	return b, nil
}

func (f *fakeStore) SpendCredit(_ context.Context, org string, cents int64) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.orgs[org]
	if !b.HasCredits || b.CreditCents < cents {
		return b.CreditCents, false, nil
	}
	b.CreditCents -= cents
	f.orgs[org] = b
	return b.CreditCents, true, nil
}

func (f *fakeStore) UsePaymentNonce(_ context.Context, nonce, _, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nonces[nonce] {
		return fmt.Errorf("fake: %w", store.ErrReused)
	}
	f.nonces[nonce] = true
	return nil
}

func (f *fakeStore) usedOf(org, period string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.used[[2]string{org, period}]
}
