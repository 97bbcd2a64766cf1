package idempotency

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// memStore is an in-memory Store with the semantics of *store.Store: one
// holder per key, answers stored on Finish, nothing left by a rollback.
type memStore struct {
	mu        sync.Mutex
	recs      map[store.IdempotencyKey]store.IdempotencyRecord
	held      map[store.IdempotencyKey]bool
	claimErr  error
	commitErr error
	// onFinish runs at the start of every Finish (tests look at what the
	// client got so far).
	onFinish func()
	purged   []time.Duration
}

func newMemStore() *memStore {
	return &memStore{recs: map[store.IdempotencyKey]store.IdempotencyRecord{}, held: map[store.IdempotencyKey]bool{}}
}

func (m *memStore) BeginIdempotent(_ context.Context, c store.IdempotencyClaim, afterCommit func()) (store.IdempotencyHold, store.IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.claimErr != nil {
		return nil, store.IdempotencyRecord{}, m.claimErr
	}
	if m.held[c.IdempotencyKey] {
		return nil, store.IdempotencyRecord{RequestHash: c.RequestHash, State: store.IdempotencyInFlight}, nil
	}
	if rec, ok := m.recs[c.IdempotencyKey]; ok {
		return nil, rec, nil
	}
	m.held[c.IdempotencyKey] = true
	return &memHold{m: m, k: c.IdempotencyKey, hash: c.RequestHash, afterCommit: afterCommit}, store.IdempotencyRecord{}, nil
}

type memHold struct {
	m           *memStore
	k           store.IdempotencyKey
	hash        []byte
	afterCommit func()
	done        bool
}

func (h *memHold) Bind(ctx context.Context) context.Context { return ctx }

func (h *memHold) Finish(ctx context.Context, resp *store.IdempotentResponse) error {
	if h.m.onFinish != nil {
		h.m.onFinish()
	}
	if h.m.commitErr != nil {
		h.Rollback(ctx)
		return h.m.commitErr
	}
	h.m.mu.Lock()
	if resp != nil {
		h.m.recs[h.k] = store.IdempotencyRecord{RequestHash: h.hash, State: store.IdempotencyDone, Response: *resp}
	}
	delete(h.m.held, h.k)
	h.done = true
	h.m.mu.Unlock()
	if h.afterCommit != nil {
		h.afterCommit()
	}
	return nil
}

func (h *memHold) Rollback(context.Context) {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	if !h.done {
		delete(h.m.held, h.k)
		h.done = true
	}
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

func (m *memStore) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.recs) + len(m.held)
}
