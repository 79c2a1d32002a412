package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// crashKills is how many times TestCrashRecovery kills the bot while games
// are being played (start-up kills come on top): 50 with -soak (as .ci/run
// runs it, without -race), 4 in the README's go test -race ./... .
func crashKills() int {
	if *soak {
		return 50
	}
	return 4
}

// crashSeedEnv replays one run of TestCrashRecovery: the same choices of
// channels, moves and kill points (the bot's own timing and its computer
// player's seed still vary).
const crashSeedEnv = "TTT_CRASH_SEED"

// The real binary is killed with SIGKILL at random points of play, at
// least crashKills times, and restarted each time on the same SQLite file
// and the same fake Discord (a new gateway connection each time). Four
// channels play: two against the computer, two between people (challenge
// and accept, or rematch). Sometimes the bot is killed right after an
// answer, sometimes with interactions on their way to it, sometimes during
// its start-up.
//
// Checked: every move the bot answered with a board is in the database,
// at the place the board showed it, and no two answers claim the same
// move (answers that arrived while the bot died are checked at the end);
// after each restart every stored game replays without fault and ends as
// its board says (checked by the judge and by brute force), and /ttt board
// shows exactly the stored game; games never go back and a running game
// is never replaced; at the end, after every game is finished, each
// player's stats count each ended game exactly once.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the bot binary many times")
	}
	t.Parallel() // it mostly waits for processes
	seed := testSeed(t, crashSeedEnv)
	botBinary(t) // built before the clock starts
	began := time.Now()

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	srv := discordtest.NewServer("crash-secret-token-" + strconv.FormatUint(seed, 36))
	t.Cleanup(srv.Close) // after the processes' cleanups, which kill them
	r := &crashRig{
		t: t, ctx: ctx, rng: seededRand(seed),
		srv: srv, guild: srv.NewID(), dbPath: filepath.Join(t.TempDir(), "tttbot.db"),
		members: map[string]discordtest.Member{}, answers: map[string][]*moveAnswer{},
		dirty: map[string]bool{}, seen: map[string]bool{},
	}
	t.Cleanup(r.closeDB)
	r.env = map[string]string{
		"DISCORD_TOKEN":    srv.Token,
		"DISCORD_API_URL":  srv.APIURL,
		"DISCORD_GUILD_ID": r.guild,
		"DATABASE_URL":     r.dbPath,
		"LOG_LEVEL":        "debug",
	}
	member := func(name string) discordtest.Member {
		m := srv.NewMember(name)
		r.members[m.User.ID] = m
		return m
	}
	r.tables = []*crashTable{
		{computer: true, size: 3, win: 3, levels: []string{"easy", "medium", "hard"}},
		{computer: true, size: 4, win: 3, levels: []string{"easy", "medium"}},
		{size: 3, win: 3},
		{size: 4, win: 3},
	}
	for i, tb := range r.tables {
		tb.channel = srv.NewID()
		tb.players = []discordtest.Member{member(fmt.Sprintf("p%da", i))}
		if !tb.computer {
			tb.players = append(tb.players, member(fmt.Sprintf("p%db", i)))
		}
	}
	defer func() {
		if t.Failed() && r.bot != nil {
			t.Logf("log of the last bot process:\n%s", r.bot.tail(8000))
		}
	}()

	for r.kills < crashKills() {
		r.launch()
		r.verify()
		for range r.rng.IntN(5) {
			r.step(r.table())
		}
		if r.rng.IntN(5) < 3 {
			r.inFlight()
		}
		r.kill()
	}
	r.launch()
	r.verify()
	for _, tb := range r.tables {
		for g := r.current(tb); g == nil || g.Running(); g = r.current(tb) {
			r.step(tb)
		}
	}
	r.closeDB()
	if err := r.bot.stop(ctx); err != nil {
		t.Errorf("after SIGTERM the bot exited with %v; want status 0", err)
	}
	r.final()
	t.Logf("%d kills during play, %d during start-up; %d games, %d moves answered, of %d interactions in flight at a kill %d were answered; %v",
		r.kills, r.startupKills, len(r.seen), r.answered(), len(r.pending), r.lateAnswers, time.Since(began).Round(time.Millisecond))
}

