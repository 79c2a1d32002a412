package main

import (
	"context"
	"flag"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The tests below build the bot and run it as tttload does, on loopback.

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// testBenchtime is how long each of load's three measures of
// ed25519.Verify runs (testing.Benchmark, which reads -test.benchtime)
// unless the run gives -test.benchtime: the figure is only printed, and
// at the default second each run of load spent 3 s on it.
const testBenchtime = "20ms"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.benchtime" })
	if !given {
		flag.Set("test.benchtime", testBenchtime)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// botBinary builds the module's bot once for the tests that run it.
func botBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds and runs the bot")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "tttload-test-"); built.err == nil {
			built.path, built.err = buildBot(context.Background(), built.dir)
		}
	})
	if built.err != nil {
		t.Fatalf("build the bot: %v", built.err)
	}
	return built.path
}

// Played as players play, the load is never refused: each game's pair of
// members is new, so the bot's pace on starts (10 at once, then one a
// second per user) never applies, though a 3×3 game ends every few
// milliseconds in each channel.
//
// The runs go at once, and beside TestRefusalsFailTheRun: most of a run's
// time is the bot's stop (it answers for 2 s after SIGTERM).
func TestRunIsNotRefused(t *testing.T) {
	t.Parallel()
	bin := botBinary(t)
	for _, kind := range []string{"http", "gateway"} {
		for _, how := range [][]string{{"-size", "3"}, {"-size", "3", "-clicks"}} {
			t.Run(kind+" "+how[len(how)-1], func(t *testing.T) {
				t.Parallel()
				r := cleanRun(t, kind, bin, append([]string{"-rate", "0", "-concurrency", "2", "-interactions", "400"}, how...)...)
				st := r.st
				// 400 interactions are 44 games of 9: two channels finish
				// at least 40 of them.
				if st.games.Load() < 40 {
					t.Errorf("%d games won; want at least 40", st.games.Load())
				}
				if err := checkRefusals(r); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// cleanRun runs the bot bin under tttload's args on kind's transport and
// fails t unless every interaction was answered and none refused, busy or
// an error.
func cleanRun(t *testing.T, kind, bin string, args ...string) *report {
	t.Helper()
	cfg, err := parseFlags(append([]string{"-bot", bin}, args...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runOne(context.Background(), cfg, kind, bin, t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	st := r.st
	if st.refused.Load() != 0 || st.busy.Load() != 0 || st.internal.Load() != 0 || st.unanswered.Load() != 0 {
		t.Errorf("%d sent: %d refused, %d busy, %d errors, %d unanswered; want none: %q",
			st.sent.Load(), st.refused.Load(), st.busy.Load(), st.internal.Load(), st.unanswered.Load(), st.errors)
	}
	return r
}

// A run refused more than 1% of the time fails, naming how many and the
// refusals most often given, unless -allow-refusals asks for it. One pair
// per channel (-pairs channel) plays 33 games of 3×3 in the run, which the
// bot's pace on starts refuses past the tenth unless the run lasts more
// than 20 s (60 ms an interaction, where they take about 1 ms).
func TestRefusalsFailTheRun(t *testing.T) {
	t.Parallel()
	bin := botBinary(t)
	args := []string{"-bot", bin, "-rate", "0", "-concurrency", "1", "-size", "3", "-interactions", "300", "-pairs", "channel"}
	var out strings.Builder
	err := run(context.Background(), args, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "interactions") || !strings.Contains(err.Error(), "were refused") ||
		!strings.Contains(err.Error(), `× "You're starting games faster than they can be played. You can start another <t:#:R>."`) {
		t.Fatalf("run -pairs channel = %v; want the run failed for its refused starts\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "one pair per channel") {
		t.Errorf("report without its players:\n%s", out.String())
	}
	if err := run(context.Background(), append(args, "-allow-refusals"), io.Discard, io.Discard); err != nil {
		t.Errorf("run -pairs channel -allow-refusals = %v; want the run measured", err)
	}
}

// -bot-cpus starts the bot on the CPUs asked for, -cpus runs the generator
// on its own, and the report names both as /proc shows them.
func TestPinned(t *testing.T) {
	bin := botBinary(t)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	mine, err := parseCPUs(cpusAllowed(status))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// This process again on all its CPUs, for the other tests.
		procs := runtime.GOMAXPROCS(0)
		if err := pinSelf(&mine); err != nil {
			t.Error(err)
		}
		runtime.GOMAXPROCS(procs)
	})
	// The bot on the last CPU, the generator on the first (the same one
	// on a machine of one).
	var cpus []int
	for cpu := range 64 * len(mine) {
		if mine.has(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	botCPU, genCPU := strconv.Itoa(cpus[len(cpus)-1]), strconv.Itoa(cpus[0])
	cfg, err := parseFlags([]string{"-bot", bin, "-bot-cpus", botCPU, "-cpus", genCPU, "-rate", "0", "-concurrency", "1", "-size", "3", "-interactions", "30"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	reports, err := load(context.Background(), cfg, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r := reports[0]; r.botCores != botCPU || r.genCores != genCPU {
		t.Errorf("CPUs of bot / generator: %s / %s; want %s / %s", r.botCores, r.genCores, botCPU, genCPU)
	}
	if !strings.Contains(out.String(), "generator on CPUs "+genCPU+"\n") || !strings.Contains(out.String(), "on CPUs "+botCPU+",") {
		t.Errorf("output does not name the CPUs:\n%s", out.String())
	}
	if runtime.GOMAXPROCS(0) != 1 && os.Getenv("GOMAXPROCS") == "" {
		t.Errorf("GOMAXPROCS %d on one CPU; want 1", runtime.GOMAXPROCS(0))
	}
}
