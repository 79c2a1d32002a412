// Command tttload drives the bot with interactions and reports how it
// keeps up: throughput, latency percentiles, unanswered and failed
// interactions, the bot's CPU per interaction (beside the cost of Ed25519
// verification alone) and its memory and goroutines.
//
// It builds the bot (or takes -bot), starts it as a child process on a
// fresh SQLite file in a temporary directory, waits for its ready line, and
// plays Discord's part:
//
//   - http: signed interactions POSTed to the bot's interactions endpoint
//     (INTERACTIONS_ADDR), with a minimal REST API in this process for the
//     bot's edits, that forgets them; payloads are built as bytes and, for
//     runs of a few minutes, signed before the run starts.
//   - gateway: INTERACTION_CREATE dispatched over the gateway of the fake
//     Discord, discord/discordtest, which checks every callback; it keeps
//     everything, so use it for short runs.
//
// Each channel plays 10×10 games between two members (challenge, accept,
// /ttt move by turns until X wins on move 91), one interaction at a time
// (-clicks: moves are clicks on a board's buttons, up to 5×5; -picker:
// two taps on a bigger board's picker, the row and then the cell);
// many channels play at once. With -rate the sends are paced open-loop over
// the channels and latency counts from when a send was due; with -rate 0,
// -concurrency channels play as fast as the bot answers.
//
// The load is what players send, which the bot does not refuse: each game
// is played by two members who have not played yet (the bot lets one user
// start 10 games at once, then one a second), and nobody plays the
// computer (whose moves it paces per player). A run in which more than 1%
// of the interactions are refused fails: it measured refusals, which cost
// the bot less than moves. It exits 1 with a line saying how many were
// refused and the texts most often given. -pairs channel has one pair play
// every game of a channel, as a script would, and -allow-refusals measures
// such a run anyway.
//
// Usage:
//
//	go run ./cmd/tttload [-transport http|gateway|both] [-rate N] [-duration D]
//	    [-channels N] [-concurrency N] [-size N] [-clicks | -picker] [-interactions N] [-sample D] [-bot PATH]
//	    [-pairs game|channel] [-allow-refusals] [-bot-cpus LIST] [-cpus LIST]
//
// A soak of a million interactions, closed loop, sampling memory every 15 s:
//
//	go run ./cmd/tttload -rate 0 -concurrency 32 -interactions 1000000 -sample 15s
//
// The machine's other processes compete for the same cores: the report
// shows the CPU they took during the run beside the bot's and the
// generator's. CPU per interaction is the bot's own (/proc/PID/stat), so
// it holds whatever else runs; throughput and latency do not.
//
// To measure the bot per core, run it on cores of its own and everything
// else on the others: -bot-cpus 0 starts the bot as taskset -c 0 would,
// and -cpus 1 runs the generator, with the REST sink or the fake Discord
// in it, on core 1 (like taskset -c 1 tttload). The bot's Go runtime then
// runs one goroutine at a time, as on a machine of one core. The report
// names the cores each ran on, read from /proc/PID/task/*/status:
//
//	go run ./cmd/tttload -bot-cpus 0 -cpus 1 -rate 0 -concurrency 16 -duration 20s
//
// The bot serves no pprof; to see where its CPU goes, run perf on the pid
// that tttload prints while a run is going:
//
//	perf record -F 499 -g -p PID -o perf.data -- sleep 10
//	perf report -i perf.data --children --sort symbol
package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tttbot/tttbot/bot"
)

// closedLoopPresign is the rate a closed loop is presigned for: above the
// 5,000 moves per second that the scale-out issue asks of the bot.
const closedLoopPresign = 6000

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tttload:", err)
		os.Exit(1)
	}
}

