package store

import (
	"flag"
	"os"
	"testing"

	"github.com/tttbot/tttbot/internal/parallel"
)

// testParallel is how many of the package's parallel tests run at once
// when -test.parallel is not given: the PostgreSQL ones wait on the
// server, the lock ones on a lock's 5 s ping, and only the SQLite fill of
// TestQueryPlansSQLite needs a CPU, so GOMAXPROCS (the default) leaves a
// small machine idle.
const testParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	parallel.AtLeast(testParallel)
	os.Exit(m.Run())
}
