package main

import (
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Measuring per core: the bot on its own cores (-bot-cpus), the generator
// and the fake Discord on others (-cpus), as taskset -c would place them.

// cpuSet is a set of CPUs as sched_setaffinity(2) takes it: a bit per CPU,
// the size of glibc's cpu_set_t.
type cpuSet [16]uint64

// parseCPUs reads a CPU list as taskset -c and Cpus_allowed_list write
// it: numbers and ranges separated by commas, such as "0" or "0-1,3".
func parseCPUs(list string) (cpuSet, error) {
	var s cpuSet
	if strings.TrimSpace(list) == "" {
		return s, fmt.Errorf("empty CPU list")
	}
	for part := range strings.SplitSeq(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= 64*len(s) {
			return s, fmt.Errorf("CPU list %q: want numbers and ranges from 0 to %d, such as 0 or 0-1,3", list, 64*len(s)-1)
		}
		for cpu := a; cpu <= b; cpu++ {
			s[cpu/64] |= 1 << (cpu % 64)
		}
	}
	return s, nil
}

// count returns the number of CPUs in s.
func (s *cpuSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// String writes s as a CPU list, with ranges: "0-1,3".
func (s *cpuSet) String() string {
	var parts []string
	for cpu := 0; cpu < 64*len(s); cpu++ {
		if !s.has(cpu) {
			continue
		}
		end := cpu
		for end+1 < 64*len(s) && s.has(end+1) {
			end++
		}
		if end == cpu {
			parts = append(parts, strconv.Itoa(cpu))
		} else {
			parts = append(parts, strconv.Itoa(cpu)+"-"+strconv.Itoa(end))
		}
		cpu = end
	}
	return strings.Join(parts, ",")
}

func (s *cpuSet) has(cpu int) bool { return s[cpu/64]&(1<<(cpu%64)) != 0 }

// setAffinity sets the CPUs of thread tid (0: the calling thread).
func setAffinity(tid int, s *cpuSet) error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(*s), uintptr(unsafe.Pointer(s)))
	if errno != 0 {
		return errno
	}
	return nil
}

// getAffinity reads the CPUs of thread tid (0: the calling thread) into s.
func getAffinity(tid int, s *cpuSet) error {
	*s = cpuSet{}
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, uintptr(tid), unsafe.Sizeof(*s), uintptr(unsafe.Pointer(s)))
	if errno != 0 {
		return errno
	}
	return nil
}

// pinSelf runs every thread of this process on the CPUs of s, and
// GOMAXPROCS goroutines at once, as many as s has CPUs (unless GOMAXPROCS
// is set). A thread made later is made by one of them and inherits its
// CPUs; a pass that finds no thread it has not pinned ends.
func pinSelf(s *cpuSet) error {
	pinned := map[int]bool{}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || pinned[tid] {
				continue
			}
			if err := setAffinity(tid, s); err != nil && err != syscall.ESRCH { // ESRCH: the thread ended
				return fmt.Errorf("pin this process to CPUs %s: %w", s, err)
			}
			pinned[tid], fresh = true, true
		}
		if !fresh {
			break
		}
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(s.count())
	}
	return nil
}

// startOn starts cmd on the CPUs of s, as taskset -c does: from a thread
// locked to a goroutine of its own whose CPUs are s for the while, which
// the child inherits through fork and exec. The thread gets its CPUs back
// after; should that fail, it stays locked and ends with the goroutine
// (or, the main thread, stays parked). A nil s starts cmd as exec does.
func startOn(cmd *exec.Cmd, s *cpuSet) error {
	if s == nil {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old cpuSet
		if err := getAffinity(0, &old); err != nil {
			errc <- fmt.Errorf("read this thread's CPUs: %w", err)
			return
		}
		if err := setAffinity(0, s); err != nil {
			mine, _ := affinity(os.Getpid())
			errc <- fmt.Errorf("run the bot on CPUs %s: %w (this process runs on CPUs %s)", s, err, mine)
			return
		}
		err := cmd.Start()
		if setAffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// affinity returns the CPUs the threads of process pid may run on, from
// /proc/PID/task/*/status (Cpus_allowed_list): one list when they agree,
// each different list in order when they do not.
func affinity(pid int) (string, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return "", err
	}
	var lists []string
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		if l := cpusAllowed(b); l != "" && !slices.Contains(lists, l) {
			lists = append(lists, l)
		}
	}
	if len(lists) == 0 {
		return "", fmt.Errorf("no Cpus_allowed_list in /proc/%d/task/*/status", pid)
	}
	slices.Sort(lists)
	if len(lists) > 1 {
		return "mixed: " + strings.Join(lists, "; "), nil
	}
	return lists[0], nil
}

// cpusAllowed returns the Cpus_allowed_list of a /proc/PID/status.
func cpusAllowed(status []byte) string {
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
