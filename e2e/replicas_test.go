package e2e

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// replicasSeedEnv replays the choices of one run of
// TestTwoProcessesOnePostgres (the interleavings still vary).
const replicasSeedEnv = "TTT_REPLICAS_SEED"

// replicaRounds is how many times every channel of
// TestTwoProcessesOnePostgres gets a burst of simultaneous interactions.
// (20 with -soak, as .ci/run runs it without -race; 3 otherwise).
func replicaRounds() int {
	if *soak {
		return 20
	}
	return 3
}

// Two bot processes share one PostgreSQL database, each with a gateway
// connection to a fake Discord of its own: as if Discord delivered the
// interactions of the same channels, from the same users, to two replicas
// of one application. In five channels (three against the computer, two
// between people) games are started from both replicas at once (/ttt
// start, or Rematch clicked by both players), and bursts of moves go to
// both at once: the same player, the same cell or different cells, the
// other player too, and /ttt board, which saves as well.
//
// Checked: every interaction is answered, publicly or ephemerally, never
// with an internal error; of simultaneous starts exactly one makes a game,
// and a channel never has two running games; the stored moves are always
// a game the rules allow, extended and never rewritten; every move
// answered with a board is stored where the board shows it, no two answers
// claim the same move, and every stored move got a public answer (so at
// most one of two moves for the same turn is applied); at the end each
// player's stats count each ended game exactly once.
//
// Over the gateway each replica has a fake Discord of its own; over HTTP
// one fake Discord posts every interaction to a round-robin load balancer
// in front of both replicas' endpoints, as behind a real one.
func TestTwoProcessesOnePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel() // it mostly waits for processes
	for _, transport := range []string{"gateway", "http"} {
		t.Run(transport, func(t *testing.T) { runReplicas(t, transport == "http") })
	}
}