// crashRig is TestCrashRecovery's state: the bot process of the moment,
// the test's own connection to its database, and everything the bot
// answered so far.
type crashRig struct {
	t      *testing.T
	ctx    context.Context
	rng    *rand.Rand
	srv    *discordtest.Server
	guild  string
	dbPath string
	env    map[string]string
	bot    *botProcess
	// db is open while a bot runs and closed before it is killed, so that
	// each new process finds the write-ahead log of a crash, not one that
	// another connection keeps in order.
	db      *store.SQLite
	tables  []*crashTable
	members map[string]discordtest.Member // by user id

	answers map[string][]*moveAnswer // boards that answered moves, by game
	dirty   map[string]bool          // games with answers since the last check
	pending []*inFlight              // interactions sent just before a kill
	// startBoards answered starts and accepts in flight at a kill.
	startBoards []shownBoard
	seen        map[string]bool // every game id seen

	kills, startupKills, lateAnswers int
}

// crashTable is one channel and who plays there.
type crashTable struct {
	channel   string
	players   []discordtest.Member // one against the computer, else two
	computer  bool
	size, win int
	levels    []string // the computer's difficulties to pick from

	gameID string               // the channel's current game, as last seen
	last   *discordtest.Message // the newest board message seen
	// challenge is the newest challenge message: a challenge survives a
	// kill, and its Accept is clicked afterwards.
	challenge *discordtest.Message
}

// moveAnswer is a public board that answered a move.
type moveAnswer struct {
	board shownBoard
	user  string
	cell  game.Cell
}

// inFlight is an interaction sent to a bot that was killed before the
// test looked at its answer.
type inFlight struct {
	in   *discordtest.Interaction
	move bool // a move (else a start or an accept)
	user string
	cell game.Cell
}

func (r *crashRig) table() *crashTable { return r.tables[r.rng.IntN(len(r.tables))] }

// launch starts a bot, sometimes killing one or more during start-up
// first, and opens the test's connection to the database once it is ready.
func (r *crashRig) launch() {
	r.t.Helper()
	for r.rng.IntN(8) == 0 {
		p := startBotProcess(r.t, fmt.Sprintf("bot %d (killed starting)", r.kills+r.startupKills+1), r.env)
		if r.rng.IntN(2) == 0 {
			if err := p.waitLog(r.ctx, "msg=configuration"); err != nil {
				r.t.Fatal(err)
			}
		}
		p.kill()
		r.startupKills++
	}
	r.bot = startBotProcess(r.t, fmt.Sprintf("bot %d", r.kills+r.startupKills+1), r.env)
	if err := r.bot.waitReady(r.ctx); err != nil {
		r.t.Fatalf("after %d kills: %v\nlog:\n%s", r.kills, err, r.bot.tail(4000))
	}
	db, err := store.OpenSQLite(r.dbPath)
	if err != nil {
		r.t.Fatalf("open the database beside the bot: %v", err)
	}
	r.db = db
}

func (r *crashRig) closeDB() {
	if r.db != nil {
		if err := r.db.Close(); err != nil {
			r.t.Errorf("close the database: %v", err)
		}
		r.db = nil
	}
}

func (r *crashRig) kill() {
	r.closeDB()
	r.bot.kill()
	r.kills++
}

// send sends in and returns its answer, failing the test if there is none.
func (r *crashRig) send(in *discordtest.Interaction) *discordtest.Response {
	r.t.Helper()
	if err := r.srv.Send(r.ctx, in); err != nil {
		r.t.Fatalf("send: %v", err)
	}
	resp, err := in.Response(r.ctx)
	if err != nil {
		r.t.Fatalf("after %d kills, no answer to %s: %v", r.kills, describeInteraction(in), err)
	}
	return resp
}

