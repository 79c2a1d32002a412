//go:build !unix

package web

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
