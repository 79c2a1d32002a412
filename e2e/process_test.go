package e2e

// Helpers for the tests that run the real tttbot binary as a child process
// against fake Discord servers (package discordtest) and read its database
// directly: the binary is built once per test run, each process gets
// exactly the environment a test gives it, and a test can wait for it to be
// ready, kill it (SIGKILL, as a crash) or stop it (SIGTERM).
//
// And the checks those tests share, which trust neither the bot nor the
// store: what a board answer shows (read from its buttons), whether it is
// a prefix of the stored game, and whether a stored game is one the rules
// allow (replayed by the judge, and its result checked by brute force).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/internal/logtest"
	"github.com/tttbot/tttbot/internal/parallel"
	"github.com/tttbot/tttbot/store"
)

// builtBot is the binary shared by every test of one run; TestMain
// removes its directory.
var builtBot struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// soak runs the long process tests (TestCrashRecovery,
// TestTwoProcessesOnePostgres) at full length; .ci/run does, without
// -race, whose instrumentation would slow the test process and the bot.
var soak = flag.Bool("soak", false, "run the crash and replica soaks at full length")

// e2eParallel is how many tests run at once when -test.parallel is not
// given: most of an e2e test's time is spent waiting on the bot and the
// fake Discord, not on a CPU (a stop alone waits out the bot's 2 s drain
// after SIGTERM), so GOMAXPROCS (the default) leaves a small machine idle.
// On 2 cores under -race the package uses about 50 s of CPU whatever
// this is, and takes 77 s at 4, 53 s at 8.
const e2eParallel = 8

func TestMain(m *testing.M) {
	flag.Parse()
	parallel.AtLeast(e2eParallel)
	code := m.Run()
	if builtBot.dir != "" {
		os.RemoveAll(builtBot.dir)
	}
	os.Exit(code)
}

// botBinary returns the path of tttbot built from the module's root
// package (with -race when this test binary runs under the race detector),
// building it on first use.
func botBinary(t testing.TB) string {
	t.Helper()
	builtBot.once.Do(func() {
		dir, err := os.MkdirTemp("", "tttbot-test-bin-")
		if err != nil {
			builtBot.err = err
			return
		}
		builtBot.dir = dir
		path := filepath.Join(dir, "tttbot")
		args := []string{"build", "-o", path}
		if raceBuild {
			args = append(args, "-race")
		}
		args = append(args, "github.com/tttbot/tttbot")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			builtBot.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtBot.path = path
	})
	if builtBot.err != nil {
		t.Fatal(builtBot.err)
	}
	return builtBot.path
}

// botProcess is one running tttbot binary.
type botProcess struct {
	name   string
	cmd    *exec.Cmd
	logs   *logtest.Buffer // stdout and stderr
	exited chan struct{}
	err    error // what Wait returned; read after exited is closed
}

// startBotProcess starts the binary with exactly env (nothing of the
// test's own environment) in an empty working directory, so that no .env
// file is read. It does not wait for the bot to be ready. At cleanup the
// process is killed if it still runs, and its log is checked for the
// token.
func startBotProcess(t testing.TB, name string, env map[string]string) *botProcess {
	t.Helper()
	return startBotProcessLogging(t, name, env, new(logtest.Buffer))
}

// startBotProcessLogging is startBotProcess writing the process's log
// into logs, which may already hold the log of an earlier process.
func startBotProcessLogging(t testing.TB, name string, env map[string]string, logs *logtest.Buffer) *botProcess {
	t.Helper()
	cmd := exec.Command(botBinary(t))
	cmd.Dir = t.TempDir()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	slices.Sort(cmd.Env)
	p := &botProcess{name: name, cmd: cmd, logs: logs, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.kill()
		if tok := env["DISCORD_TOKEN"]; tok != "" && strings.Contains(p.logs.String(), tok) {
			t.Errorf("%s: the token appears in the log", name)
		}
	})
	return p
}