// public checks that resp is a public board of type typ and reads it.
func (r *crashRig) public(in *discordtest.Interaction, resp *discordtest.Response, typ discordgo.InteractionResponseType) shownBoard {
	r.t.Helper()
	if resp.Ephemeral || resp.Type != typ {
		r.t.Fatalf("after %d kills, %s was answered with type %d, ephemeral %v: %q; want a public board of type %d",
			r.kills, describeInteraction(in), resp.Type, resp.Ephemeral, resp.Message.Content, typ)
	}
	b, err := readBoard(resp.Message)
	if err != nil {
		r.t.Fatalf("after %d kills, %s: %v", r.kills, describeInteraction(in), err)
	}
	return b
}

// current reads the channel's current game from the database and checks
// it: a game the rules allow, and never an older one than seen before, nor
// one that replaced a game still running.
func (r *crashRig) current(tb *crashTable) *store.Game {
	r.t.Helper()
	g, err := r.db.Current(r.ctx, tb.channel)
	if err != nil {
		r.t.Fatalf("Current(%s): %v", tb.channel, err)
	}
	if g == nil {
		if tb.gameID != "" {
			r.t.Fatalf("after %d kills, channel %s has no game; it had game %s", r.kills, tb.channel, tb.gameID)
		}
		return nil
	}
	if err := checkStored(g); err != nil {
		r.t.Fatalf("after %d kills: %v", r.kills, err)
	}
	if tb.gameID != "" && g.ID != tb.gameID {
		old, err := r.db.Game(r.ctx, tb.gameID)
		switch {
		case err != nil:
			r.t.Fatal(err)
		case old == nil:
			r.t.Fatalf("after %d kills, game %s of channel %s is gone", r.kills, tb.gameID, tb.channel)
		case old.Running():
			r.t.Fatalf("after %d kills, channel %s has game %s while its game %s still runs", r.kills, tb.channel, g.ID, old.ID)
		case g.StartedAt.Before(old.StartedAt):
			r.t.Fatalf("after %d kills, channel %s went back from game %s to the older %s", r.kills, tb.channel, old.ID, g.ID)
		}
	}
	tb.gameID = g.ID
	r.seen[g.ID] = true
	return g
}

// step plays one move, or starts a game if none runs, and waits for the
// answer.
func (r *crashRig) step(tb *crashTable) {
	r.t.Helper()
	if g := r.current(tb); g != nil && g.Running() {
		r.move(tb, g)
	} else {
		r.newGame(tb, g)
	}
}

// toMove returns the user to move in g and a free cell, at random.
func (r *crashRig) toMove(g *store.Game) (string, game.Cell) {
	j, err := replayStored(g, len(g.Moves))
	if err != nil {
		r.t.Fatal(err)
	}
	var free []game.Cell
	for row := range g.Size {
		for col := range g.Size {
			if j.At(row, col) == game.None {
				free = append(free, game.Cell{Row: row, Col: col})
			}
		}
	}
	return g.Players[j.Turn()], free[r.rng.IntN(len(free))]
}

func (r *crashRig) moveCommand(tb *crashTable, user string, c game.Cell) *discordtest.Interaction {
	return r.srv.SlashCommand(r.guild, tb.channel, r.members[user], "ttt",
		discordtest.Sub("move", discordtest.Int("row", int64(c.Row+1)), discordtest.Int("col", int64(c.Col+1))))
}

func (r *crashRig) move(tb *crashTable, g *store.Game) {
	r.t.Helper()
	user, cell := r.toMove(g)
	in := r.moveCommand(tb, user, cell)
	resp := r.send(in)
	b := r.public(in, resp, discordgo.InteractionResponseChannelMessageWithSource)
	next := r.current(tb)
	if next.ID != g.ID {
		r.t.Fatalf("after %d kills, a move in game %s left game %s current", r.kills, g.ID, next.ID)
	}
	side := sideOfUser(next, user)
	k, err := moveShown(b, next, side, cell)
	if err != nil {
		r.t.Fatalf("after %d kills: %v", r.kills, err)
	}
	// Nothing else happened meanwhile: the answer shows the game as stored.
	if k != len(next.Moves) || k <= len(g.Moves) || !slices.Equal(next.Moves[:len(g.Moves)], g.Moves) {
		r.t.Fatalf("after %d kills, game %s had moves %v; after %s it has %v, and the answer shows %d",
			r.kills, g.ID, g.Moves, describeInteraction(in), next.Moves, k)
	}
	r.answers[g.ID] = append(r.answers[g.ID], &moveAnswer{board: b, user: user, cell: cell})
	r.dirty[g.ID] = true
	tb.last = &resp.Message
}