func runReplicas(t *testing.T, overHTTP bool) {
	dbURL := storetest.PostgresURL(t)
	seed := testSeed(t, replicasSeedEnv)
	rng := seededRand(seed)
	botBinary(t) // built before the clock starts
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// One application, two replicas: both fakes know the same bot user.
	srvA := discordtest.NewServer("replica-a-secret-token-" + strconv.FormatUint(seed, 36))
	t.Cleanup(srvA.Close)
	srvB := srvA
	if !overHTTP {
		srvB = discordtest.NewServer("replica-b-secret-token-" + strconv.FormatUint(seed, 36))
		t.Cleanup(srvB.Close)
		botUser := *srvA.BotUser
		srvB.BotUser, srvB.AppID = &botUser, srvA.AppID
	}
	// Every handler of the fake takes its lock before reading these
	// fields, and so does Requests: calling it orders the writes above
	// before the replica's first request, as the race detector sees it.
	srvB.Requests()
	x := &replicaRig{t: t, ctx: ctx, guild: srvA.NewID(), srv: [2]*discordtest.Server{srvA, srvB},
		members: map[string]discordtest.Member{}, shown: map[string]map[int]bool{}}

	// Both start at once on the empty schema: one migrates, the other waits.
	procs := startReplicas(t, ctx, func(i int) map[string]string {
		srv := x.srv[i]
		env := map[string]string{
			"DISCORD_TOKEN":    srv.Token,
			"DISCORD_API_URL":  srv.APIURL,
			"DISCORD_GUILD_ID": x.guild,
			"DATABASE_URL":     dbURL,
			"LOG_LEVEL":        "debug",
		}
		if overHTTP {
			env["INTERACTIONS_ADDR"], env["DISCORD_PUBLIC_KEY"] = "127.0.0.1:0", srv.PublicKey()
		}
		return env
	})
	if overHTTP {
		lb := roundRobin(t, procs[0].listening(t, "interactions"), procs[1].listening(t, "interactions"))
		srvA.UseEndpoint(lb + "/interactions")
	}
	db, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	x.db = db

	member := func(name string) discordtest.Member {
		m := srvA.NewMember(name) // the same user, whichever replica hears from them
		x.members[m.User.ID] = m
		return m
	}
	for i := range 5 {
		tb := &replicaTable{channel: srvA.NewID(), size: 3, win: 3, rng: mrand.New(mrand.NewPCG(rng.Uint64(), rng.Uint64()))}
		tb.players = []discordtest.Member{member(fmt.Sprintf("r%da", i))}
		switch i {
		case 0, 1, 2:
			tb.computer = true
			tb.level = []string{"easy", "medium", "hard"}[i]
		case 3:
			tb.players = append(tb.players, member(fmt.Sprintf("r%db", i)))
		case 4:
			tb.players = append(tb.players, member(fmt.Sprintf("r%db", i)))
			tb.size = 4
		}
		x.tables = append(x.tables, tb)
	}

	for round := range replicaRounds() {
		var wg sync.WaitGroup
		for _, tb := range x.tables {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := x.burst(tb); err != nil {
					t.Errorf("round %d, channel %s: %v", round, tb.channel, err)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		x.checkRunning()
	}

	users := []string{srvA.BotUser.ID}
	for id := range x.members {
		users = append(users, id)
	}
	ended := checkStatsMatchGames(ctx, t, db, x.guild, users)
	for i, err := range stopBoth(ctx, procs) {
		if err != nil {
			t.Errorf("after SIGTERM %s exited with %v; want status 0", procs[i].name, err)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	t.Logf("%d rounds: %d games (%d ended), %d interactions: %d moves answered with a board; ephemeral answers: %v; %v",
		replicaRounds(), len(x.shown), len(ended), x.sent, x.moves, x.said, time.Since(began).Round(time.Millisecond))
}

// replicaRig is the state of TestTwoProcessesOnePostgres. The channels
// play in goroutines of their own; what they share is under mu.
type replicaRig struct {
	t       *testing.T
	ctx     context.Context
	guild   string
	srv     [2]*discordtest.Server // replica A's Discord, replica B's
	db      *store.Postgres
	tables  []*replicaTable
	members map[string]discordtest.Member // by user id; read-only once play starts

	mu    sync.Mutex
	shown map[string]map[int]bool // game id → move counts that answers to moves showed
	sent  int
	moves int
	said  map[string]int // ephemeral answers by kind
}

// replicaTable is one channel; only its own goroutine touches it.
type replicaTable struct {
	channel   string
	players   []discordtest.Member
	computer  bool
	level     string
	size, win int
	rng       *mrand.Rand
}

// replicaRequest is one interaction of a burst and its answer.
type replicaRequest struct {
	in   *discordtest.Interaction
	srv  int // 0: replica A, 1: replica B
	kind string
	user string
	cell game.Cell // of a move, 0-based
	resp *discordtest.Response
	err  error
}

func (x *replicaRig) burst(tb *replicaTable) error {
	g, err := x.db.Current(x.ctx, tb.channel)
	if err != nil {
		return err
	}
	if g != nil {
		if err := checkStored(g); err != nil {
			return err
		}
	}
	if g == nil || !g.Running() {
		return x.startBurst(tb, g)
	}
	return x.moveBurst(tb, g)
}

// newest is the id of the newest public message in the channel on replica
// i's Discord, or "". A board that a newer one replaced is deleted, and the
// newest one is never being deleted: it is what players click.
func (x *replicaRig) newest(i int, channel string) string {
	msgs := x.srv[i].Messages(channel)
	for j := len(msgs) - 1; j >= 0; j-- {
		if !msgs[j].Ephemeral() {
			return msgs[j].ID
		}
	}
	return ""
}

// fire sends the requests at once, to their replicas, and waits for every
// answer.
func (x *replicaRig) fire(reqs []*replicaRequest) error {
	var wg sync.WaitGroup
	for _, q := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if q.err = x.srv[q.srv].Send(x.ctx, q.in); q.err == nil {
				q.resp, q.err = q.in.Response(x.ctx)
			}
		}()
	}
	wg.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.sent += len(reqs)
	if x.said == nil {
		x.said = map[string]int{}
	}
	for _, q := range reqs {
		if q.err != nil {
			return fmt.Errorf("%s to replica %d: no answer: %w", describeInteraction(q.in), q.srv, q.err)
		}
		typ := discordgo.InteractionResponseChannelMessageWithSource
		if q.kind == "accept" {
			typ = discordgo.InteractionResponseUpdateMessage
		}
		if q.resp.Ephemeral {
			typ = discordgo.InteractionResponseChannelMessageWithSource
		}
		if q.resp.Type != typ {
			return fmt.Errorf("%s was answered with type %d; want %d", describeInteraction(q.in), q.resp.Type, typ)
		}
		if !q.resp.Ephemeral {
			continue
		}
		text := q.resp.Message.Content
		kind := "other"
		for _, k := range []string{"The board changed", "not your turn", "already taken", "already running", "is over"} {
			if strings.Contains(text, k) {
				kind = k
			}
		}
		x.said[kind]++
		if strings.Contains(text, "Something went wrong") || strings.Contains(text, "restarting") {
			return fmt.Errorf("%s to replica %d was answered %q", describeInteraction(q.in), q.srv, text)
		}
	}
	return nil
}

// startBurst starts a game in the channel, whose game prev (nil if none)
// is over: from both replicas at once when it can (/ttt start against the
// computer, or Rematch clicked by both players), else by a challenge
// accepted through one replica.
func (x *replicaRig) startBurst(tb *replicaTable, prev *store.Game) error {
	var reqs []*replicaRequest
	switch {
	case tb.computer:
		for i := range x.srv {
			in := x.srv[i].SlashCommand(x.guild, tb.channel, tb.players[0], "ttt", discordtest.Sub("start",
				discordtest.Int("size", int64(tb.size)), discordtest.Int("win", int64(tb.win)), discordtest.Str("difficulty", tb.level)))
			reqs = append(reqs, &replicaRequest{in: in, srv: i, kind: "start"})
		}
	case prev != nil && x.newest(0, tb.channel) != "" && x.newest(1, tb.channel) != "" && tb.rng.IntN(3) > 0:
		// Rematch, clicked by each player on their replica's newest
		// message: the route names the game, whatever the message.
		for i := range x.srv {
			in := x.srv[i].Click(x.guild, tb.channel, tb.players[i], x.newest(i, tb.channel), "rematch/"+prev.ID).Unchecked()
			reqs = append(reqs, &replicaRequest{in: in, srv: i, kind: "rematch"})
		}
	default:
		i, s := tb.rng.IntN(2), tb.rng.IntN(2)
		from, to := tb.players[i], tb.players[1-i]
		in := x.srv[s].SlashCommand(x.guild, tb.channel, from, "ttt", discordtest.Sub("start",
			discordtest.User("opponent", to), discordtest.Int("size", int64(tb.size)), discordtest.Int("win", int64(tb.win))))
		q := &replicaRequest{in: in, srv: s, kind: "challenge"}
		if err := x.fire([]*replicaRequest{q}); err != nil {
			return err
		}
		if q.resp.Ephemeral || !strings.Contains(q.resp.Message.Content, "challenges "+mentionID(to.User.ID)) {
			return fmt.Errorf("%s was answered %q; want a public challenge", describeInteraction(in), q.resp.Message.Content)
		}
		accept := ""
		for _, b := range q.resp.Message.Buttons() {
			if strings.HasPrefix(b.CustomID, "accept/") {
				accept = b.CustomID
			}
		}
		in = x.srv[s].Click(x.guild, tb.channel, to, q.resp.Message.ID, accept)
		reqs = append(reqs, &replicaRequest{in: in, srv: s, kind: "accept"})
	}
	if err := x.fire(reqs); err != nil {
		return err
	}
	var won *replicaRequest
	for _, q := range reqs {
		if q.resp.Ephemeral {
			continue
		}
		if won != nil {
			return fmt.Errorf("%s and %s, sent at once, were both answered with a new board", describeInteraction(won.in), describeInteraction(q.in))
		}
		won = q
	}
	if won == nil {
		return fmt.Errorf("of %d simultaneous starts none started a game: %q", len(reqs), reqs[0].resp.Message.Content)
	}
	b, err := readBoard(won.resp.Message)
	if err != nil {
		return err
	}
	g, err := x.db.Current(x.ctx, tb.channel)
	switch {
	case err != nil:
		return err
	case g == nil || g.ID != b.gameID:
		return fmt.Errorf("%s was answered with a board of game %s, but the channel's game is %v", describeInteraction(won.in), b.gameID, g)
	case prev != nil && g.ID == prev.ID, !g.Running():
		return fmt.Errorf("%s showed game %s, which is not a new game", describeInteraction(won.in), g.ID)
	}
	if err := checkStored(g); err != nil {
		return err
	}
	if k, err := shownPrefix(b, g); err != nil || k != len(g.Moves) {
		return fmt.Errorf("new game %s shown with %d of its %d moves: %v", g.ID, k, len(g.Moves), err)
	}
	x.mu.Lock()
	x.shown[g.ID] = map[int]bool{}
	x.mu.Unlock()
	return nil
}

// moveBurst sends, at once: the player to move's move to replica A and to
// replica B (the same cell half the time), sometimes a third move of
// theirs, in games between people sometimes a move of the other player,
// and sometimes /ttt board.
func (x *replicaRig) moveBurst(tb *replicaTable, g *store.Game) error {
	j, err := replayStored(g, len(g.Moves))
	if err != nil {
		return err
	}
	var free []game.Cell
	for row := range g.Size {
		for col := range g.Size {
			if j.At(row, col) == game.None {
				free = append(free, game.Cell{Row: row, Col: col})
			}
		}
	}
	pick := func() game.Cell { return free[tb.rng.IntN(len(free))] }
	mover := g.Players[j.Turn()]
	var reqs []*replicaRequest
	move := func(srv int, user string, c game.Cell) {
		in := x.srv[srv].SlashCommand(x.guild, tb.channel, x.members[user], "ttt",
			discordtest.Sub("move", discordtest.Int("row", int64(c.Row+1)), discordtest.Int("col", int64(c.Col+1))))
		reqs = append(reqs, &replicaRequest{in: in, srv: srv, kind: "move", user: user, cell: c})
	}
	first := pick()
	move(0, mover, first)
	if tb.rng.IntN(2) == 0 {
		move(1, mover, first)
	} else {
		move(1, mover, pick())
	}
	if tb.rng.IntN(3) == 0 {
		move(tb.rng.IntN(2), mover, pick())
	}
	if !tb.computer && tb.rng.IntN(2) == 0 {
		move(tb.rng.IntN(2), g.Players[j.Turn().Other()], pick())
	}
	if tb.rng.IntN(4) == 0 {
		s := tb.rng.IntN(2)
		in := x.srv[s].SlashCommand(x.guild, tb.channel, tb.players[tb.rng.IntN(len(tb.players))], "ttt", discordtest.Sub("board"))
		reqs = append(reqs, &replicaRequest{in: in, srv: s, kind: "board"})
	}
	tb.rng.Shuffle(len(reqs), func(a, b int) { reqs[a], reqs[b] = reqs[b], reqs[a] })
	if err := x.fire(reqs); err != nil {
		return err
	}

	after, err := x.db.Current(x.ctx, tb.channel)
	switch {
	case err != nil:
		return err
	case after == nil || after.ID != g.ID:
		return fmt.Errorf("moves in game %s left game %v current", g.ID, after)
	case len(after.Moves) < len(g.Moves) || !slices.Equal(after.Moves[:len(g.Moves)], g.Moves):
		return fmt.Errorf("game %s had moves %v; after a burst of moves it has %v", g.ID, g.Moves, after.Moves)
	}
	if err := checkStored(after); err != nil {
		return err
	}
	answered := 0
	for _, q := range reqs {
		if q.resp.Ephemeral {
			continue
		}
		b, err := readBoard(q.resp.Message)
		if err != nil {
			return fmt.Errorf("%s: %w", describeInteraction(q.in), err)
		}
		if q.kind == "board" {
			if _, err := shownPrefix(b, after); err != nil {
				return fmt.Errorf("/ttt board: %w", err)
			}
			continue
		}
		k, err := moveShown(b, after, sideOfUser(after, q.user), q.cell)
		if err != nil {
			return fmt.Errorf("%s to replica %d: %w", describeInteraction(q.in), q.srv, err)
		}
		x.mu.Lock()
		dup := x.shown[g.ID][k]
		if x.shown[g.ID] == nil {
			x.shown[g.ID] = map[int]bool{}
		}
		x.shown[g.ID][k] = true
		x.moves++
		x.mu.Unlock()
		if dup {
			return fmt.Errorf("two moves of game %s were both answered with a board of %d moves %v", g.ID, k, after.Moves[:k])
		}
		answered++
	}
	people := 0
	for _, m := range after.Moves[len(g.Moves):] {
		if m.Player != after.Computer {
			people++
		}
	}
	if people != answered {
		return fmt.Errorf("game %s went from moves %v to %v: %d moves by people, but %d moves were answered with a board",
			g.ID, g.Moves, after.Moves, people, answered)
	}
	return nil
}

// checkRunning checks that every running game is its channel's current
// game: no two starts both made a game.
func (x *replicaRig) checkRunning() {
	x.t.Helper()
	running, err := x.db.Running(x.ctx)
	if err != nil {
		x.t.Fatal(err)
	}
	for _, g := range running {
		cur, err := x.db.Current(x.ctx, g.ChannelID)
		if err != nil {
			x.t.Fatal(err)
		}
		if cur == nil || cur.ID != g.ID {
			x.t.Fatalf("game %s runs in channel %s, but the channel's game is %v", g.ID, g.ChannelID, cur)
		}
	}
}

// httpReplicas starts two bot processes on the PostgreSQL at dbURL, both
// serving srv's interactions over HTTP (no gateway) in guild, as replicas
// behind one endpoint do; the test points srv at either.
func httpReplicas(t *testing.T, ctx context.Context, srv *discordtest.Server, guild, dbURL string) [2]*botProcess {
	t.Helper()
	return startReplicas(t, ctx, func(int) map[string]string {
		return map[string]string{
			"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL, "DISCORD_GUILD_ID": guild,
			"DATABASE_URL": dbURL, "LOG_LEVEL": "debug",
			"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey(),
		}
	})
}

// startReplicas starts two bot binaries, replica A with env(0) and B with
// env(1), at once, and waits until both are ready. If the test fails,
// their logs are printed.
func startReplicas(t *testing.T, ctx context.Context, env func(i int) map[string]string) [2]*botProcess {
	t.Helper()
	var procs [2]*botProcess
	for i := range procs {
		procs[i] = startBotProcess(t, "replica "+"AB"[i:i+1], env(i))
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range procs {
				t.Logf("log of %s:\n%s", p.name, p.tail(6000))
			}
		}
	})
	for _, p := range procs {
		if err := p.waitReady(ctx); err != nil {
			t.Fatalf("%v\nlog:\n%s", err, p.tail(4000))
		}
	}
	return procs
}

