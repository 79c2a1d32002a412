package main

import (
	"math"
	"testing"
)

// While busy, the heap is bounded by a soft memory limit, raised for a
// bot whose live heap is large so that the collector does not run
// nonstop; while quiet, there is none (GOGC alone keeps the heap small).
func TestMemoryLimitFor(t *testing.T) {
	for _, tt := range []struct {
		percent int
		live    uint64
		want    int64
	}{
		{quietGCPercent, 0, math.MaxInt64},
		{quietGCPercent, 1 << 30, math.MaxInt64},
		{busyGCPercent, 0, busyMemoryLimit},
		{busyGCPercent, 5 << 20, busyMemoryLimit},
		{busyGCPercent, 100 << 20, busyLimitPerLive * 100 << 20},
		{busyGCPercent, math.MaxUint64, math.MaxInt64 / busyLimitPerLive * busyLimitPerLive},
	} {
		if got := memoryLimitFor(tt.percent, tt.live); got != tt.want {
			t.Errorf("memoryLimitFor(%d, %d) = %d; want %d", tt.percent, tt.live, got, tt.want)
		}
	}
}
