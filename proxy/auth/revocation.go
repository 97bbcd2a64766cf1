package auth

import (
	"sync"
	"time"
)

// RevocationSet is the in-memory set of revoked token ids of one replica.
// It is filled from the database at start, by this replica's revocations
// and by the notifications of every other replica.
type RevocationSet struct {
	mu  sync.RWMutex
	ids map[string]time.Time
}

// NewRevocationSet returns an empty set.
func NewRevocationSet() *RevocationSet {
	return &RevocationSet{ids: map[string]time.Time{}}
}

// Has reports whether jti is revoked.
func (s *RevocationSet) Has(jti string) bool {
	s.mu.RLock()
	_, ok := s.ids[jti]
	s.mu.RUnlock()
	return ok
}

// Add marks jti revoked until exp (zero: for a day; a notification carries
// no expiry).
func (s *RevocationSet) Add(jti string, exp time.Time) {
	if exp.IsZero() {
		exp = time.Now().Add(24 * time.Hour)
	}
	s.mu.Lock()
	s.ids[jti] = exp
	s.mu.Unlock()
}

// Merge adds a batch of revocations and forgets expired ones.
func (s *RevocationSet) Merge(ids map[string]time.Time, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for jti, exp := range ids {
		s.ids[jti] = exp
	}
	for jti, exp := range s.ids {
		if now.After(exp) {
			delete(s.ids, jti)
		}
	}
}
