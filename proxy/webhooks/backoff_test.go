package webhooks

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPolicyCeilingSchedule(t *testing.T) {
	p := DefaultPolicy
	require.Equal(t, 6, p.MaxAttempts())
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second}
	for i, w := range want {
		require.Equal(t, w, p.Ceiling(i+1), "attempt %d", i+1)
	}
	require.Equal(t, 10*time.Second, p.Ceiling(0))
	require.Equal(t, time.Hour, p.Ceiling(10)) // 10 s × 2^9 = 5120 s > 1 h
	require.Equal(t, time.Hour, p.Ceiling(math.MaxInt), "no overflow")
}

func TestPolicyDelayBounds(t *testing.T) {
	p := DefaultPolicy
	for attempt := 1; attempt <= 12; attempt++ {
		c := p.Ceiling(attempt)
		require.Equal(t, c, p.Delay(attempt, func(n int64) int64 { return n - 1 }), "upper bound is the ceiling")
		require.Zero(t, p.Delay(attempt, func(int64) int64 { return 0 }), "full jitter reaches zero")
		for range 200 {
			d := p.Delay(attempt, rand.Int64N)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, c)
		}
	}
}
