package main

import (
	"flag"
	"os"
	"testing"

	"github.com/tttbot/tttbot/internal/parallel"
)

// testParallel is how many of this package's parallel tests run at once
// when -test.parallel is not given: they wait on bots starting and
// stopping, PostgreSQL's lock pings and the fake Discord, not on a CPU
// (the package used 3 s of CPU in 16 s under -race), so GOMAXPROCS (the
// default) leaves a small machine idle.
const testParallel = 6

func TestMain(m *testing.M) {
	flag.Parse()
	parallel.AtLeast(testParallel)
	os.Exit(m.Run())
}
