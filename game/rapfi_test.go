package game

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The match against a Gomocup engine (Rapfi, github.com/dhbloo/rapfi) that
// measures Hard and Medium on 15×15, five in a row. The engine is not part
// of the project: build it yourself (see issue 20) and name its binary in
// TTT_RAPFI. The full table, 40 games per level and setting:
//
//	TTT_RAPFI=/tmp/rapfi/Rapfi/build/rel/pbrain-rapfi nice -n 10 \
//	  go test ./game/ -run '^TestRapfi$' -v -timeout 2h -rapfi.openings 20
var (
	rapfiOpenings = flag.Int("rapfi.openings", 2, "TestRapfi: openings per level and engine setting, each played with both colours")
	rapfiLevels   = flag.String("rapfi.levels", "hard,medium", "TestRapfi: the levels to play, comma-separated")
	rapfiLimits   = flag.String("rapfi.limits", "depth1,nodes1500,nodes30000", "TestRapfi: the engine's settings, comma-separated: depthN (INFO max_depth N) or nodesN (INFO max_node N)")
	rapfiSeed     = flag.Uint64("rapfi.seed", 0, "TestRapfi: seed of the openings")
	rapfiLosses   = flag.Bool("rapfi.losses", false, "TestRapfi: print the moves of every game lost")
)

// rapfiBoard and rapfiK are the rules of the match: 15×15, five or more in
// a row wins (Gomocup's freestyle, INFO rule 0).
const (
	rapfiBoard = 15
	rapfiK     = 5
)

// TestRapfi plays Hard and Medium against the engine named by TTT_RAPFI,
// limited as -rapfi.limits says, from random openings of 2 to 4 stones near
// the centre, each played twice with the colours swapped, and logs the
// table and the CPU time of Hard's moves. It fails if the engine misbehaves
// (an illegal move, no answer), not on the scores, which it measures.
func TestRapfi(t *testing.T) {
	path := os.Getenv("TTT_RAPFI")
	if path == "" {
		t.Skip("TTT_RAPFI is unset: set it to the path of a pbrain engine (Rapfi, see issue 20) to play the match")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	openings := rapfiOpeningList(*rapfiSeed, *rapfiOpenings)
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-12s %7s %12s %12s %10s %10s\n", "level", "engine", "score", "first W-D-L", "second W-D-L", "cpu mean", "cpu worst")
	for _, name := range strings.Split(*rapfiLevels, ",") {
		l, err := ParseLevel(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range strings.Split(*rapfiLimits, ",") {
			info, err := rapfiLimit(limit)
			if err != nil {
				t.Fatal(err)
			}
			e, err := startEngine(path)
			if err != nil {
				t.Fatal(err)
			}
			var rc record
			var cpu cpuStats
			for j, opening := range openings {
				for side := range 2 {
					res, err := e.play(l, info, opening, side, uint64(j), &cpu)
					if err != nil {
						e.close()
						t.Fatalf("%v vs %s, opening %d, side %d: %v", l, limit, j, side, err)
					}
					switch res {
					case 1:
						rc.won[side]++
					case 0:
						rc.drawn[side]++
					default:
						rc.lost[side]++
					}
				}
			}
			e.close()
			score := (float64(rc.won[0]+rc.won[1]) + float64(rc.drawn[0]+rc.drawn[1])/2) / float64(rc.games())
			fmt.Fprintf(&table, "%-8v %-12s %6.1f%% %12s %12s %8.1fms %8.1fms\n", l, limit, 100*score,
				fmt.Sprintf("%d-%d-%d", rc.won[0], rc.drawn[0], rc.lost[0]),
				fmt.Sprintf("%d-%d-%d", rc.won[1], rc.drawn[1], rc.lost[1]),
				cpu.mean().Seconds()*1000, cpu.worst.Seconds()*1000)
			t.Logf("%v vs %s: %d games done", l, limit, rc.games())
		}
	}
	t.Logf("15×15, k=5, %d openings × 2 colours per row (first: the level moves first after the opening); CPU per move of the level, this process:\n%s", len(openings), table.String())
}

// rapfiLimit returns the INFO line of a -rapfi.limits entry.
func rapfiLimit(s string) (string, error) {
	for _, p := range []struct{ prefix, info string }{{"depth", "max_depth"}, {"nodes", "max_node"}} {
		if v, ok := strings.CutPrefix(s, p.prefix); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return fmt.Sprintf("INFO %s %d", p.info, n), nil
			}
		}
	}
	return "", fmt.Errorf("engine setting %q: want depthN or nodesN", s)
}