// config is what the flags ask for.
type config struct {
	transport    string
	rate         float64
	concurrency  int
	duration     time.Duration // 0: until -interactions
	channels     int
	size         int
	clicks       bool
	picker       bool
	interactions int64
	sample       time.Duration
	bot          string
	presign      bool
	restTLS      bool
	pairs        string // "game": a new pair of members plays each game; "channel": one pair per channel
	allowRefused bool   // a run with more than 1% refused is measured, not failed
	databaseURL  string // the bot's DATABASE_URL; "": a new SQLite file per run

	botCPUs, cpus *cpuSet // where the bot and the generator run; nil: anywhere
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fl := flag.NewFlagSet("tttload", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&c.transport, "transport", "http", "how interactions reach the bot: http, gateway or both (one run each, side by side)")
	fl.Float64Var(&c.rate, "rate", 1000, "interactions per second, paced open-loop over the channels; 0: closed loop over -concurrency channels")
	fl.IntVar(&c.concurrency, "concurrency", 16, "with -rate 0: channels playing as fast as the bot answers")
	fl.DurationVar(&c.duration, "duration", 30*time.Second, "how long to send (default 30s, or no limit when -interactions is given)")
	fl.IntVar(&c.channels, "channels", 200, "with -rate: channels (games at once); each sends one interaction at a time")
	fl.IntVar(&c.size, "size", 10, "board size, 3 to 15 (over 10, every board is a picture)")
	fl.BoolVar(&c.clicks, "clicks", false, "play moves by clicking the board's buttons, as players do on boards up to 5×5, instead of /ttt move")
	fl.BoolVar(&c.picker, "picker", false, "play moves on the board's picker, as players do on boards over 5×5: the row in its menu, then the cell (two interactions a move)")
	fl.Int64Var(&c.interactions, "interactions", 0, "stop after this many interactions (0: no limit)")
	fl.DurationVar(&c.sample, "sample", 0, "print a row of throughput, latency and the bot's memory every this often (0: none)")
	fl.StringVar(&c.bot, "bot", "", "the bot binary (default: go build the module's bot into a temporary directory)")
	fl.BoolVar(&c.presign, "presign", true, "sign http payloads before the run, when it lasts under 4 minutes")
	fl.BoolVar(&c.restTLS, "rest-tls", true, "serve the bot's REST calls over HTTPS and HTTP/2, as discord.com does (gateway: through a proxy in front of the fake); false: plain HTTP/1.1")
	fl.StringVar(&c.pairs, "pairs", "game", "who plays: game, a new pair of members each game, as players do; channel, one pair per channel, game after game, as a script would, which the bot's pace on starts refuses")
	fl.StringVar(&c.databaseURL, "database-url", "", "the bot's DATABASE_URL, a postgres:// URL to measure on PostgreSQL (default: a new SQLite file for each run)")
	fl.BoolVar(&c.allowRefused, "allow-refusals", false, "measure a run in which more than 1% of the interactions are refused, instead of failing it")
	botCPUs := fl.String("bot-cpus", "", "run the bot on these CPUs, as taskset -c does: a list such as 0 or 0-1,3 (default: any)")
	cpus := fl.String("cpus", "", "run this generator, with the REST sink or the fake Discord, on these CPUs (default: any)")
	if err := fl.Parse(args); err != nil {
		return c, err
	}
	durationSet := false
	fl.Visit(func(f *flag.Flag) { durationSet = durationSet || f.Name == "duration" })
	if c.interactions > 0 && !durationSet {
		c.duration = 0
	}
	switch {
	case fl.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fl.Args())
	case c.transport != "http" && c.transport != "gateway" && c.transport != "both":
		return c, fmt.Errorf("-transport %q: want http, gateway or both", c.transport)
	case c.rate < 0 || math.IsInf(c.rate, 0) || math.IsNaN(c.rate):
		return c, errors.New("-rate must be 0 or more")
	case c.size < bot.MinSize || c.size > bot.MaxSize:
		return c, fmt.Errorf("-size must be from %d to %d", bot.MinSize, bot.MaxSize)
	case c.clicks && c.size > bot.MaxButtonSize:
		return c, fmt.Errorf("-clicks: boards bigger than %d×%d have no buttons", bot.MaxButtonSize, bot.MaxButtonSize)
	case c.picker && c.size <= bot.MaxButtonSize:
		return c, fmt.Errorf("-picker: boards up to %d×%d have no picker (use -clicks)", bot.MaxButtonSize, bot.MaxButtonSize)
	case c.rate > 0 && c.channels < 1, c.rate == 0 && c.concurrency < 1:
		return c, errors.New("-channels and -concurrency must be 1 or more")
	case c.duration <= 0 && c.interactions <= 0:
		return c, errors.New("give a -duration or a number of -interactions")
	case c.pairs != "game" && c.pairs != "channel":
		return c, fmt.Errorf("-pairs %q: want game or channel", c.pairs)
	}
	for _, f := range []struct {
		name, list string
		set        **cpuSet
	}{{"-bot-cpus", *botCPUs, &c.botCPUs}, {"-cpus", *cpus, &c.cpus}} {
		if f.list == "" {
			continue
		}
		s, err := parseCPUs(f.list)
		if err != nil {
			return c, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.set = &s
	}
	if c.rate == 0 {
		c.channels = c.concurrency
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	reports, err := load(ctx, cfg, stdout, stderr)
	if err != nil {
		return err
	}
	printReports(stdout, cfg, reports)
	if cfg.allowRefused {
		return nil
	}
	var errs []error
	for _, r := range reports {
		errs = append(errs, checkRefusals(r))
	}
	return errors.Join(errs...)
}

// load builds the bot unless given one, places this process on its CPUs,
// and makes the runs cfg asks for, one per transport.
func load(ctx context.Context, cfg config, stdout, stderr io.Writer) ([]*report, error) {
	dir, err := os.MkdirTemp("", "tttload-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	botPath := cfg.bot
	if botPath == "" {
		fmt.Fprintln(stderr, "building the bot…")
		if botPath, err = buildBot(ctx, dir); err != nil {
			return nil, err
		}
	}
	if cfg.cpus != nil {
		if err := pinSelf(cfg.cpus); err != nil {
			return nil, err
		}
	}
	verify := verifyCost()
	cores, err := affinity(os.Getpid())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "machine: %d cores (GOMAXPROCS %d), %s %s/%s; ed25519.Verify alone: %.1f µs per interaction; generator on CPUs %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH, micros(verify), cores)

	kinds := []string{cfg.transport}
	if cfg.transport == "both" {
		kinds = []string{"http", "gateway"}
	}
	var reports []*report
	for _, k := range kinds {
		r, err := runOne(ctx, cfg, k, botPath, dir, stdout)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		r.verify = verify
		reports = append(reports, r)
		if ctx.Err() != nil {
			break
		}
	}
	return reports, nil
}

// maxRefusedPercent is the share of a run's interactions that may be
// refused. Players who play as people do are not refused; this leaves room
// for the odd refusal without letting a run measure mostly refusals.
const maxRefusedPercent = 1

// checkRefusals fails a run in which more than maxRefusedPercent of the
// interactions were refused (or found the channel busy), naming how many
// and the texts most often given.
func checkRefusals(r *report) error {
	sent, refused := r.st.sent.Load(), r.st.refused.Load()+r.st.busy.Load()
	if refused*100 <= sent*maxRefusedPercent {
		return nil
	}
	type text struct {
		s string
		n int64
	}
	var texts []text
	r.st.mu.Lock()
	for s, n := range r.st.refusals {
		texts = append(texts, text{s, n})
	}
	r.st.mu.Unlock()
	slices.SortFunc(texts, func(a, b text) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.s, b.s)) })
	var most []string
	for _, t := range texts[:min(len(texts), 3)] {
		most = append(most, fmt.Sprintf("%d× %q", t.n, t.s))
	}
	return fmt.Errorf("%s: %d of %d interactions (%.1f%%) were refused, more than the %d%% a run may have: it measured refusals, not play. Most often: %s. (-allow-refusals measures such a run.)",
		r.transport, refused, sent, 100*float64(refused)/float64(max(sent, 1)), maxRefusedPercent, strings.Join(most, ", "))
}

