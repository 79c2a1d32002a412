package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// botSweepEvery is the period of a running process's sweep of the games it
// does not time (bot's sweepEvery): real time, with no knob in the binary.
const botSweepEvery = 30 * time.Second

// Reminders outlive the process that timed them (issue 25, item 4), end to
// end: processes A and B of one bot share a PostgreSQL database, behind
// one interactions endpoint that sends every interaction to A. B is ready
// before any game exists, so only its sweep, every 30 s, can learn of
// them. Four games of one-minute turns are started through A, and A is
// killed (SIGKILL) before any of their reminders is due. A comes back on
// the same database with its REST requests through a proxy that keeps
// every reminder it sends from reaching Discord: it claims the reminder of
// the first game, and is killed again while the request is in flight,
// holding the claim. Interactions now go to B.
//
// The games' stored times are moved, not waited for, so that B's first
// sweep (30 s after it is ready) falls where a sweep that only looks for
// reminders due already does not help: the first game's claim (7.5 s long)
// ends just after it, and the other three reminders fall due 5 to 10 s
// after it, and are of use for 15 s only, which ends before the next
// sweep. The sweep is real time; the test runs only with -soak.
//
// Checked at the fake Discord: B sends each turn's reminder, a message
// that pings the player to move, exactly once, before the turn ends; the
// first game's turn times out, the others' end with a move through B; and
// each reminder is deleted when its turn ends.
func TestE2ERemindersOfADeadProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three bot binaries")
	}
	if !*soak {
		t.Skip("waits about a minute for the reminder sweep of a running process, every 30 s of real time (the binary has no knob for it): run with -soak, as .ci/run does")
	}
	dbURL := storetest.PostgresURL(t)
	t.Parallel() // it mostly waits for B's sweep
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	srv := discordtest.NewServer("dead-remind-secret-token-" + strconv.FormatInt(time.Now().UnixNano(), 36))
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	var procs []*botProcess
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range procs {
				t.Logf("log of %s:\n%s", p.name, p.tail(6000))
			}
		}
	})
	launch := func(name, apiURL string) *botProcess {
		t.Helper()
		p := startBotProcess(t, name, map[string]string{
			"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": apiURL, "DISCORD_GUILD_ID": guild,
			"DATABASE_URL": dbURL, "LOG_LEVEL": "debug", "TURN_TIMEOUT": "60s",
			"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey(),
		})
		procs = append(procs, p)
		return p
	}
	ready := func(p *botProcess) {
		t.Helper()
		if err := p.waitReady(ctx); err != nil {
			t.Fatalf("%v\n%s", err, p.tail(4000))
		}
	}
	send := publicSender(t, ctx, srv)
	db, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	current := func(channel string) *store.Game {
		t.Helper()
		g, err := db.Current(ctx, channel)
		if err != nil || g == nil || !g.Running() {
			t.Fatalf("Current(%s) = %+v, %v; want a running game", channel, g, err)
		}
		return g
	}

	// B is ready first: its restore, which arms a timer for every running
	// game, finds none. Its first sweep comes botSweepEvery after it,
	// armed at the end of the restore, just before the ready line.
	a, b := launch("A", srv.APIURL), launch("B", srv.APIURL)
	ready(b)
	sweep := readyAt(t, b).Add(botSweepEvery)
	ready(a)
	srv.UseEndpoint("http://" + a.listening(t, "interactions") + "/interactions")
	type turn struct {
		channel     string
		mover, next discordtest.Member
		board       discordtest.Message
		token       string
		remindAt    time.Duration // after B's first sweep
	}
	turns := []*turn{{remindAt: -7 * time.Second}, {remindAt: 5 * time.Second}, {remindAt: 7500 * time.Millisecond}, {remindAt: 10 * time.Second}}
	for i, x := range turns {
		alice, bob := srv.NewMember(fmt.Sprintf("a%d", i)), srv.NewMember(fmt.Sprintf("b%d", i))
		x.channel = srv.NewID()
		r := send(srv.SlashCommand(guild, x.channel, alice, "ttt", discordtest.Sub("start", discordtest.User("opponent", bob))))
		x.board = send(srv.Click(guild, x.channel, bob, r.Message.ID, button(t, r.Message, -1, 0, "accept/"))).Message
		g := current(x.channel)
		j, err := replayStored(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		x.mover, x.next = alice, bob
		if g.Players[j.Turn()] == bob.User.ID {
			x.mover, x.next = bob, alice
		}
		if !strings.Contains(x.board.Content, mention(x.mover)+" to move") {
			t.Fatalf("board %q; want %s to move", x.board.Content, mention(x.mover))
		}
		x.token = g.Board.Token
	}
	a.kill()

	// Nobody claimed a reminder; B has not read the games. Each turn is
	// moved (back or ahead) so that its reminder falls due at its time
	// from B's first sweep; RemindAt is what the sweep asks the store for.
	for _, x := range turns {
		g := current(x.channel)
		if length := g.Deadline.Sub(g.StartedAt); length < time.Minute-time.Second || length > time.Minute {
			t.Fatalf("the game in %s has a turn of %v; want a minute", x.channel, length)
		}
		if g.Reminded != 0 || g.RemindAt.IsZero() {
			t.Fatalf("the game in %s before its half-time: reminded %d, reminder due %v; want one due, unclaimed", x.channel, g.Reminded, g.RemindAt)
		}
		d := g.StartedAt.Add(g.Deadline.Sub(g.StartedAt) / 2).Sub(sweep.Add(x.remindAt))
		shiftBack(g, d)
		g.RemindAt = g.RemindAt.Add(-d)
		if err := db.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
	}

	// pingOf returns the id of the message r made, if r is a message of
	// x's game that pings its player to move.
	pingOf := func(x *turn, r discordtest.Request) (string, bool) {
		if r.Method != http.MethodPost || r.Status != http.StatusOK ||
			!(strings.HasPrefix(r.Path, "/api/v9/webhooks/") && webhookToken(r.Path) == x.token || r.Path == "/api/v9/channels/"+x.channel+"/messages") {
			return "", false
		}
		var sent struct{ Content string }
		var m discordgo.Message
		if json.Unmarshal(r.Body, &sent) != nil || !strings.Contains(sent.Content, mention(x.mover)) || json.Unmarshal(r.Reply, &m) != nil || m.ID == "" {
			return "", false
		}
		return m.ID, true
	}
	timedOut := func(x *turn, r discordtest.Request) bool {
		return r.Method == http.MethodPatch && r.Status == http.StatusOK &&
			(strings.Contains(r.Path, "/"+x.token+"/") || strings.HasPrefix(r.Path, "/api/v9/channels/"+x.channel+"/messages/")) &&
			bytes.Contains(r.Body, []byte("did not move in time"))
	}

	// A again, with a Discord that never receives its reminders: it times
	// the first game's turn from the store, whose reminder falls due 7 s
	// before B's sweep, and claims it.
	fake, err := url.Parse(srv.APIURL)
	if err != nil {
		t.Fatal(err)
	}
	forward := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(&url.URL{Scheme: fake.Scheme, Host: fake.Host})
	}}
	tried := make(chan string, 16) // the tokens or channels of the reminders A sent
	done := make(chan struct{})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := reminderTo(r.URL.Path); r.Method == http.MethodPost && to != "" {
			select {
			case tried <- to:
			default:
			}
			select { // until A is gone
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(done); proxy.Close() }) // after A's second life is killed
	a2 := launch("A (restarted)", proxy.URL+"/api/v9")
	ready(a2)
	// Should A be so slow that B's sweep comes first, B claims and sends
	// it: then the test has not made what it wants to test.
	bFirst := make(chan error, 1)
	wctx, stopWaiting := context.WithCancel(ctx)
	go func() {
		_, err := srv.WaitRequests(wctx, 1, func(r discordtest.Request) bool { _, ok := pingOf(turns[0], r); return ok })
		bFirst <- err
	}()
	select {
	case tok := <-tried:
		if tok != turns[0].token && tok != turns[0].channel {
			t.Fatalf("A sent a reminder through %q first; want the first game's token %q or channel %s", tok, turns[0].token, turns[0].channel)
		}
	case err := <-bFirst:
		t.Fatalf("B reminded the first game's player before A claimed it (%v): A came back too late for B's first sweep", err)
	case <-ctx.Done():
		t.Fatal("A did not send the first game's reminder")
	}
	stopWaiting()
	if g := current(turns[0].channel); g.Reminded != 1 {
		t.Fatalf("A is sending the first game's reminder, but the stored game says reminded %d; want 1, claimed", g.Reminded)
	}
	a2.kill()
	srv.UseEndpoint("http://" + b.listening(t, "interactions") + "/interactions")

	for i, x := range turns {
		reqs, err := srv.WaitRequests(ctx, 1, func(r discordtest.Request) bool {
			_, ok := pingOf(x, r)
			return ok || timedOut(x, r)
		})
		if err != nil {
			t.Fatalf("game %d: neither a reminder nor a timeout: %v", i, err)
		}
		id, ok := pingOf(x, reqs[0])
		if !ok {
			t.Errorf("game %d (reminder due %v after B's first sweep): its turn timed out, and nobody reminded %s", i, x.remindAt, x.mover.User.Username)
			continue
		}
		var p discordgo.WebhookParams
		if err := json.Unmarshal(reqs[0].Body, &p); err != nil || !strings.HasPrefix(p.Content, "⏰ "+mention(x.mover)+", it's your move") ||
			p.AllowedMentions == nil || !slices.Equal(p.AllowedMentions.Users, []string{x.mover.User.ID}) {
			t.Errorf("game %d: reminder %q allowing %+v (%v); want one pinging %s alone", i, p.Content, p.AllowedMentions, err, x.mover.User.Username)
		}
		t.Logf("game %d: reminded %v after B's first sweep was due", i, reqs[0].Time.Sub(sweep).Round(10*time.Millisecond)) // a figure

		// The turn ends: the first game's by timeout (B's timer), the
		// others' with a move through B.
		if i == 0 {
			if _, err := srv.WaitRequests(ctx, 1, func(r discordtest.Request) bool { return timedOut(x, r) }); err != nil {
				t.Fatalf("game %d did not time out: %v", i, err)
			}
		} else {
			r := send(srv.Click(guild, x.channel, x.mover, x.board.ID, freeCell(x.board)))
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(x.next)+" to move")
		}
		if _, err := srv.WaitRequests(ctx, 1, func(r discordtest.Request) bool {
			return r.Method == http.MethodDelete && strings.HasSuffix(r.Path, "/messages/"+id) && r.Status == http.StatusNoContent
		}); err != nil {
			t.Errorf("game %d: the reminder was not deleted when its turn ended: %v", i, err)
		}

		// Once, and before the turn timed out.
		var pings, timeouts []int
		for k, r := range srv.Requests() {
			if _, ok := pingOf(x, r); ok {
				pings = append(pings, k)
			}
			if timedOut(x, r) {
				timeouts = append(timeouts, k)
			}
		}
		switch {
		case len(pings) != 1:
			t.Errorf("game %d: %d reminders; want 1", i, len(pings))
		case i == 0 && (len(timeouts) != 1 || timeouts[0] < pings[0]):
			t.Errorf("game %d: the reminder came as request %d, the timeouts as %v; want one timeout, after the reminder", i, pings[0], timeouts)
		case i > 0 && len(timeouts) != 0:
			t.Errorf("game %d timed out; want it to end with the move", i)
		}
	}
	if g, err := db.Current(ctx, turns[0].channel); err != nil || g == nil || g.End != game.EndTimeout || g.Players[g.Loser] != turns[0].mover.User.ID {
		t.Errorf("the first game after its timeout: %+v, %v; want it lost on time by %s", g, err, turns[0].mover.User.Username)
	}
}