// rapfiOpeningList returns n openings: 2 to 4 stones, X first, on distinct
// random cells within three of the centre, none of them won.
func rapfiOpeningList(seed uint64, n int) [][]Cell {
	r := rand.New(rand.NewPCG(seed, 20))
	var list [][]Cell
	for len(list) < n {
		stones := 2 + r.IntN(3)
		var o []Cell
		for len(o) < stones {
			c := Cell{rapfiBoard/2 - 3 + r.IntN(7), rapfiBoard/2 - 3 + r.IntN(7)}
			if !slices.Contains(o, c) {
				o = append(o, c)
			}
		}
		list = append(list, o)
	}
	return list
}

// cpuStats sums the CPU time of moves.
type cpuStats struct {
	moves int
	total time.Duration
	worst time.Duration
}

func (c *cpuStats) add(d time.Duration) {
	c.moves++
	c.total += d
	c.worst = max(c.worst, d)
}

func (c *cpuStats) mean() time.Duration {
	if c.moves == 0 {
		return 0
	}
	return c.total / time.Duration(c.moves)
}

// cpuTime returns the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pbrain is a pbrain engine in a child process.
type pbrain struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // the engine's output, line by line; closed at its end
	log   []string    // the last lines read, for errors
	info  string      // the limit set last
}

// Patience with the engine: ABOUT is sent again after aboutRetry without
// an answer (Rapfi drops commands that arrive while it finishes a search),
// and the engine is given up after silence.
const (
	aboutRetry = 500 * time.Millisecond
	silence    = 2 * time.Minute
)