// verifyCost measures ed25519.Verify of a typical /ttt move, in this
// process: the least CPU the bot must spend on an HTTP interaction.
func verifyCost() time.Duration {
	pub, key, _ := ed25519.GenerateKey(nil)
	var ids snowflakes
	b := builder{scene: scene{appID: "1", guildID: "2", cmdID: "3", botID: "1"}, ids: &ids}
	body := b.move(nil, "1234567890123456789", player{id: "1234567890123456780", name: "player1"}, 5, 7)
	s := sign(key, body, time.Now())
	msg := append([]byte(s.timestamp), body...)
	sig := make([]byte, ed25519.SignatureSize)
	copy(sig, ed25519.Sign(key, msg))
	// The least of three runs: other processes on the machine only ever
	// make it slower.
	best := time.Duration(math.MaxInt64)
	for range 3 {
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				ed25519.Verify(pub, msg, sig)
			}
		})
		best = min(best, time.Duration(r.NsPerOp()))
	}
	return best
}

// transport is how interactions reach the bot.
type transport interface {
	env() []string                                  // the bot's settings for it
	ready(p *botProcess, channels int) error        // once the bot is ready
	send(ctx context.Context, c *chanState) outcome // c's next step, and the answer
	close()
}

// report is the result of one run.
type report struct {
	transport   string
	elapsed     time.Duration
	st          *stats
	lat         latencies
	botCPU      time.Duration
	genCPU      time.Duration
	otherCPU    time.Duration // other processes on the machine during the run
	verify      time.Duration
	memStart    memory
	memEnd      memory
	edits       uint64 // webhook edits and deletes the REST sink took (http)
	restConns   uint64 // TCP connections the bot opened to the REST sink (http)
	logWarnings int
	logFirst    []string
	botCores    string // the CPUs the bot's threads may run on
	genCores    string // and the generator's
}