// newGame starts a game in the channel, whose game prev (nil if none) is
// over: a rematch from its board, or /ttt start, or a challenge accepted.
func (r *crashRig) newGame(tb *crashTable, prev *store.Game) {
	r.t.Helper()
	who := tb.players[r.rng.IntN(len(tb.players))]
	if prev != nil && tb.last != nil && r.rng.IntN(2) == 0 && r.openChallenge(tb) == nil {
		if b, err := readBoard(*tb.last); err == nil && b.gameID == prev.ID {
			// The board may have lost its buttons to a newer message by
			// now: click it as a client that has not seen the edit yet.
			in := r.srv.Click(r.guild, tb.channel, who, tb.last.ID, "rematch/"+prev.ID).Unchecked()
			g := r.started(tb, in, r.send(in), discordgo.InteractionResponseChannelMessageWithSource, prev)
			if g.First != prev.First.Other() || g.Players != prev.Players {
				r.t.Fatalf("rematch of game %s (%v first, players %v) is game %s with %v first, players %v",
					prev.ID, prev.First, prev.Players, g.ID, g.First, g.Players)
			}
			return
		}
	}
	if tb.computer {
		in := r.startCommand(tb)
		r.started(tb, in, r.send(in), discordgo.InteractionResponseChannelMessageWithSource, prev)
		return
	}
	in := r.acceptClick(tb)
	g := r.started(tb, in, r.send(in), discordgo.InteractionResponseUpdateMessage, prev)
	if sideOfUser(g, in.Member.User.ID) != game.O {
		r.t.Fatalf("the accepted challenge is game %s with players %v; want %s as O", g.ID, g.Players, in.Member.User.ID)
	}
}

func (r *crashRig) startCommand(tb *crashTable) *discordtest.Interaction {
	return r.srv.SlashCommand(r.guild, tb.channel, tb.players[0], "ttt", discordtest.Sub("start",
		discordtest.Int("size", int64(tb.size)), discordtest.Int("win", int64(tb.win)),
		discordtest.Str("difficulty", tb.levels[r.rng.IntN(len(tb.levels))])))
}

// acceptClick has one player challenge the other, waits for the
// challenge, and returns the other's click on Accept, not sent yet.
func (r *crashRig) acceptClick(tb *crashTable) *discordtest.Interaction {
	r.t.Helper()
	if c := r.openChallenge(tb); c != nil {
		// Posted before a kill and still open: accept that one.
		if tb.challenge == nil || !strings.Contains(tb.challenge.Content, "challenges "+mentionID(c.To)) {
			r.t.Fatalf("after %d kills, channel %s has challenge %s open, which the test never saw posted", r.kills, tb.channel, c.ID)
		}
		return r.srv.Click(r.guild, tb.channel, r.members[c.To], tb.challenge.ID, "accept/"+c.ID)
	}
	i := r.rng.IntN(2)
	from, to := tb.players[i], tb.players[1-i]
	in := r.srv.SlashCommand(r.guild, tb.channel, from, "ttt", discordtest.Sub("start",
		discordtest.User("opponent", to), discordtest.Int("size", int64(tb.size)), discordtest.Int("win", int64(tb.win))))
	resp := r.send(in)
	if resp.Ephemeral || !strings.Contains(resp.Message.Content, "challenges "+mentionID(to.User.ID)) {
		r.t.Fatalf("after %d kills, %s was answered %q; want a public challenge", r.kills, describeInteraction(in), resp.Message.Content)
	}
	tb.challenge = &resp.Message
	return r.srv.Click(r.guild, tb.channel, to, resp.Message.ID, button(r.t, resp.Message, -1, 0, "accept/"))
}

