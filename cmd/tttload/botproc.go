package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// buildBot builds the repository's bot into dir and returns its path.
func buildBot(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "tttbot")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "github.com/tttbot/tttbot")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build the bot (run tttload inside the module, or pass -bot): %w", err)
	}
	return out, nil
}

// botProcess is the bot running as a child process.
type botProcess struct {
	cmd          *exec.Cmd
	pid          int
	interactions string // host:port of POST /interactions, if served
	metrics      string // host:port of /metrics

	mu       sync.Mutex
	warnings int      // log lines at WARN or ERROR after ready
	first    []string // the first few of them
	exited   chan struct{}
}

// startBot runs the bot at path with env added to a minimal environment,
// on the CPUs of cpus (nil: any), and waits for its "ready" line.
func startBot(ctx context.Context, path string, env []string, cpus *cpuSet) (*botProcess, error) {
	cmd := exec.Command(path)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Dir = filepath.Dir(path) // no stray .env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := startOn(cmd, cpus); err != nil {
		return nil, fmt.Errorf("start the bot: %w", err)
	}
	p := &botProcess{cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var before []string
		isReady := false
		for sc.Scan() {
			line := sc.Text()
			if !isReady {
				if strings.Contains(line, "msg=ready") {
					isReady = true
					ready <- line
					continue
				}
				before = append(before, line)
				if len(before) > 50 {
					before = before[1:]
				}
				continue
			}
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				p.mu.Lock()
				p.warnings++
				if len(p.first) < 5 {
					p.first = append(p.first, line)
				}
				p.mu.Unlock()
			}
		}
		if !isReady {
			ready <- "exited: " + strings.Join(before, "\n")
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	select {
	case line := <-ready:
		if strings.HasPrefix(line, "exited: ") {
			<-p.exited
			return nil, fmt.Errorf("the bot stopped before it was ready (%s):\n%s", cmd.ProcessState, strings.TrimPrefix(line, "exited: "))
		}
		p.interactions = logValue(line, "interactions")
		p.metrics = logValue(line, "metrics")
		return p, nil
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, errors.New("the bot did not log ready within 60s")
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

// logValue returns the value of key in a slog text line.
func logValue(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// stop sends SIGTERM and waits for the bot to exit (SIGKILL after 10 s).
func (p *botProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// logged returns the number of WARN and ERROR lines since ready and the
// first few.
func (p *botProcess) logged() (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.warnings, append([]string(nil), p.first...)
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// cpuTime returns the CPU time (user + system) the process has used.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// parseStatCPU reads utime + stime from the contents of /proc/PID/stat.
func parseStatCPU(stat []byte) (time.Duration, error) {
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

// memory is the bot's memory and goroutines at one moment.
type memory struct {
	rss        int64 // bytes, from /proc/PID/status VmRSS
	peak       int64 // bytes, VmHWM: the highest rss since the bot started
	anon, file int64 // bytes, RssAnon and RssFile: rss is their sum (with RssShmem, none)
	heapInuse  int64 // bytes, go_memstats_heap_inuse_bytes
	goroutines int64 // go_goroutines
	cpu        time.Duration
}

var metricsClient = &http.Client{Timeout: 5 * time.Second}

// sample reads the bot's memory from /proc and its /metrics.
func (p *botProcess) sample() (memory, error) {
	var m memory
	var err error
	if m.cpu, err = cpuTime(p.pid); err != nil {
		return m, err
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid)); err == nil {
		parseStatus(b, &m)
	}
	if p.metrics == "" {
		return m, nil
	}
	resp, err := metricsClient.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return m, err
	}
	vals := parseMetrics(body, "go_memstats_heap_inuse_bytes", "go_goroutines")
	m.heapInuse, m.goroutines = int64(vals[0]), int64(vals[1])
	return m, nil
}

// parseStatus reads the resident sizes of /proc/PID/status into m.
func parseStatus(status []byte, m *memory) {
	fields := map[string]*int64{"VmRSS:": &m.rss, "VmHWM:": &m.peak, "RssAnon:": &m.anon, "RssFile:": &m.file}
	for line := range strings.SplitSeq(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" || fields[f[0]] == nil {
			continue
		}
		if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			*fields[f[0]] = kb << 10
		}
	}
}

// parseMetrics returns the values of the named unlabelled metrics in a
// Prometheus text exposition (0 for a missing one).
func parseMetrics(text []byte, names ...string) []float64 {
	out := make([]float64, len(names))
	for line := range bytes.SplitSeq(text, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			continue
		}
		for i, n := range names {
			if string(name) == n {
				out[i], _ = strconv.ParseFloat(string(bytes.TrimSpace(value)), 64)
			}
		}
	}
	return out
}

// machineCPU returns the CPU time all processes have used (everything but
// idle and iowait, summed over the cores), from /proc/stat.
func machineCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseMachineCPU(line)
}

// parseMachineCPU reads the busy time from the "cpu" line of /proc/stat.
func parseMachineCPU(line string) (time.Duration, error) {
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, errors.New("unexpected /proc/stat")
	}
	var busy uint64
	for i, v := range f[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, errors.New("unexpected /proc/stat")
		}
		// Fields: user nice system idle iowait irq softirq steal guest
		// guest_nice; guest time is already counted in user.
		if i == 3 || i == 4 || i >= 8 {
			continue
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / clockTicks, nil
}
