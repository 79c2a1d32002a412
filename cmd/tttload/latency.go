package main

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// A histogram counts durations in log-linear buckets: exact below 128 ns,
// then 64 buckets per power of two, so a percentile read from it is within
// 1.6% of the true value. Recording is one atomic add; the zero value is
// empty and ready to use, and it is safe for concurrent use.
type histogram struct {
	counts [histBuckets]atomic.Uint64
	max    atomic.Int64
}

const (
	histSub     = 64 // buckets per power of two
	histBuckets = histSub * 44
)

// bucket returns the index of the bucket d falls in.
func bucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(v) - 7 // v>>shift is in [64, 128)
	i := shift*histSub + int(v>>shift)
	return min(i, histBuckets-1)
}

// bucketValue returns the middle of bucket i.
func bucketValue(i int) time.Duration {
	if i < 2*histSub {
		return time.Duration(i)
	}
	shift := i/histSub - 1
	lower := uint64(i-shift*histSub) << shift
	return time.Duration(lower + (uint64(1)<<shift)/2)
}

// record adds d.
func (h *histogram) record(d time.Duration) {
	h.counts[bucket(d)].Add(1)
	for {
		m := h.max.Load()
		if int64(d) <= m || h.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// snapshot returns a copy of the counts, for percentiles and for the
// difference between two moments.
func (h *histogram) snapshot() latencies {
	var l latencies
	for i := range h.counts {
		l.counts[i] = h.counts[i].Load()
	}
	l.max = time.Duration(h.max.Load())
	return l
}

// latencies is a histogram's counts at one moment.
type latencies struct {
	counts [histBuckets]uint64
	max    time.Duration // over the whole life of the histogram
}

// since returns the counts recorded after prev (max stays l's).
func (l latencies) since(prev latencies) latencies {
	for i := range l.counts {
		l.counts[i] -= prev.counts[i]
	}
	return l
}

// total returns the number of durations counted.
func (l *latencies) total() uint64 {
	var n uint64
	for _, c := range l.counts {
		n += c
	}
	return n
}

// percentile returns the duration that a fraction p (0 to 1) of the
// counted durations do not exceed; 0 if none were counted.
func (l *latencies) percentile(p float64) time.Duration {
	n := l.total()
	if n == 0 {
		return 0
	}
	rank := uint64(p*float64(n) + 0.5)
	rank = max(rank, 1)
	var seen uint64
	for i, c := range l.counts {
		seen += c
		if seen >= rank {
			return min(bucketValue(i), l.max)
		}
	}
	return l.max
}