// waitLog waits until the process's log contains sub. It fails at once if
// the process exits first.
func (p *botProcess) waitLog(ctx context.Context, sub string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := p.logs.WaitFor(ctx, sub)
	if err == nil || strings.Contains(p.logs.String(), sub) {
		return nil
	}
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited (%v) before its log said %q", p.name, p.err, sub)
	default:
		return fmt.Errorf("%s: %w", p.name, err)
	}
}

// waitReady waits for the log line that says the bot is connected, has
// registered its commands and has restored its games.
func (p *botProcess) waitReady(ctx context.Context) error { return p.waitLog(ctx, "msg=ready") }

// listening returns the address the ready line gives for what
// (interactions, metrics).
func (p *botProcess) listening(t testing.TB, what string) string {
	t.Helper()
	return logtest.ReadyAddr(t, p.logs.String(), what)
}

// kill sends SIGKILL, as a crash or an OOM kill would, and waits until the
// process is gone. It may be called more than once.
func (p *botProcess) kill() {
	_ = p.cmd.Process.Kill() // os.ErrProcessDone once it has exited
	<-p.exited
}

// stop sends SIGTERM and waits for the process to exit; it returns what
// Wait returned (nil: exit status 0).
func (p *botProcess) stop(ctx context.Context) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.exited:
		return p.err
	case <-ctx.Done():
		p.kill()
		return fmt.Errorf("%s did not exit after SIGTERM: %w", p.name, ctx.Err())
	}
}

// stopBoth stops the two replicas at once (each waits out its 2 s drain
// after SIGTERM) and returns what each one's stop returned.
func stopBoth(ctx context.Context, procs [2]*botProcess) [2]error {
	var errs [2]error
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = p.stop(ctx) })
	}
	wg.Wait()
	return errs
}

// tail returns the last n bytes of the log, for failure messages.
func (p *botProcess) tail(n int) string {
	s := p.logs.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// mentionID is how boards name a user.
func mentionID(id string) string { return "<@" + id + ">" }

// shownBoard is what a board message shows, read from its buttons: the
// game they belong to and the mark in each occupied cell (0-based).
type shownBoard struct {
	gameID  string
	size    int
	marks   map[game.Cell]game.Player
	content string
}

// readBoard reads a board message of up to 4×4 (larger finished boards
// carry no cell buttons). Every cell button is named move/<game>/<serial>/
// <row>/<col>, 1-based, and shows ⬜, ❌ or ⭕.
func readBoard(m discordtest.Message) (shownBoard, error) {
	b := shownBoard{marks: map[game.Cell]game.Player{}, content: m.Content}
	cells := 0
	for _, bt := range m.Buttons() {
		parts := strings.Split(bt.CustomID, "/")
		switch {
		case len(parts) == 2 && parts[0] == "rematch":
		case len(parts) == 5 && parts[0] == "move":
			row, err1 := strconv.Atoi(parts[3])
			col, err2 := strconv.Atoi(parts[4])
			if err1 != nil || err2 != nil || row < 1 || col < 1 {
				return b, fmt.Errorf("board button %q: bad cell", bt.CustomID)
			}
			b.size = max(b.size, row, col)
			cells++
			var p game.Player
			switch name := emojiName(bt); name {
			case "⬜":
			case "❌":
				p = game.X
			case "⭕":
				p = game.O
			default:
				return b, fmt.Errorf("board button %q shows %q; want ⬜, ❌ or ⭕", bt.CustomID, name)
			}
			if p != game.None {
				b.marks[game.Cell{Row: row - 1, Col: col - 1}] = p
			}
		default:
			return b, fmt.Errorf("board has a button %q that is neither a cell nor Rematch", bt.CustomID)
		}
		if b.gameID == "" {
			b.gameID = parts[1]
		} else if b.gameID != parts[1] {
			return b, fmt.Errorf("board mixes the buttons of games %s and %s", b.gameID, parts[1])
		}
	}
	if b.gameID == "" || cells != b.size*b.size {
		return b, fmt.Errorf("message %s is not a board with cell buttons: %q, %d buttons", m.ID, m.Content, len(m.Buttons()))
	}
	return b, nil
}

func emojiName(b discordtest.Button) string {
	if b.Emoji == nil {
		return ""
	}
	return b.Emoji.Name
}

// replayStored replays the first k moves of g with the judge.
func replayStored(g *store.Game, k int) (*game.Judge, error) {
	moves := make([]game.Move, k)
	for i, m := range g.Moves[:k] {
		moves[i] = m.Move
	}
	return game.Replay(g.Size, moves, game.WinLength(g.Win), game.FirstPlayer(g.First))
}

// lineOf says, by brute force, whether p has win marks in a row on the
// board after moves (independent of the judge's counters).
func lineOf(size, win int, moves []store.Move, p game.Player) bool {
	board := make([]game.Player, size*size)
	for _, m := range moves {
		board[m.Row*size+m.Col] = m.Player
	}
	for r := range size {
		for c := range size {
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				n := 0
				for i := range win {
					rr, cc := r+i*d[0], c+i*d[1]
					if rr < 0 || rr >= size || cc < 0 || cc >= size || board[rr*size+cc] != p {
						break
					}
					n++
				}
				if n == win {
					return true
				}
			}
		}
	}
	return false
}

