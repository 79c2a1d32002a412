// Package parallel sets how many of a test package's parallel tests run
// at once, for packages whose tests mostly wait (on a bot process, a
// server, a lock's ping) rather than compute: there Go's default,
// GOMAXPROCS, leaves a small machine idle.
package parallel

import (
	"flag"
	"runtime"
	"strconv"
)

// AtLeast sets -test.parallel to n unless it was given or GOMAXPROCS is
// already n or more. Call it in TestMain after flag.Parse.
func AtLeast(n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < n {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
