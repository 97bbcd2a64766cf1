package idempotency

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// memStore is an in-memory Store with the semantics of *store.Store, minus
// the clock: tests mark a record stale explicitly.
type memStore struct {
	mu       sync.Mutex
	recs     map[store.IdempotencyKey]*store.IdempotencyRecord
	stale    map[store.IdempotencyKey]bool
	next     int
	claimErr error
	purged   []time.Duration
}

func newMemStore() *memStore {
	return &memStore{recs: map[store.IdempotencyKey]*store.IdempotencyRecord{}, stale: map[store.IdempotencyKey]bool{}}
}

func (m *memStore) ClaimIdempotencyKey(_ context.Context, c store.IdempotencyClaim) (store.IdempotencyRecord, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.claimErr != nil {
		return store.IdempotencyRecord{}, false, m.claimErr
	}
	if rec, ok := m.recs[c.IdempotencyKey]; ok && !(rec.State == store.IdempotencyInFlight && m.stale[c.IdempotencyKey]) {
		return *rec, false, nil
	}
	m.next++
	rec := &store.IdempotencyRecord{RequestHash: c.RequestHash, State: store.IdempotencyInFlight, ClaimID: strconv.Itoa(m.next)}
	m.recs[c.IdempotencyKey] = rec
	delete(m.stale, c.IdempotencyKey)
	return *rec, true, nil
}

func (m *memStore) CompleteIdempotencyKey(_ context.Context, k store.IdempotencyKey, claimID string, resp store.IdempotentResponse) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[k]
	if !ok || rec.ClaimID != claimID || rec.State != store.IdempotencyInFlight {
		return fmt.Errorf("completing idempotency key: %w", store.ErrNotFound)
	}
	rec.State, rec.Response = store.IdempotencyDone, resp
	return nil
}

func (m *memStore) ReleaseIdempotencyKey(_ context.Context, k store.IdempotencyKey, claimID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rec, ok := m.recs[k]; ok && rec.ClaimID == claimID && rec.State == store.IdempotencyInFlight {
		delete(m.recs, k)
	}
	return nil
}

func (m *memStore) PurgeIdempotencyKeys(_ context.Context, olderThan time.Duration) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.purged = append(m.purged, olderThan)
	if len(m.purged) == 2 {
		return 0, errors.New("database down")
	}
	return 1, nil
}

func (m *memStore) markStale(k store.IdempotencyKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stale[k] = true
}

func (m *memStore) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.recs)
}