// checkStored reports what is wrong with a stored game: moves the judge
// refuses, an ending the board does not bear out (checked by brute force
// as well), or a game against the computer left waiting for the computer.
func checkStored(g *store.Game) error {
	if g.Size < 3 || g.Win < 3 || g.Win > g.Size || (g.First != game.X && g.First != game.O) {
		return fmt.Errorf("game %s: size %d, win %d, first %v", g.ID, g.Size, g.Win, g.First)
	}
	j, err := game.New(g.Size, game.WinLength(g.Win), game.FirstPlayer(g.First))
	if err != nil {
		return fmt.Errorf("game %s: %w", g.ID, err)
	}
	for i, m := range g.Moves {
		if j.Status() != game.InProgress {
			return fmt.Errorf("game %s went on after move %d, which made it %s (moves %v)", g.ID, i, j.Status(), g.Moves)
		}
		if _, err := j.Play(m.Row, m.Col, m.Player); err != nil {
			return fmt.Errorf("game %s: move %d is not a legal move: %w (moves %v)", g.ID, i, err, g.Moves)
		}
	}
	for k := 1; k < len(g.Moves); k++ {
		prefix := g.Moves[:k]
		if lineOf(g.Size, g.Win, prefix, game.X) || lineOf(g.Size, g.Win, prefix, game.O) {
			return fmt.Errorf("game %s: someone had a line after %d moves, yet %d were played", g.ID, k, len(g.Moves))
		}
	}
	var last game.Player
	if n := len(g.Moves); n > 0 {
		last = g.Moves[n-1].Player
	}
	lined := len(g.Moves) > 0 && lineOf(g.Size, g.Win, g.Moves, last)
	want := map[game.Ending]game.Status{
		game.EndNone: game.InProgress, game.EndWon: game.Won, game.EndDraw: game.Draw, game.EndDecided: game.DecidedDraw,
		game.EndResigned: game.InProgress, game.EndTimeout: game.InProgress, game.EndStopped: game.InProgress,
	}
	st, ok := want[g.End]
	switch {
	case !ok:
		return fmt.Errorf("game %s: unknown ending %d", g.ID, g.End)
	case j.Status() != st:
		return fmt.Errorf("game %s: ending %s, but replaying its %d moves gives %s", g.ID, g.End, len(g.Moves), j.Status())
	case (g.End == game.EndWon) != lined:
		return fmt.Errorf("game %s: ending %s, but the last mover has a line: %v", g.ID, g.End, lined)
	case g.End == game.EndWon && j.Winner() != last:
		return fmt.Errorf("game %s: the judge says %v won; the last move was %v's", g.ID, j.Winner(), last)
	case g.End == game.EndDraw && len(g.Moves) != g.Size*g.Size:
		return fmt.Errorf("game %s: a draw with %d of %d cells taken", g.ID, len(g.Moves), g.Size*g.Size)
	case g.Running() && g.Computer != game.None && j.Turn() == g.Computer:
		return fmt.Errorf("game %s is waiting for the computer's move", g.ID)
	case g.Running() && !g.EndedAt.IsZero():
		return fmt.Errorf("game %s runs but has an end time", g.ID)
	}
	return nil
}

