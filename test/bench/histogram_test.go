package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// maxRelErr is the widest bucket relative to the values it holds.
const maxRelErr = 1.0 / halfCount

func TestBucketsCoverEveryValue(t *testing.T) {
	values := []uint64{0, 1, 127, 128, 129, 255, 256, 1000, 1 << 20, 1<<20 + 1, 123456789, math.MaxInt64}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		values = append(values, rng.Uint64N(math.MaxInt64)>>rng.UintN(63))
	}
	for _, v := range values {
		i := bucketOf(v)
		require.Less(t, i, numBuckets, "value %d", v)
		lo, hi := bucketRange(i)
		require.LessOrEqual(t, lo, v, "value %d", v)
		require.GreaterOrEqual(t, hi, v, "value %d", v)
		require.LessOrEqual(t, float64(hi-lo), maxRelErr*float64(v), "bucket of %d too wide", v)
	}
	// Buckets are contiguous and increasing: each starts right after the last.
	for i := 1; i < numBuckets; i++ {
		_, prevHi := bucketRange(i - 1)
		lo, _ := bucketRange(i)
		require.Equal(t, prevHi+1, lo, "bucket %d", i)
	}
}

func TestQuantile(t *testing.T) {
	tests := map[string]struct {
		values []time.Duration
		q      float64
		want   time.Duration
	}{
		"empty is zero":         {q: 0.5, want: 0},
		"single value exact":    {values: []time.Duration{time.Millisecond}, q: 0.99, want: time.Millisecond},
		"median of small exact": {values: []time.Duration{10, 20, 30}, q: 0.5, want: 20},
		"max is exact":          {values: []time.Duration{10, 20, 3 * time.Second}, q: 1, want: 3 * time.Second},
		"zero quantile is min":  {values: []time.Duration{5 * time.Millisecond, 7 * time.Millisecond}, q: 0, want: 5 * time.Millisecond},
		// Out-of-range quantiles are clamped rather than panicking.
		"q above one clamps":  {values: []time.Duration{10, 20}, q: 2, want: 20},
		"q below zero clamps": {values: []time.Duration{10, 20}, q: -1, want: 10},
		// Negative durations (a clock step) count as zero.
		"negative is zero": {values: []time.Duration{-5}, q: 0.5, want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var h Histogram
			for _, v := range tc.values {
				h.Record(v)
			}
			require.Equal(t, tc.want, h.Quantile(tc.q))
		})
	}
}

func TestQuantileMatchesExactWithinBucketWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h Histogram
	values := make([]time.Duration, 50000)
	for i := range values {
		// Log-normal-ish latencies between ~50 µs and ~1 s.
		values[i] = time.Duration(math.Exp(rng.NormFloat64()*1.5 + 14))
		h.Record(values[i])
	}
	slices.Sort(values)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		exact := values[int(math.Ceil(q*float64(len(values))))-1]
		got := h.Quantile(q)
		require.GreaterOrEqual(t, got, exact, "q=%v", q)
		require.LessOrEqual(t, float64(got-exact), maxRelErr*float64(exact), "q=%v", q)
	}
	require.Equal(t, values[len(values)-1], h.Max())
	require.Equal(t, values[0], h.Min())
	require.Equal(t, uint64(len(values)), h.Count())
}

func TestMerge(t *testing.T) {
	var a, b, all Histogram
	for i := range 1000 {
		d := time.Duration(i*i) * time.Microsecond
		all.Record(d)
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	var merged, empty Histogram
	merged.Merge(&a)
	merged.Merge(&empty)
	merged.Merge(&b)
	require.Equal(t, all.counts, merged.counts)
	require.Equal(t, all.Count(), merged.Count())
	require.Equal(t, all.Min(), merged.Min())
	require.Equal(t, all.Max(), merged.Max())
	require.InDelta(t, float64(all.Mean()), float64(merged.Mean()), 1)
	require.Equal(t, all.Quantile(0.99), merged.Quantile(0.99))
}
