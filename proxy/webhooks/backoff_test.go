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
	require.Equal(t, 57, p.MaxAttempts())
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
		require.Equal(t, c/2, p.Delay(attempt, func(int64) int64 { return 0 }), "equal jitter keeps half the ceiling")
		for range 200 {
			d := p.Delay(attempt, rand.Int64N)
			require.GreaterOrEqual(t, d, c/2)
			require.LessOrEqual(t, d, c)
		}
	}
}

// A receiver down for a day loses nothing: the retries of one delivery
// span at least 24 hours, whatever the jitter draws.
func TestDefaultPolicyRetriesForADay(t *testing.T) {
	require.GreaterOrEqual(t, DefaultPolicy.MinRetryWindow(), 24*time.Hour)
	var longest time.Duration
	for attempt := 1; attempt <= DefaultPolicy.MaxRetries; attempt++ {
		longest += DefaultPolicy.Ceiling(attempt)
	}
	require.LessOrEqual(t, longest, 49*time.Hour, "and not forever")
}