// stats counts what happened in a run. It is safe for concurrent use.
type stats struct {
	sent, answered, moves, games        atomic.Int64
	unanswered, refused, internal, busy atomic.Int64
	late                                atomic.Int64 // sends that found no idle channel when due
	lat                                 histogram

	mu       sync.Mutex
	errors   []string         // the first few unexpected answers
	refusals map[string]int64 // refusals by text (its numbers as #)
}

// maxRefusalTexts is how many different refusal texts stats counts apart.
const maxRefusalTexts = 64

func (s *stats) record(kind stepKind, o outcome, lat time.Duration, expected bool) {
	s.sent.Add(1)
	if !o.answered {
		s.unanswered.Add(1)
		s.note(kind, "unanswered: "+o.text)
		return
	}
	s.answered.Add(1)
	s.lat.record(lat)
	switch {
	case o.internal:
		s.internal.Add(1)
	case o.busy:
		s.busy.Add(1)
		s.refusal(o.text)
	case o.ephemeral:
		s.refused.Add(1)
		s.refusal(o.text)
	}
	if kind == stepMove && expected {
		s.moves.Add(1)
		if o.over {
			s.games.Add(1)
		}
	}
	if !expected || o.ephemeral {
		s.note(kind, o.text)
	}
}

// refusal counts a refusal's text, its numbers (times, mentions) as #.
func (s *stats) refusal(text string) {
	var b strings.Builder
	digits := false
	for _, r := range text {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	key := b.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refusals == nil {
		s.refusals = make(map[string]int64)
	}
	if _, ok := s.refusals[key]; !ok && len(s.refusals) >= maxRefusalTexts {
		key = "(other texts)"
	}
	s.refusals[key]++
}

func (s *stats) note(kind stepKind, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errors) < 8 {
		s.errors = append(s.errors, kind.String()+": "+text)
	}
}

