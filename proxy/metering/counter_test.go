package metering_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)} }

func TestCounterTake(t *testing.T) {
	st := newFakeStore()
	clk := newClock()
	c := metering.NewCounter(st, metering.CounterConfig{Now: clk.now})
	ctx := context.Background()

	for i := int64(1); i <= 1000; i++ {
		d, err := c.Take(ctx, "org", metering.TierFree)
		require.NoError(t, err)
		require.True(t, d.Allowed, "call %d", i)
		require.Equal(t, i, d.Used, "one replica reports exact usage")
		require.EqualValues(t, 1000, d.Limit)
	}
	d, err := c.Take(ctx, "org", metering.TierFree)
	require.NoError(t, err)
	require.Equal(t, metering.Decision{Used: 1000, Limit: 1000}, d, "the 1,001st call is over quota")
	require.EqualValues(t, 1000, st.usedOf("org", "2026-11"))
	require.Less(t, st.leases, 120, "calls are leased in blocks, not one by one")

	// A new month starts from zero.
	clk.add(9 * 24 * time.Hour)
	d, err = c.Take(ctx, "org", metering.TierFree)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.EqualValues(t, 1, d.Used)
}

func TestCounterUnlimited(t *testing.T) {
	st := newFakeStore()
	c := metering.NewCounter(st, metering.CounterConfig{Block: 10})
	for range 25 {
		d, err := c.Take(context.Background(), "org", metering.TierEnterprise)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.True(t, d.Unlimited)
		require.Equal(t, metering.Unlimited, d.Limit)
	}
	require.NoError(t, c.Close(context.Background()))
	require.EqualValues(t, 25, st.usedOf("org", time.Now().UTC().Format("2006-01")), "unlimited tiers are still counted")
}

func TestCounterReconcile(t *testing.T) {
	st := newFakeStore()
	clk := newClock()
	c := metering.NewCounter(st, metering.CounterConfig{Block: 50, LeaseMaxAge: 30 * time.Second, Now: clk.now})
	ctx := context.Background()
	for range 3 {
		_, err := c.Take(ctx, "org", metering.TierPro)
		require.NoError(t, err)
	}
	require.EqualValues(t, 50, st.usedOf("org", "2026-11"), "a whole block is leased")

	require.NoError(t, c.Reconcile(ctx))
	require.EqualValues(t, 50, st.usedOf("org", "2026-11"), "a young lease is kept")

	clk.add(31 * time.Second)
	require.NoError(t, c.Reconcile(ctx))
	require.EqualValues(t, 3, st.usedOf("org", "2026-11"), "an aged lease gives back what it did not serve")

	d, err := c.Take(ctx, "org", metering.TierPro)
	require.NoError(t, err)
	require.EqualValues(t, 4, d.Used)
	require.NoError(t, c.Close(ctx))
	require.EqualValues(t, 4, st.usedOf("org", "2026-11"), "Close gives back every unused call")
}

func TestCounterStoreFailure(t *testing.T) {
	st := newFakeStore()
	errDown := errors.New("database down")
	st.failAll = errDown
	c := metering.NewCounter(st, metering.CounterConfig{})
	_, err := c.Take(context.Background(), "org", metering.TierFree)
	require.ErrorIs(t, err, errDown)
}

// TestCounterSharesTheEdge: two replicas near the limit lease small blocks,
// so neither is refused while the other holds many unused calls.
func TestCounterSharesTheEdge(t *testing.T) {
	st := newFakeStore()
	a := metering.NewCounter(st, metering.CounterConfig{})
	b := metering.NewCounter(st, metering.CounterConfig{})
	ctx := context.Background()
	allowed := 0
	for i := range 2000 {
		c := a
		if i%2 == 1 {
			c = b
		}
		d, err := c.Take(ctx, "org", metering.TierFree)
		require.NoError(t, err)
		if d.Allowed {
			allowed++
		} else {
			break
		}
	}
	require.GreaterOrEqual(t, allowed, 995, "at most a few calls are stranded in the other replica when the first refusal comes")
}

// TestCounterBusyLeasesGrow: blocks used up quickly double up to sixteen
// configured blocks; a slow pace starts again from one block; the count
// stays exact (Close gives back what was not served).
func TestCounterBusyLeasesGrow(t *testing.T) {
	tests := []struct {
		name       string
		tier       metering.Tier
		calls      int
		pause      time.Duration // between calls
		wantLeases int
	}{
		// 10+20+40+80+160 = 310, then 160 a lease: 310 + 4*160 = 950, 1 more.
		{name: "busy unlimited", tier: metering.TierEnterprise, calls: 1000, wantLeases: 10},
		// One block of 10 per 10 calls when each block lasts over a second.
		{name: "slow", tier: metering.TierEnterprise, calls: 100, pause: 200 * time.Millisecond, wantLeases: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newFakeStore()
			clk := newClock()
			c := metering.NewCounter(st, metering.CounterConfig{Block: 10, Now: clk.now})
			ctx := context.Background()
			for i := 1; i <= tt.calls; i++ {
				d, err := c.Take(ctx, "org", tt.tier)
				require.NoError(t, err)
				require.True(t, d.Allowed)
				require.EqualValues(t, i, d.Used, "one replica reports exact usage")
				clk.add(tt.pause)
			}
			require.Equal(t, tt.wantLeases, st.leases)
			require.NoError(t, c.Close(ctx))
			require.EqualValues(t, tt.calls, st.usedOf("org", "2026-11"), "exact after Close")
		})
	}
}

// TestCounterGrowthKeepsTheLimit: a busy organization near its quota gets
// exactly its quota, never more, however large its blocks grew.
func TestCounterGrowthKeepsTheLimit(t *testing.T) {
	st := newFakeStore()
	clk := newClock()
	c := metering.NewCounter(st, metering.CounterConfig{Block: 50, Now: clk.now})
	ctx := context.Background()
	allowed := 0
	for range 1200 {
		d, err := c.Take(ctx, "org", metering.TierFree)
		require.NoError(t, err)
		if d.Allowed {
			allowed++
		}
	}
	require.Equal(t, 1000, allowed)
	require.EqualValues(t, 1000, st.usedOf("org", "2026-11"))
}
