package ratelimit

import (
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// Defaults of Config's bounds.
const (
	DefaultMaxEntries = 100_000
	DefaultIdleTTL    = time.Minute
	shardCount        = 32
	// evictSample is how many random entries the hard cap compares to pick
	// the least recently used one (approximate LRU).
	evictSample = 8
)

// Limit is one token bucket's shape: Rate tokens per second refill a bucket
// of Burst tokens. A Rate of zero (or less) turns the limit off; a Burst
// below 1 counts as 1.
type Limit struct {
	Rate  float64
	Burst int
}

// Enabled reports whether the limit applies.
func (l Limit) Enabled() bool { return l.Rate > 0 }

// Buckets is one keyed set of token buckets sharing a Limit. It is safe for
// concurrent use.
type Buckets struct {
	limit    Limit
	burst    float64
	now      func() time.Time
	idleTTL  time.Duration
	shardCap int
	seed     maphash.Seed
	shards   [shardCount]shard
	disabled bool
}

type shard struct {
	mu        sync.Mutex
	m         map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time // last refill, which is also the last use
}

// NewBuckets returns buckets of shape l holding at most maxEntries keys
// (DefaultMaxEntries when 0); a full bucket idle for idleTTL (DefaultIdleTTL
// when 0) is dropped. now is the clock (time.Now when nil).
func NewBuckets(l Limit, maxEntries int, idleTTL time.Duration, now func() time.Time) *Buckets {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if idleTTL <= 0 {
		idleTTL = DefaultIdleTTL
	}
	if now == nil {
		now = time.Now
	}
	b := &Buckets{limit: l, burst: float64(max(l.Burst, 1)), now: now, idleTTL: idleTTL,
		shardCap: max(1, maxEntries/shardCount), seed: maphash.MakeSeed(), disabled: !l.Enabled()}
	for i := range b.shards {
		b.shards[i].m = map[string]*bucket{}
	}
	return b
}

// Allow takes one token from key's bucket. When the bucket is empty it
// returns false and how long until a token is available.
func (b *Buckets) Allow(key string) (ok bool, retryAfter time.Duration) {
	if b.disabled {
		return true, 0
	}
	now := b.now()
	s := &b.shards[maphash.String(b.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	bk, found := s.m[key]
	if !found {
		b.makeRoom(s, now)
		bk = &bucket{tokens: b.burst, last: now}
		s.m[key] = bk
	}
	b.refill(bk, now)
	if bk.tokens >= 1 {
		bk.tokens--
		return true, 0
	}
	wait := (1 - bk.tokens) / b.limit.Rate
	return false, time.Duration(math.Ceil(wait * float64(time.Second)))
}

// refill adds the tokens earned since the bucket's last use.
func (b *Buckets) refill(bk *bucket, now time.Time) {
	if elapsed := now.Sub(bk.last); elapsed > 0 {
		bk.tokens = math.Min(b.burst, bk.tokens+elapsed.Seconds()*b.limit.Rate)
		bk.last = now
	}
}

// makeRoom runs before a new key enters s: at most once per idle TTL it
// drops the buckets that are full and idle (so a flood of new keys costs no
// repeated full scans); at the cap it evicts the least recently used of a
// random sample.
func (b *Buckets) makeRoom(s *shard, now time.Time) {
	if now.Sub(s.lastSweep) >= b.idleTTL {
		b.sweep(s, now)
	}
	for len(s.m) >= b.shardCap {
		var oldestKey string
		var oldest time.Time
		n := 0
		for k, bk := range s.m { // map order is random: a random sample
			if n == 0 || bk.last.Before(oldest) {
				oldestKey, oldest = k, bk.last
			}
			if n++; n == evictSample {
				break
			}
		}
		delete(s.m, oldestKey)
	}
}

func (b *Buckets) sweep(s *shard, now time.Time) {
	s.lastSweep = now
	for k, bk := range s.m {
		idle := now.Sub(bk.last)
		if idle >= b.idleTTL && math.Min(b.burst, bk.tokens+idle.Seconds()*b.limit.Rate) >= b.burst {
			delete(s.m, k)
		}
	}
}

// Sweep drops every bucket that is full and idle for the idle TTL. Allow
// already sweeps each shard lazily; Sweep lets a caller (or a test) do it
// at once.
func (b *Buckets) Sweep() {
	if b.disabled {
		return
	}
	now := b.now()
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		b.sweep(s, now)
		s.mu.Unlock()
	}
}

// Len returns how many buckets are held.
func (b *Buckets) Len() int {
	n := 0
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}