// runOne starts a bot, drives it over one transport and reports.
func runOne(ctx context.Context, cfg config, kind, botPath, dir string, stdout io.Writer) (*report, error) {
	ids := new(snowflakes)
	id := func() string { return strconv.FormatUint(ids.next(), 10) }
	var tr transport
	var guildID string
	var ht *httpTransport
	switch kind {
	case "http":
		botID := id()
		sc := scene{appID: botID, botID: botID, guildID: id(), cmdID: id()}
		var err error
		if ht, err = newHTTPTransport(sc, ids, cfg.restTLS, dir); err != nil {
			return nil, err
		}
		tr, guildID = ht, sc.guildID
	default:
		gt, err := newGatewayTransport("tttload-token", cfg.restTLS, dir)
		if err != nil {
			return nil, err
		}
		tr, guildID = gt, gt.guildID
	}
	defer tr.close()

	db := cmp.Or(cfg.databaseURL, fmt.Sprintf("%s/%s-%d.db", dir, kind, time.Now().UnixNano()))
	env := append([]string{
		"DISCORD_TOKEN=tttload-token",
		"DISCORD_GUILD_ID=" + guildID,
		"DATABASE_URL=" + db,
		"METRICS_ADDR=127.0.0.1:0",
		"LOG_LEVEL=info",
	}, tr.env()...)
	p, err := startBot(ctx, botPath, env, cfg.botCPUs)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	botCores, err := affinity(p.pid)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "%s: bot pid %d on CPUs %s, interactions %s, metrics %s\n", kind, p.pid, botCores, cmp.Or(p.interactions, "-"), p.metrics)
	if err := tr.ready(p, cfg.channels); err != nil {
		return nil, err
	}

	chans := make([]*chanState, cfg.channels)
	for i := range chans {
		chans[i] = &chanState{id: id(), idx: i, size: cfg.size, clicks: cfg.clicks, picker: cfg.picker, samePair: cfg.pairs == "channel"}
		if chans[i].samePair {
			chans[i].a, chans[i].b = chans[i].pair(0, id)
		}
	}
	if ht != nil && cfg.presign {
		// A closed loop goes as fast as the bot: presign for more than
		// the targets ask (the rest is signed during the run).
		rate := cmp.Or(cfg.rate, closedLoopPresign)
		expected := rate * cfg.duration.Seconds()
		if cfg.interactions > 0 && (cfg.duration == 0 || float64(cfg.interactions) < expected) {
			expected = float64(cfg.interactions)
		}
		if expected <= 600_000 && expected/rate <= 240 {
			games := int(math.Ceil(expected/float64(len(chans))/float64(movesPerGame(cfg.size)+2))) + 1
			t0 := time.Now()
			ht.presign(chans, games, id)
			fmt.Fprintf(stdout, "%s: presigned %d games per channel in %v\n", kind, games, time.Since(t0).Round(time.Millisecond))
		}
	}
	for _, c := range chans {
		c.begin(id)
	}

	r := &report{transport: kind, st: new(stats)}
	runtime.GC()
	if r.memStart, err = p.sample(); err != nil {
		return nil, fmt.Errorf("sample the bot: %w", err)
	}
	gen0, _ := cpuTime(os.Getpid())
	all0, _ := machineCPU()
	r.elapsed = drive(ctx, cfg, tr, chans, r.st, id, p, stdout)
	gen1, _ := cpuTime(os.Getpid())
	all1, _ := machineCPU()
	if r.memEnd, err = p.sample(); err != nil {
		return nil, fmt.Errorf("sample the bot: %w", err)
	}
	r.botCPU, r.genCPU = r.memEnd.cpu-r.memStart.cpu, gen1-gen0
	r.otherCPU = max(all1-all0-r.botCPU-r.genCPU, 0)
	r.lat = r.st.lat.snapshot()
	if ht != nil {
		r.edits, r.restConns = ht.sink.edits.Load(), ht.sink.conns.Load()
	}
	r.logWarnings, r.logFirst = p.logged()
	if r.botCores, err = affinity(p.pid); err != nil {
		return nil, err
	}
	if r.genCores, err = affinity(os.Getpid()); err != nil {
		return nil, err
	}
	return r, nil
}