// openChallenge returns the channel's stored open challenge, or nil.
func (r *crashRig) openChallenge(tb *crashTable) *store.Challenge {
	r.t.Helper()
	c, err := r.db.Challenge(r.ctx, tb.channel)
	if err != nil {
		r.t.Fatalf("Challenge(%s): %v", tb.channel, err)
	}
	return c
}

// started checks the answer to what started a new game: a public board of
// a new game, current in the channel, shown as stored.
func (r *crashRig) started(tb *crashTable, in *discordtest.Interaction, resp *discordtest.Response, typ discordgo.InteractionResponseType, prev *store.Game) *store.Game {
	r.t.Helper()
	b := r.public(in, resp, typ)
	g := r.current(tb)
	switch {
	case g == nil:
		r.t.Fatalf("after %d kills, %s was answered with a board of game %s, but the channel has no game", r.kills, describeInteraction(in), b.gameID)
	case g.ID != b.gameID:
		r.t.Fatalf("after %d kills, %s was answered with a board of game %s, but game %s is current", r.kills, describeInteraction(in), b.gameID, g.ID)
	case prev != nil && g.ID == prev.ID:
		r.t.Fatalf("after %d kills, %s showed the old game %s", r.kills, describeInteraction(in), g.ID)
	case !g.Running():
		r.t.Fatalf("after %d kills, the new game %s has ended (%s)", r.kills, g.ID, g.End)
	}
	if k, err := shownPrefix(b, g); err != nil || k != len(g.Moves) {
		r.t.Fatalf("after %d kills, new game %s shown with %d of its %d moves: %v", r.kills, g.ID, k, len(g.Moves), err)
	}
	tb.last = &resp.Message
	return g
}

// inFlight sends one to three interactions and returns without waiting
// for their answers, or after the first one: the bot is killed next.
func (r *crashRig) inFlight() {
	r.t.Helper()
	var sent []*inFlight
	starting := map[*crashTable]bool{} // a game may be starting there: no more for now
	for range 1 + r.rng.IntN(3) {
		tb := r.table()
		if starting[tb] {
			continue
		}
		f := &inFlight{}
		switch g := r.current(tb); {
		case g != nil && g.Running():
			f.move = true
			f.user, f.cell = r.toMove(g)
			f.in = r.moveCommand(tb, f.user, f.cell)
		case tb.computer:
			f.in = r.startCommand(tb)
			starting[tb] = true
		default:
			f.in = r.acceptClick(tb)
			starting[tb] = true
		}
		if err := r.srv.Send(r.ctx, f.in); err != nil {
			r.t.Fatalf("send: %v", err)
		}
		sent = append(sent, f)
	}
	if r.rng.IntN(3) == 0 {
		if _, err := sent[0].in.Response(r.ctx); err != nil {
			r.t.Fatalf("no answer to %s: %v", describeInteraction(sent[0].in), err)
		}
	}
	r.pending = append(r.pending, sent...)
}

// verify runs after each restart: every channel's stored game is sound
// and /ttt board shows it as stored; every move answered since the last
// check is stored as its answer showed it.
func (r *crashRig) verify() {
	r.t.Helper()
	for _, tb := range r.tables {
		g := r.current(tb)
		if g == nil {
			continue
		}
		in := r.srv.SlashCommand(r.guild, tb.channel, tb.players[0], "ttt", discordtest.Sub("board"))
		resp := r.send(in)
		if c := r.openChallenge(tb); c != nil && !g.Running() {
			// A challenge outlived the kill: /ttt board points at it.
			if !resp.Ephemeral || !strings.Contains(resp.Message.Content, "challenge to "+mentionID(c.To)+" is waiting") {
				r.t.Fatalf("after %d kills, with challenge %s open, /ttt board answered %q", r.kills, c.ID, resp.Message.Content)
			}
			continue
		}
		b := r.public(in, resp, discordgo.InteractionResponseChannelMessageWithSource)
		if k, err := shownPrefix(b, g); err != nil || k != len(g.Moves) {
			r.t.Fatalf("after %d kills, /ttt board shows %d of the %d moves of game %s: %v", r.kills, k, len(g.Moves), g.ID, err)
		}
		tb.last = &resp.Message
	}
	for id := range r.dirty {
		r.checkAnswers(id)
	}
	clear(r.dirty)
}