// roundRobin starts a load balancer that sends each request to the next
// of the replicas (host:port), and returns its URL.
func roundRobin(t *testing.T, replicas ...string) string {
	t.Helper()
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(&url.URL{Scheme: "http", Host: replicas[next.Add(1)%uint64(len(replicas))]})
	}}
	lb := httptest.NewServer(proxy)
	t.Cleanup(lb.Close)
	return lb.URL
}

// A turn that runs out while two replicas behind a load balancer both
// time it ends the game once: both replicas' timers fire, one saves the
// timeout and edits the board, the other finds the game over.
func TestTimeoutOnceAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel() // it mostly waits for the turn to run out
	dbURL := storetest.PostgresURL(t)
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := discordtest.NewServer("timeout-replicas-secret-token")
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	procs := startReplicas(t, ctx, func(int) map[string]string {
		return map[string]string{
			"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL, "DISCORD_GUILD_ID": guild,
			"DATABASE_URL": dbURL, "LOG_LEVEL": "debug", "TURN_TIMEOUT": "5s",
			"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey(),
		}
	})
	srv.UseEndpoint(roundRobin(t, procs[0].listening(t, "interactions"), procs[1].listening(t, "interactions")) + "/interactions")
	send := publicSender(t, ctx, srv)
	alice, bob := srv.NewMember("alice"), srv.NewMember("bob")
	ch := srv.NewID()
	// Four interactions, two through each replica: both have loaded the
	// running game, so both time alice's turn.
	r := send(srv.SlashCommand(guild, ch, alice, "ttt", discordtest.Sub("start", discordtest.User("opponent", bob))))
	accept := ""
	for _, b := range r.Message.Buttons() {
		if strings.HasPrefix(b.CustomID, "accept/") {
			accept = b.CustomID
		}
	}
	send(srv.Click(guild, ch, bob, r.Message.ID, accept))
	send(srv.SlashCommand(guild, ch, bob, "ttt", discordtest.Sub("board")))
	board := send(srv.SlashCommand(guild, ch, alice, "ttt", discordtest.Sub("board"))).Message
	for _, p := range procs {
		if err := p.waitLog(ctx, "msg=\"turn timer fired\" channel="+ch); err != nil {
			t.Fatal(err)
		}
	}
	// Both timers have fired; the one that saved the timeout edited the
	// board in the background.
	m, err := srv.WaitMessageEdit(ctx, ch, board.ID, board.Edits)
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range stopBoth(ctx, procs) {
		if err != nil {
			t.Errorf("%s: %v", procs[i].name, err)
		}
	}
	m, _ = srv.Message(ch, m.ID)
	if !strings.Contains(m.Content, "wins by timeout") || m.Edits != board.Edits+1 {
		t.Errorf("board after the timeout: %d edits (before: %d), %q; want exactly one edit, saying who wins by timeout", m.Edits, board.Edits, m.Content)
	}
	db, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(ctx, guild, bob.User.ID, 1)
	if err != nil || st.People.Wins != 1 || st.People.Games != 1 {
		t.Errorf("bob's stats: %+v, %v; want one game, won", st, err)
	}
}
