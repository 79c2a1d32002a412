package main

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The collector's percent (GOGC) follows the load unless the operator
// sets GOGC: quietGCPercent while the bot is quiet, and busyGCPercent
// while it allocates fast. Under load a higher percent collects less
// often (measured with cmd/tttload: 10–20 % more interactions a second on
// two cores at 400); at rest it only keeps a bigger heap: peak RSS at 50
// interactions a second was 55 MB at 400 against 38 MB at 100. Below
// Go's default of 100, the heap a quiet bot keeps shrinks further, its
// live heap being 1–2 MB: peak RSS at 50 interactions a second, median of
// 3 runs, 30.5 MB at 100, 29.9 at 75, 29.0 at 50, for the same CPU per
// interaction within the noise of the machine (1.2–1.6 ms).
const (
	quietGCPercent = 50
	busyGCPercent  = 400
	// busyAllocRate is the allocation rate, in bytes a second, above which
	// the bot counts as busy: an interaction allocates about 37 kB (10×10
	// games by /ttt move), so about 900 interactions a second; below
	// quietAllocRate (about 200 a second) it is quiet again; in between it
	// stays as it was. Measured with cmd/tttload: 1.8 MB/s at 50
	// interactions a second, 92 MB/s at 2,700.
	busyAllocRate  = 32 << 20
	quietAllocRate = 8 << 20
	// gcTuneEvery is how often the rate is measured.
	gcTuneEvery = 2 * time.Second
	// busyMemoryLimit is the soft limit on the Go runtime's memory (heap,
	// stacks, the collector's own) while the bot is busy: at 400 the heap
	// grows to five times what is live before it is collected, and a
	// burst of live memory (replies in flight, a backlog) became a peak
	// RSS of hundreds of MB. Near the limit the collector runs sooner.
	// Measured with cmd/tttload at saturation (/ttt move 10×10, HTTP, one
	// core): the runtime holds 30–34 MB at 400 with about 5 MB live, for a
	// peak RSS of 50–56 MB, 21 MB of which is the binary's code.
	busyMemoryLimit = 28 << 20
	// busyLimitPerLive raises the limit for a bot whose live heap is
	// large (many games at once): to this many times the live heap, so
	// that the collector never runs more often than at GOGC 200, rather
	// than nonstop.
	busyLimitPerLive = 3
)

// memoryLimitFor is the soft memory limit for a percent (GOGC) and a
// live heap (bytes): busyMemoryLimit while busy, or busyLimitPerLive
// times the live heap if more; none while quiet.
func memoryLimitFor(percent int, live uint64) int64 {
	if percent != busyGCPercent {
		return math.MaxInt64
	}
	return max(busyMemoryLimit, busyLimitPerLive*int64(min(live, math.MaxInt64/busyLimitPerLive)))
}

// gcPercentFor is the collector's percent for an allocation rate (bytes a
// second), given the percent in force.
func gcPercentFor(rate float64, current int) int {
	switch {
	case rate >= busyAllocRate:
		return busyGCPercent
	case rate <= quietAllocRate:
		return quietGCPercent
	}
	return current
}

// tuneGC sets the collector's percent to follow the load until ctx ends,
// if gogc (the environment's GOGC) is empty: an operator's GOGC wins. So
// does an operator's GOMEMLIMIT, which the runtime reads itself: without
// it, a soft memory limit bounds the heap while the bot is busy
// (memoryLimitFor).
func tuneGC(ctx context.Context, gogc string) {
	if gogc != "" {
		return
	}
	limits := os.Getenv("GOMEMLIMIT") == ""
	percent := quietGCPercent
	debug.SetGCPercent(percent)
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	last, lastAt := sample[0].Value.Uint64(), time.Now()
	t := time.NewTicker(gcTuneEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			metrics.Read(sample)
			allocs := sample[0].Value.Uint64()
			rate := float64(allocs-last) / now.Sub(lastAt).Seconds()
			last, lastAt = allocs, now
			if p := gcPercentFor(rate, percent); p != percent {
				percent = p
				debug.SetGCPercent(p)
			}
			if limits {
				debug.SetMemoryLimit(memoryLimitFor(percent, sample[1].Value.Uint64()))
			}
		}
	}
}
