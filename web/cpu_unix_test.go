//go:build unix

package web

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process used so far (the server's and,
// in process, the pages').
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