// shownPrefix checks that board b shows the stored game g after its first
// k moves, for some k, with the status line those moves call for, and
// returns k.
func shownPrefix(b shownBoard, g *store.Game) (int, error) {
	if b.gameID != g.ID {
		return 0, fmt.Errorf("the board is of game %s; want %s", b.gameID, g.ID)
	}
	if b.size != g.Size {
		return 0, fmt.Errorf("board of game %s is %d×%d; the stored game is %d×%d", g.ID, b.size, b.size, g.Size, g.Size)
	}
	k := len(b.marks)
	if k > len(g.Moves) {
		return 0, fmt.Errorf("board of game %s shows %d marks; the stored game has only %d moves %v", g.ID, k, len(g.Moves), g.Moves)
	}
	for i, m := range g.Moves[:k] {
		if got := b.marks[game.Cell{Row: m.Row, Col: m.Col}]; got != m.Player {
			return 0, fmt.Errorf("board of game %s shows %d marks, but not the stored moves %v: move %d (%v) is not on it", g.ID, k, g.Moves, i, m.Move)
		}
	}
	j, err := replayStored(g, k)
	if err != nil {
		return 0, fmt.Errorf("game %s: %w", g.ID, err)
	}
	var want string
	switch {
	case k < len(g.Moves) && j.Status() != game.InProgress:
		return 0, fmt.Errorf("game %s went on after move %d, which made it %s", g.ID, k, j.Status())
	case j.Status() == game.Won:
		want = mentionID(g.Players[j.Winner()]) + " wins"
	case j.Status() == game.Draw || j.Status() == game.DecidedDraw:
		want = "Draw"
	case k == len(g.Moves) && g.End == game.EndStopped:
		want = "stopped"
	case k == len(g.Moves) && g.End == game.EndResigned:
		want = "resigned"
	case k == len(g.Moves) && g.End == game.EndTimeout:
		want = "did not move in time"
	default:
		want = mentionID(g.Players[j.Turn()]) + " to move"
	}
	if !strings.Contains(b.content, want) {
		return 0, fmt.Errorf("board of game %s after %d moves says %q; want it to say %q", g.ID, k, b.content, want)
	}
	return k, nil
}

// moveShown checks that the board answering a move of side at cell (0-based)
// shows that move as played: it is the last move shown, or the one before
// the computer's answer. It returns the number of moves shown.
func moveShown(b shownBoard, g *store.Game, side game.Player, cell game.Cell) (int, error) {
	k, err := shownPrefix(b, g)
	if err != nil {
		return 0, err
	}
	mine := func(i int) bool {
		return i >= 0 && g.Moves[i].Move == game.Move{Row: cell.Row, Col: cell.Col, Player: side}
	}
	switch {
	case mine(k - 1):
	case g.Computer != game.None && k >= 2 && g.Moves[k-1].Player == g.Computer && mine(k-2):
	default:
		return 0, fmt.Errorf("the answer to %v's move at row %d, column %d of game %s shows %d moves of %v, not ending with it",
			side, cell.Row+1, cell.Col+1, g.ID, k, g.Moves)
	}
	return k, nil
}