// drive plays the channels until the duration or the number of
// interactions is reached, and returns how long it sent for.
func drive(ctx context.Context, cfg config, tr transport, chans []*chanState, st *stats, newID func() string, p *botProcess, stdout io.Writer) time.Duration {
	idle := make(chan *chanState, len(chans))
	var wg sync.WaitGroup
	sctx, cancel := context.WithCancel(context.Background()) // sends in flight finish after ctx ends
	defer cancel()
	for _, c := range chans {
		c.run = make(chan time.Time, 1)
		wg.Go(func() {
			for due := range c.run {
				kind := c.next
				o := tr.send(sctx, c)
				lat := o.latency
				if lat == 0 {
					lat = time.Since(due)
				}
				expected := c.advance(o, newID)
				st.record(kind, o, lat, expected)
				idle <- c
			}
		})
		idle <- c
	}

	start := time.Now()
	done := make(chan struct{})
	var samplerDone sync.WaitGroup
	if cfg.sample > 0 {
		samplerDone.Go(func() { sampleLoop(cfg.sample, start, st, p, stdout, done) })
	}
	stopAt := time.Time{}
	if cfg.duration > 0 {
		stopAt = start.Add(cfg.duration)
	}
	over := func(sent int64) bool {
		return ctx.Err() != nil || (!stopAt.IsZero() && time.Now().After(stopAt)) ||
			(cfg.interactions > 0 && sent >= cfg.interactions)
	}
	var sent int64
	if cfg.rate > 0 {
		period := time.Duration(float64(time.Second) / cfg.rate)
	pace:
		for !over(sent) {
			due := int64(time.Since(start).Seconds()*cfg.rate) + 1
			for sent < due && !over(sent) {
				at := start.Add(time.Duration(sent) * period)
				var c *chanState
				select {
				case c = <-idle:
				default:
					st.late.Add(1)
					select {
					case c = <-idle:
					case <-ctx.Done():
						break pace
					}
				}
				c.run <- at
				sent++
			}
			time.Sleep(max(period, 500*time.Microsecond))
		}
	} else {
		for !over(sent) {
			select {
			case c := <-idle:
				c.run <- time.Now()
				sent++
			case <-ctx.Done():
			}
		}
	}
	elapsed := time.Since(start)
	// Wait for the answers in flight: every channel idle again.
	for range chans {
		<-idle
	}
	for _, c := range chans {
		close(c.run)
	}
	wg.Wait()
	close(done)
	samplerDone.Wait()
	return elapsed
}

// sampleLoop prints a row every interval until done is closed.
func sampleLoop(interval time.Duration, start time.Time, st *stats, p *botProcess, w io.Writer, done <-chan struct{}) {
	fmt.Fprintf(w, "%8s %10s %8s %8s %8s %8s %6s %6s %8s %8s %6s\n",
		"t", "sent", "int/s", "moves/s", "p50ms", "p99ms", "errs", "cpu%", "rss_MB", "heap_MB", "gorout")
	t := time.NewTicker(interval)
	defer t.Stop()
	prevT, prevSent, prevMoves := start, int64(0), int64(0)
	prevLat := st.lat.snapshot()
	prevMem, _ := p.sample()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		now := time.Now()
		sent, moves := st.sent.Load(), st.moves.Load()
		lat := st.lat.snapshot()
		win := lat.since(prevLat)
		m, err := p.sample()
		if err != nil {
			fmt.Fprintln(w, "sample:", err)
			continue
		}
		dt := now.Sub(prevT).Seconds()
		errs := st.unanswered.Load() + st.internal.Load() + st.busy.Load() + st.refused.Load()
		fmt.Fprintf(w, "%8s %10d %8.0f %8.0f %8.2f %8.2f %6d %6.0f %8.1f %8.1f %6d\n",
			now.Sub(start).Round(time.Second), sent, float64(sent-prevSent)/dt, float64(moves-prevMoves)/dt,
			millis(win.percentile(0.5)), millis(win.percentile(0.99)), errs,
			100*(m.cpu-prevMem.cpu).Seconds()/dt, mb(m.rss), mb(m.heapInuse), m.goroutines)
		prevT, prevSent, prevMoves, prevLat, prevMem = now, sent, moves, lat, m
	}
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mb(b int64) float64             { return float64(b) / (1 << 20) }