// reminderTo is where a POST to path sends a reminder: the token of an
// interaction's webhook (a follow-up), the channel of a channel's
// messages (where the bot reaches it), "" for any other path.
func reminderTo(path string) string {
	if strings.HasPrefix(path, "/api/v9/webhooks/") {
		return webhookToken(path)
	}
	if ch, ok := strings.CutPrefix(path, "/api/v9/channels/"); ok {
		if ch, ok := strings.CutSuffix(ch, "/messages"); ok && !strings.Contains(ch, "/") {
			return ch
		}
	}
	return ""
}

// webhookToken is the token in the path of a request to an interaction's
// webhook, /api/v9/webhooks/<application>/<token>/….
func webhookToken(path string) string {
	segs := strings.Split(strings.TrimPrefix(path, "/api/v9/webhooks/"), "/")
	if len(segs) < 2 {
		return ""
	}
	return segs[1]
}

// readyAt is the time of p's ready line.
func readyAt(t *testing.T, p *botProcess) time.Time {
	t.Helper()
	logs := p.logs.String()
	i := strings.LastIndex(logs, "msg=ready")
	line := logs[strings.LastIndex(logs[:max(i, 0)], "\n")+1:]
	line, _, _ = strings.Cut(line, "\n")
	v, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t.Fatalf("%s's ready line %q has no time: %v", p.name, line, err)
	}
	return at
}
