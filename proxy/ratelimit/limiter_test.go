package ratelimit

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is a manual clock; tests move it, never sleep.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// step is one call to Allow after moving the clock by advance.
type step struct {
	advance   time.Duration
	wantOK    bool
	wantRetry time.Duration
}

func TestBucketsAllow(t *testing.T) {
	tests := map[string]struct {
		limit Limit
		steps []step
	}{
		"burst then refill": {
			limit: Limit{Rate: 1, Burst: 3},
			steps: []step{
				{wantOK: true}, {wantOK: true}, {wantOK: true},
				{wantOK: false, wantRetry: time.Second},
				{advance: 500 * time.Millisecond, wantOK: false, wantRetry: 500 * time.Millisecond},
				{advance: 500 * time.Millisecond, wantOK: true},
				{wantOK: false, wantRetry: time.Second},
			},
		},
		"refill stops at burst": {
			limit: Limit{Rate: 10, Burst: 2},
			steps: []step{
				{advance: time.Hour, wantOK: true}, {wantOK: true},
				{wantOK: false, wantRetry: 100 * time.Millisecond},
			},
		},
		"burst below one counts as one": {
			limit: Limit{Rate: 2, Burst: 0},
			steps: []step{{wantOK: true}, {wantOK: false, wantRetry: 500 * time.Millisecond}},
		},
		"slow rate waits long": {
			limit: Limit{Rate: 0.5, Burst: 1},
			steps: []step{{wantOK: true}, {wantOK: false, wantRetry: 2 * time.Second}},
		},
		"zero rate is off": {
			limit: Limit{Rate: 0, Burst: 0},
			steps: []step{{wantOK: true}, {wantOK: true}, {wantOK: true}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			b := NewBuckets(tc.limit, 0, 0, clk.Now)
			for i, s := range tc.steps {
				clk.Advance(s.advance)
				ok, retry := b.Allow("k")
				require.Equal(t, s.wantOK, ok, "step %d", i)
				require.Equal(t, s.wantRetry, retry, "step %d", i)
			}
		})
	}
}

func TestBucketsKeysIndependent(t *testing.T) {
	clk := newClock()
	b := NewBuckets(Limit{Rate: 1, Burst: 1}, 0, 0, clk.Now)
	ok, _ := b.Allow("a")
	require.True(t, ok)
	ok, _ = b.Allow("a")
	require.False(t, ok)
	ok, _ = b.Allow("b")
	require.True(t, ok, "another key has its own bucket")
}

func TestBucketsEvictIdle(t *testing.T) {
	clk := newClock()
	b := NewBuckets(Limit{Rate: 0.01, Burst: 2}, 0, time.Minute, clk.Now)
	for i := range 100 {
		ok, _ := b.Allow("full-" + strconv.Itoa(i))
		require.True(t, ok)
	}
	// The first set refills fully; then a second set is drained.
	clk.Advance(10 * time.Minute)
	for i := range 10 {
		key := "busy-" + strconv.Itoa(i)
		for range 2 {
			ok, _ := b.Allow(key)
			require.True(t, ok)
		}
	}
	clk.Advance(61 * time.Second)
	b.Sweep()
	// The first set is full and idle: dropped. The second set has earned
	// only 0.61 tokens of 2: kept, or a client could reset its bucket by
	// pausing a minute.
	require.Equal(t, 10, b.Len())
	ok, _ := b.Allow("busy-0")
	require.False(t, ok, "a kept bucket keeps its debt")

	clk.Advance(10 * time.Minute)
	b.Sweep()
	require.Equal(t, 0, b.Len(), "refilled and idle")
}

func TestBucketsLazySweep(t *testing.T) {
	clk := newClock()
	b := NewBuckets(Limit{Rate: 1, Burst: 1}, 0, time.Minute, clk.Now)
	for i := range 1000 {
		b.Allow(strconv.Itoa(i))
	}
	require.Equal(t, 1000, b.Len())
	clk.Advance(2 * time.Minute)
	for i := range 1000 {
		b.Allow("new-" + strconv.Itoa(i)) // each new key sweeps its shard once
	}
	require.Equal(t, 1000, b.Len(), "the idle keys were swept as new ones arrived")
}

func TestBucketsHardCap(t *testing.T) {
	clk := newClock()
	const maxEntries = 64
	b := NewBuckets(Limit{Rate: 1, Burst: 1}, maxEntries, time.Hour, clk.Now)
	for i := range 10_000 {
		clk.Advance(time.Millisecond)
		b.Allow("flood-" + strconv.Itoa(i))
		require.LessOrEqual(t, b.Len(), maxEntries)
	}
}

func TestBucketsConcurrent(t *testing.T) {
	clk := newClock()
	const burst = 100
	b := NewBuckets(Limit{Rate: 1, Burst: burst}, 0, 0, clk.Now)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				if ok, _ := b.Allow("shared"); ok {
					allowed.Add(1)
				}
				b.Allow("own-" + strconv.Itoa(g) + "-" + strconv.Itoa(i%5))
			}
		})
	}
	wg.Wait()
	// The clock did not move: exactly the burst was granted, no more.
	require.EqualValues(t, burst, allowed.Load())
	require.Equal(t, 1+16*5, b.Len())
}

func TestRetryAfterSeconds(t *testing.T) {
	tests := map[string]struct {
		wait time.Duration
		want int64
	}{
		"zero is one":       {0, 1},
		"sub-second is one": {time.Millisecond, 1},
		"exact":             {2 * time.Second, 2},
		"rounds up":         {2*time.Second + time.Nanosecond, 3},
		"long":              {90 * time.Second, 90},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, RetryAfterSeconds(tc.wait))
		})
	}
}