// printReports prints the runs side by side.
func printReports(w io.Writer, cfg config, rs []*report) {
	if len(rs) == 0 {
		return
	}
	target := "closed loop, " + strconv.Itoa(cfg.concurrency) + " channels"
	if cfg.rate > 0 {
		target = fmt.Sprintf("%.0f/s over %d channels", cfg.rate, cfg.channels)
	}
	rows := [][]string{{"transport"}}
	add := func(name string, f func(r *report) string) {
		row := []string{name}
		for _, r := range rs {
			row = append(row, f(r))
		}
		rows = append(rows, row)
	}
	for _, r := range rs {
		rows[0] = append(rows[0], r.transport)
	}
	n := func(r *report) float64 { return float64(max(r.st.sent.Load(), 1)) }
	add("target", func(*report) string { return target })
	add("board", func(*report) string {
		how := "/ttt move"
		switch {
		case cfg.clicks:
			how = "clicks"
		case cfg.picker:
			how = "picker (row, then cell)"
		}
		return fmt.Sprintf("%d×%d, %d moves a game, by %s", cfg.size, cfg.size, movesPerGame(cfg.size), how)
	})
	add("players", func(*report) string {
		if cfg.pairs == "channel" {
			return "one pair per channel"
		}
		return "a new pair each game"
	})
	add("sent for", func(r *report) string { return r.elapsed.Round(time.Millisecond).String() })
	add("interactions", func(r *report) string { return strconv.FormatInt(r.st.sent.Load(), 10) })
	add("interactions/s", func(r *report) string { return fmt.Sprintf("%.0f", float64(r.st.sent.Load())/r.elapsed.Seconds()) })
	add("moves/s", func(r *report) string { return fmt.Sprintf("%.0f", float64(r.st.moves.Load())/r.elapsed.Seconds()) })
	add("games won", func(r *report) string { return strconv.FormatInt(r.st.games.Load(), 10) })
	add("latency p50", func(r *report) string { return fmt.Sprintf("%.2f ms", millis(r.lat.percentile(0.50))) })
	add("latency p90", func(r *report) string { return fmt.Sprintf("%.2f ms", millis(r.lat.percentile(0.90))) })
	add("latency p99", func(r *report) string { return fmt.Sprintf("%.2f ms", millis(r.lat.percentile(0.99))) })
	add("latency max", func(r *report) string { return fmt.Sprintf("%.2f ms", millis(r.lat.max)) })
	add("unanswered", func(r *report) string { return strconv.FormatInt(r.st.unanswered.Load(), 10) })
	add("errors/busy/refused", func(r *report) string {
		return fmt.Sprintf("%d / %d / %d", r.st.internal.Load(), r.st.busy.Load(), r.st.refused.Load())
	})
	add("late sends", func(r *report) string { return strconv.FormatInt(r.st.late.Load(), 10) })
	add("CPUs of bot / generator", func(r *report) string { return r.botCores + " / " + r.genCores })
	add("bot CPU", func(r *report) string {
		return fmt.Sprintf("%.1f s (%.0f%% of a core)", r.botCPU.Seconds(), 100*r.botCPU.Seconds()/r.elapsed.Seconds())
	})
	add("bot CPU/interaction", func(r *report) string { return fmt.Sprintf("%.0f µs", micros(r.botCPU)/n(r)) })
	add("  of which Ed25519", func(r *report) string {
		if r.transport != "http" {
			return "-"
		}
		return fmt.Sprintf("%.0f µs", micros(r.verify))
	})
	add("  beyond Ed25519", func(r *report) string {
		if r.transport != "http" {
			return fmt.Sprintf("%.0f µs", micros(r.botCPU)/n(r))
		}
		return fmt.Sprintf("%.0f µs", micros(r.botCPU)/n(r)-micros(r.verify))
	})
	if cfg.picker {
		add("bot CPU/move (row and cell)", func(r *report) string {
			return fmt.Sprintf("%.0f µs", micros(r.botCPU)/float64(max(r.st.moves.Load(), 1)))
		})
	}
	add("generator CPU/interaction", func(r *report) string { return fmt.Sprintf("%.0f µs", micros(r.genCPU)/n(r)) })
	add("CPU of bot/generator/others", func(r *report) string {
		pct := func(d time.Duration) float64 { return 100 * d.Seconds() / r.elapsed.Seconds() }
		return fmt.Sprintf("%.0f%% / %.0f%% / %.0f%% of a core", pct(r.botCPU), pct(r.genCPU), pct(r.otherCPU))
	})
	add("RSS start→end", func(r *report) string { return fmt.Sprintf("%.1f → %.1f MB", mb(r.memStart.rss), mb(r.memEnd.rss)) })
	add("RSS peak since the bot started", func(r *report) string { return fmt.Sprintf("%.1f MB", mb(r.memEnd.peak)) })
	add("RSS at end: anonymous + file", func(r *report) string {
		return fmt.Sprintf("%.1f + %.1f MB", mb(r.memEnd.anon), mb(r.memEnd.file))
	})
	add("heap in use start→end", func(r *report) string {
		return fmt.Sprintf("%.1f → %.1f MB", mb(r.memStart.heapInuse), mb(r.memEnd.heapInuse))
	})
	add("goroutines start→end", func(r *report) string {
		return fmt.Sprintf("%d → %d", r.memStart.goroutines, r.memEnd.goroutines)
	})
	add("REST edits/deletes taken", func(r *report) string {
		if r.transport != "http" {
			return "-"
		}
		return fmt.Sprintf("%d over %d connections", r.edits, r.restConns)
	})
	add("bot WARN/ERROR lines", func(r *report) string { return strconv.Itoa(r.logWarnings) })
	add("targets (5000 moves/s, p99<20ms, 0 unanswered)", func(r *report) string {
		var miss []string
		if float64(r.st.moves.Load())/r.elapsed.Seconds() < 5000 {
			miss = append(miss, "moves/s")
		}
		if r.lat.percentile(0.99) >= 20*time.Millisecond {
			miss = append(miss, "p99")
		}
		if r.st.unanswered.Load() > 0 {
			miss = append(miss, "unanswered")
		}
		if len(miss) == 0 {
			return "met"
		}
		return "missed: " + strings.Join(miss, ", ")
	})
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	fmt.Fprintln(w)
	for _, row := range rows {
		for i, cell := range row {
			pad := widths[i] - len([]rune(cell))
			if i == 0 {
				fmt.Fprintf(w, "%s%s", cell, strings.Repeat(" ", pad))
			} else {
				fmt.Fprintf(w, "  %s%s", strings.Repeat(" ", pad), cell)
			}
		}
		fmt.Fprintln(w)
	}
	for _, r := range rs {
		for _, e := range r.st.errors {
			fmt.Fprintf(w, "%s: %s\n", r.transport, e)
		}
		for _, l := range r.logFirst {
			fmt.Fprintf(w, "%s bot log: %s\n", r.transport, l)
		}
	}
}