// statsReader is what the tests read to check stats.
type statsReader interface {
	Stats(ctx context.Context, guildID, userID string, minRated int) (store.Stats, error)
	History(ctx context.Context, guildID, userID string, limit int) ([]*store.Game, error)
}

// checkStatsMatchGames checks that each player's stats count exactly the
// ended games of the store's history, once each: games against people in
// People, games against the computer in Computer (both sides), stopped
// games nowhere. It returns the ended games by id.
func checkStatsMatchGames(ctx context.Context, t testing.TB, st statsReader, guild string, users []string) map[string]*store.Game {
	t.Helper()
	ended := map[string]*store.Game{}
	for _, u := range users {
		hist, err := st.History(ctx, guild, u, 0)
		if err != nil {
			t.Fatalf("History(%s): %v", u, err)
		}
		for _, g := range hist {
			ended[g.ID] = g
		}
	}
	type counts struct{ people, computer store.Record }
	want := map[string]*counts{}
	for _, u := range users {
		want[u] = &counts{}
	}
	var people, computer int
	for _, g := range ended {
		if err := checkStored(g); err != nil {
			t.Error(err)
		}
		if g.Running() || g.End == game.EndStopped {
			continue
		}
		if g.Computer != game.None {
			computer++
		} else {
			people++
		}
		for _, side := range []game.Player{game.X, game.O} {
			c := want[g.Players[side]]
			if c == nil {
				t.Errorf("game %s has a player %s the test does not know", g.ID, g.Players[side])
				continue
			}
			r := &c.people
			if g.Computer != game.None {
				r = &c.computer
			}
			r.Games++
			switch g.Winner() {
			case side:
				r.Wins++
			case side.Other():
				r.Losses++
			default:
				r.Draws++
			}
		}
	}
	var sumPeople, sumComputer int
	for _, u := range users {
		s, err := st.Stats(ctx, guild, u, 0)
		if err != nil {
			t.Fatalf("Stats(%s): %v", u, err)
		}
		sumPeople += s.People.Games
		sumComputer += s.Computer.Games
		if s.People != want[u].people || s.Computer != want[u].computer {
			t.Errorf("stats of %s: people %+v, computer %+v; the ended games say people %+v, computer %+v",
				u, s.People, s.Computer, want[u].people, want[u].computer)
		}
	}
	if sumPeople != 2*people || sumComputer != 2*computer {
		t.Errorf("stats count %d games against people and %d against the computer (both sides); %d and %d games ended, so want %d and %d",
			sumPeople, sumComputer, people, computer, 2*people, 2*computer)
	}
	return ended
}

// describeInteraction says who did what where, for failure messages.
func describeInteraction(in *discordtest.Interaction) string {
	what := "a click on " + in.CustomID
	if in.Type == discordgo.InteractionApplicationCommand {
		what = "/" + in.Name
		for _, o := range in.Options {
			what += " " + o.Name
			for _, oo := range o.Options {
				what += fmt.Sprintf(" %s:%v", oo.Name, oo.Value)
			}
		}
	}
	return fmt.Sprintf("%s by %s in channel %s", what, in.Member.User.Username, in.ChannelID)
}

// sideOfUser is the side user plays in g, or game.None (the computer's
// side belongs to nobody).
func sideOfUser(g *store.Game, user string) game.Player {
	for _, p := range []game.Player{game.X, game.O} {
		if g.Players[p] == user && g.Computer != p {
			return p
		}
	}
	return game.None
}

// testSeed returns the seed of a randomised test: the number in the
// environment variable env if set, else a new one. It logs how to run the
// test again with the same seed.
func testSeed(t testing.TB, env string) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(env); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: want a number", env, s)
		}
	}
	t.Logf("seed %d (run again with %s=%d)", seed, env, seed)
	return seed
}

// seededRand returns a generator whose whole sequence follows from seed.
func seededRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed>>1^0x9e3779b97f4a7c15))
}