func startEngine(path string) (*pbrain, error) {
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	e := &pbrain{cmd: cmd, in: in, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			e.lines <- strings.TrimSpace(sc.Text())
		}
		close(e.lines)
	}()
	if err := e.send("START " + strconv.Itoa(rapfiBoard)); err != nil {
		return nil, err
	}
	if _, err := e.expect(func(s string) bool { return s == "OK" }, silence); err != nil {
		return nil, err
	}
	for _, s := range []string{"INFO rule 0", "INFO thread_num 1", "INFO timeout_turn 0", "INFO timeout_match 0"} {
		if err := e.send(s); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// send sends one command, after the engine has answered ABOUT: Rapfi
// drops a command that arrives while it still finishes its last search.
func (e *pbrain) send(lines ...string) error {
	about := func(s string) bool { return strings.HasPrefix(s, "name=") }
	for try := 0; ; try++ {
		if _, err := io.WriteString(e.in, "ABOUT\n"); err != nil {
			return err
		}
		_, err := e.expect(about, aboutRetry)
		if err == nil {
			break
		}
		if !errors.Is(err, errSilent) || time.Duration(try)*aboutRetry > silence {
			return err
		}
	}
	// Answers to the ABOUTs sent again may still come: read them now.
	for {
		select {
		case s, ok := <-e.lines:
			if !ok {
				return fmt.Errorf("engine stopped; last lines: %q", e.log)
			}
			e.remember(s)
			continue
		case <-time.After(10 * time.Millisecond):
		}
		break
	}
	_, err := io.WriteString(e.in, strings.Join(lines, "\n")+"\n")
	return err
}

// errSilent: the engine said nothing for a while.
var errSilent = errors.New("engine silent")

// expect reads lines until one satisfies ok, and returns it; it gives up
// after wait without a line.
func (e *pbrain) expect(ok func(string) bool, wait time.Duration) (string, error) {
	for {
		select {
		case s, open := <-e.lines:
			if !open {
				return "", fmt.Errorf("engine stopped; last lines: %q", e.log)
			}
			e.remember(s)
			if ok(s) {
				return s, nil
			}
			if strings.HasPrefix(s, "ERROR") {
				return "", fmt.Errorf("engine: %s", s)
			}
		case <-time.After(wait):
			return "", fmt.Errorf("%w for %v; last lines: %q", errSilent, wait, e.log)
		}
	}
}

// remember keeps the last lines of the engine, for errors.
func (e *pbrain) remember(s string) {
	e.log = append(e.log, s)
	if len(e.log) > 20 {
		e.log = e.log[1:]
	}
}

var moveLine = regexp.MustCompile(`^(\d+),(\d+)$`)

// play plays one game from opening, the level l moving first after the
// opening if side is 0, and returns 1, 0 or -1 for a win, draw or loss of
// the level; cpu gets the CPU time of its moves.
func (e *pbrain) play(l Level, info string, opening []Cell, side int, seed uint64, cpu *cpuStats) (int, error) {
	g, err := New(rapfiBoard, WinLength(rapfiK))
	if err != nil {
		return 0, err
	}
	for _, c := range opening {
		if _, err := g.Play(c.Row, c.Col, g.Turn()); err != nil {
			return 0, err
		}
	}
	mine := g.Turn()
	if side == 1 {
		mine = mine.Other()
	}
	if err := e.send("YXHASHCLEAR"); err != nil {
		return 0, err
	}
	if info != e.info {
		if err := e.send(info); err != nil {
			return 0, err
		}
		e.info = info
	}
	r := rand.New(rand.NewPCG(seed, uint64(side)))
	for !g.Status().Decided() {
		if g.Turn() == mine {
			t0 := cpuTime()
			c, err := ComputerMove(g, l, r)
			cpu.add(cpuTime() - t0)
			if err != nil {
				return 0, err
			}
			if _, err := g.Play(c.Row, c.Col, mine); err != nil {
				return 0, err
			}
			continue
		}
		c, err := e.move(g)
		if err != nil {
			return 0, err
		}
		if _, err := g.Play(c.Row, c.Col, g.Turn()); err != nil {
			return 0, fmt.Errorf("engine played %v after %v: %w", c, g.History(), err)
		}
	}
	switch g.Winner() {
	case mine:
		return 1, nil
	case None:
		return 0, nil
	}
	if *rapfiLosses {
		fmt.Printf("lost as %v to %s: %s\n", mine, info, historyCells(g))
	}
	return -1, nil
}

// move asks the engine for its move in g (its turn): the whole position,
// in the order played, as BOARD (x is the column; 1 the engine's stones).
func (e *pbrain) move(g *Judge) (Cell, error) {
	lines := []string{"BOARD"}
	for _, m := range g.History() {
		who := 2
		if m.Player == g.Turn() {
			who = 1
		}
		lines = append(lines, fmt.Sprintf("%d,%d,%d", m.Col, m.Row, who))
	}
	lines = append(lines, "DONE")
	if err := e.send(lines...); err != nil {
		return Cell{}, err
	}
	s, err := e.expect(moveLine.MatchString, silence)
	if err != nil {
		return Cell{}, err
	}
	m := moveLine.FindStringSubmatch(s)
	x, _ := strconv.Atoi(m[1])
	y, _ := strconv.Atoi(m[2])
	return Cell{y, x}, nil
}

func (e *pbrain) close() {
	e.send("END")
	e.in.Close()
	e.cmd.Wait()
}

// historyCells returns g's moves as row,col pairs separated by spaces.
func historyCells(g *Judge) string {
	var b strings.Builder
	for j, m := range g.History() {
		if j > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d,%d", m.Row, m.Col)
	}
	return b.String()
}
