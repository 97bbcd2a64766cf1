package main

import (
	"math"
	"math/bits"
	"time"
)

// The histogram is log-linear, in the spirit of HDR histograms: values
// below subCount nanoseconds get one bucket each; above, every power of two
// is split into halfCount equal buckets. A bucket's width is therefore at
// most 1/halfCount (1.6 %) of the values it holds, whatever their magnitude,
// and recording is a few shifts and one increment: no allocation, no lock
// (each worker owns its histogram; they are merged at the end).
const (
	subBits    = 7
	subCount   = 1 << subBits // 128
	halfCount  = subCount / 2 // 64
	maxShift   = 64 - subBits
	numBuckets = (maxShift+1)*halfCount + halfCount
)

// Histogram counts durations in log-linear buckets. It is not safe for
// concurrent use; Merge combines per-worker histograms.
type Histogram struct {
	counts [numBuckets]uint64
	total  uint64
	min    uint64
	max    uint64
	sum    float64
}

// bucketOf returns the bucket index of v nanoseconds.
func bucketOf(v uint64) int {
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(v) - subBits // >= 1; v>>shift lies in [halfCount, subCount)
	return shift*halfCount + int(v>>shift)
}

// bucketRange returns the smallest and largest value that map to bucket i.
func bucketRange(i int) (lo, hi uint64) {
	if i < subCount {
		return uint64(i), uint64(i)
	}
	shift := i/halfCount - 1
	lo = uint64(i-shift*halfCount) << shift
	return lo, lo + (1 << shift) - 1
}

// Record adds one duration; negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucketOf(v)]++
	if h.total == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.total++
	h.sum += float64(v)
}

// Merge adds every value of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.total == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.total == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.total += o.total
	h.sum += o.sum
}

// Count returns how many values were recorded.
func (h *Histogram) Count() uint64 { return h.total }

// Max returns the largest recorded value exactly (0 when empty).
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Min returns the smallest recorded value exactly (0 when empty).
func (h *Histogram) Min() time.Duration { return time.Duration(h.min) }

// Mean returns the exact mean of the recorded values (0 when empty).
func (h *Histogram) Mean() time.Duration {
	if h.total == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.total))
}

// Quantile returns the value at quantile q in [0, 1]: the upper edge of the
// bucket holding the ceil(q*n)-th smallest value, clamped to the exact
// minimum and maximum, so it never under-reports and over-reports by at
// most one bucket width (1.6 %). The smallest and largest ranks are exact.
// It returns 0 when the histogram is empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	rank := max(uint64(math.Ceil(q*float64(h.total))), 1)
	switch rank { // the extremes are known exactly
	case 1:
		return time.Duration(h.min)
	case h.total:
		return time.Duration(h.max)
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			_, hi := bucketRange(i)
			return time.Duration(min(max(hi, h.min), h.max))
		}
	}
	return time.Duration(h.max)
}