// checkAnswers checks the answers to moves of a game against what is
// stored now.
func (r *crashRig) checkAnswers(id string) {
	r.t.Helper()
	g, err := r.db.Game(r.ctx, id)
	if err != nil || g == nil {
		r.t.Fatalf("after %d kills, game %s, which has answered moves, cannot be read: %v", r.kills, id, err)
	}
	if err := checkStored(g); err != nil {
		r.t.Fatalf("after %d kills: %v", r.kills, err)
	}
	shown := map[int]bool{}
	for _, a := range r.answers[id] {
		k, err := moveShown(a.board, g, sideOfUser(g, a.user), a.cell)
		if err != nil {
			r.t.Fatalf("after %d kills, an answered move is not stored as it was shown: %v", r.kills, err)
		}
		if shown[k] {
			r.t.Fatalf("after %d kills, two moves of game %s were both answered with a board of %d moves %v", r.kills, id, k, g.Moves[:k])
		}
		shown[k] = true
	}
}

func (r *crashRig) answered() int {
	n := 0
	for _, as := range r.answers {
		n += len(as)
	}
	return n
}

// final runs once the last bot has exited: the answers that came while
// bots died are known now and must be stored as shown, no game runs, and
// the stats count every ended game exactly once.
func (r *crashRig) final() {
	r.t.Helper()
	for _, f := range r.pending {
		resp, err := f.in.Response(r.ctx)
		if errors.Is(err, discordtest.ErrInteractionFailed) {
			continue // the bot died before answering: the user saw "This interaction failed"
		}
		if err != nil {
			r.t.Fatal(err)
		}
		r.lateAnswers++
		if resp.Ephemeral {
			if strings.Contains(resp.Message.Content, "Something went wrong") {
				r.t.Errorf("%s was answered %q", describeInteraction(f.in), resp.Message.Content)
			}
			continue
		}
		b, err := readBoard(resp.Message)
		if err != nil {
			r.t.Fatalf("%s: %v", describeInteraction(f.in), err)
		}
		if f.move {
			r.answers[b.gameID] = append(r.answers[b.gameID], &moveAnswer{board: b, user: f.user, cell: f.cell})
		} else {
			r.startBoards = append(r.startBoards, b)
		}
		r.dirty[b.gameID] = true
		r.seen[b.gameID] = true
	}

	db, err := store.OpenSQLite(r.dbPath)
	if err != nil {
		r.t.Fatal(err)
	}
	r.db = db
	for id := range r.seen {
		r.checkAnswers(id) // also for games whose start was answered late: they must exist
	}
	for _, b := range r.startBoards {
		g, err := r.db.Game(r.ctx, b.gameID)
		if err != nil {
			r.t.Fatal(err)
		}
		if _, err := shownPrefix(b, g); err != nil {
			r.t.Errorf("a game started as a bot died: %v", err)
		}
	}
	if running, err := r.db.Running(r.ctx); err != nil || len(running) != 0 {
		r.t.Errorf("every game was played to its end, but %d still run (%v)", len(running), err)
	}
	users := []string{r.srv.BotUser.ID}
	for id := range r.members {
		users = append(users, id)
	}
	ended := checkStatsMatchGames(r.ctx, r.t, r.db, r.guild, users)
	for id := range r.seen {
		if ended[id] == nil {
			r.t.Errorf("game %s is not in its players' history", id)
		}
	}
	for _, q := range r.srv.Unhandled() {
		r.t.Errorf("the bot called an endpoint Discord does not have: %s %s", q.Method, q.Path)
	}
}
