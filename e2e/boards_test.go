package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store/storetest"
)

// boardMove is the cell of the i-th move (0-based) of a 15×15 game that
// nobody wins: the first player takes every other cell of rows 1 and 3,
// the second those of rows 2 and 4 below them.
func boardMove(i int) (row, col int) {
	k := i / 2
	return 1 + i%2 + 2*(k/8), 1 + 2*(k%8)
}

// tap plays (row, col), 1-based, as who on board, a 15×15 board with the
// picker, in one tap: the cell's button as the row's pick would show it,
// without the pick. It returns the board as the answer left it, saying
// want.
func (p tapper) tap(who discordtest.Member, board discordtest.Message, row, col int, want string) discordtest.Message {
	p.t.Helper()
	menu, _ := rowMenu(p.t, board) // row/<game>/<serial>
	cell := "move/" + strings.TrimPrefix(menu, "row/") + fmt.Sprintf("/%d/%d", row, col)
	r := p.send(p.h.srv.Click(p.guild, p.channel, who, board.ID, cell).Unchecked())
	wantBoard(p.t, r, discordgo.InteractionResponseUpdateMessage, want)
	return r.Message
}

// waitPictureWithin waits, until ctx ends, for board message m to carry a
// picture it did not carry before with m's text, and returns it.
func (h *harness) waitPictureWithin(ctx context.Context, channel string, m discordtest.Message) (discordtest.Message, error) {
	old := make(map[string]bool)
	for _, a := range m.Attachments {
		old[a.ID] = true
	}
	text := m.Content
	for len(m.Attachments) == 0 || old[m.Attachments[len(m.Attachments)-1].ID] || m.Content != text {
		next, err := h.srv.WaitMessageEdit(ctx, channel, m.ID, m.Edits)
		if err != nil {
			return m, err
		}
		m = next
	}
	return m, nil
}

// editsOf selects the edits through an interaction token (PATCH of a
// webhook message) of the boards whose text names member.
func editsOf(member discordtest.Member) func(discordtest.Request) bool {
	return func(r discordtest.Request) bool {
		return r.Method == http.MethodPatch && strings.Contains(r.Path, "/webhooks/") && bytes.Contains(r.Body, []byte(member.User.ID))
	}
}

// One busy board delays nobody else's: while Discord holds the first
// picture edit of alice and bob's 15×15 board, they make more moves than
// the bot has edit workers; carol's move in another channel still gets its
// picture at once, while the first edit is held. Once Discord lets it
// go, alice and bob's board gets one more edit, of its latest state: the
// edits wanted meanwhile were one.
func TestE2EBusyBoardDelaysNobody(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice, bob, carol, dave := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("carol"), h.srv.NewMember("dave")
	busy, quiet := h.srv.NewID(), h.srv.NewID()
	pb := tapper{h: h, t: t, guild: h.guild, channel: busy, where: func(*discordtest.Interaction) {}}
	pq := tapper{h: h, t: t, guild: h.guild, channel: quiet, where: func(*discordtest.Interaction) {}}
	board := h.waitPictureOf(busy, h.challengeAccepted(busy, alice, bob, discordtest.Int("size", 15), discordtest.Int("win", 5)))
	other := h.waitPictureOf(quiet, h.challengeAccepted(quiet, carol, dave, discordtest.Int("size", 15), discordtest.Int("win", 5)))

	// Discord holds the first edit of the busy board, and answers the
	// others at once.
	var seen atomic.Int64 // edits of the busy board sent
	hold := h.srv.Hold(func(r discordtest.Request) bool {
		return editsOf(alice)(r) && seen.Add(1) == 1
	})
	defer hold.Release()
	before := len(h.srv.Requests())
	players := [2]discordtest.Member{alice, bob}
	const moves = 18 // more than the bot's 16 edit workers
	for i := range moves {
		row, col := boardMove(i)
		board = pb.tap(players[i%2], board, row, col, mention(players[(i+1)%2])+" to move")
		if i == 0 {
			if err := hold.WaitHeld(h.ctx, 1); err != nil {
				t.Fatalf("the first move's picture never reached Discord: %v", err)
			}
		}
	}
	latest := board.Content

	row, col := boardMove(0)
	other = pq.tap(carol, other, row, col, mention(dave)+" to move")
	ctx, cancel := context.WithTimeout(h.ctx, 20*time.Second)
	defer cancel()
	if _, err := h.waitPictureWithin(ctx, quiet, other); err != nil {
		t.Fatalf("carol's move got no picture while Discord held one edit of another channel's board: %v", err)
	}
	if n := seen.Load(); n != 1 {
		t.Errorf("Discord was sent %d edits of the busy board while its first was held; want that one alone", n)
	}

	hold.Release()
	board = h.waitPictureSaying(busy, board, latest)
	if board.Content != latest {
		t.Errorf("the busy board says %q; want its latest state, %q", board.Content, latest)
	}
	h.stop() // waits for the edits in flight
	var edits []string
	for _, r := range h.srv.Requests()[before:] {
		if editsOf(alice)(r) {
			edits = append(edits, fmt.Sprintf("%s %d", r.Path, r.Status))
		}
	}
	if len(edits) != 2 {
		t.Errorf("the busy board got %d edits after %d moves: %v; want the held one and one of its latest state", len(edits), moves, edits)
	}
}

// boardText is the text of a board edit as the bot sent it (the content of
// its JSON, or of the payload_json of a multipart body), and whether it
// has one.
func boardText(body []byte) (string, bool) {
	m := contentField.FindSubmatch(body)
	if m == nil {
		return "", false
	}
	var s string
	if err := json.Unmarshal(m[1], &s); err != nil {
		return "", false
	}
	return s, true
}

var contentField = regexp.MustCompile(`"content":("(?:[^"\\]|\\.)*")`)

// A board converges to the stored game across replicas. Two bot processes
// share one PostgreSQL database; the test sends each interaction to the
// one it names (X or Y). On a 15×15 board, Discord holds X's picture edit
// of alice's first move while bob moves through Y (whose picture edit goes
// through at once), alice moves again through X, and bob through Y. Once
// Discord lets X's held edit go, X must not send the picture of alice's
// second move, older than bob's stored after it: the board ends showing
// bob's last move, and no edit is sent after one of a newer state.
//
// And a row picked by carol through X, whose answer Discord takes late,
// after her move through Y was answered and pictured: the board ends
// showing her move, with a picker for it, not the row picked before it.
func TestE2EBoardsConvergeAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := discordtest.NewServer("boards-replicas-secret-token")
	srv.AckDeadline = 30 * time.Second // an answer Discord holds is still taken
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	procs := httpReplicas(t, ctx, srv, guild, dbURL)
	addrs := [2]string{procs[0].listening(t, "interactions"), procs[1].listening(t, "interactions")}
	const x, y = 0, 1
	// via sends the next interactions to replica i. Discord reads the
	// endpoint when it delivers: every interaction sent before is answered.
	via := func(i int) { srv.UseEndpoint("http://" + addrs[i] + "/interactions") }
	h := &harness{t: t, srv: srv, guild: guild, ctx: ctx, stop: func() {}}
	alice, bob, carol, dave := srv.NewMember("alice"), srv.NewMember("bob"), srv.NewMember("carol"), srv.NewMember("dave")
	start := func(ch string, a, b discordtest.Member) discordtest.Message {
		via(x)
		r := h.slash(a, ch, "start", discordtest.User("opponent", b), discordtest.Int("size", 15), discordtest.Int("win", 5))
		via(y)
		r = h.click(b, ch, r.Message.ID, button(t, r.Message, -1, 0, "accept/"))
		return h.waitPictureOf(ch, r.Message)
	}
	within := func(ch string, m discordtest.Message) discordtest.Message {
		t.Helper()
		m, err := h.waitPictureWithin(ctx, ch, m)
		if err != nil {
			t.Fatalf("board %s never got the picture of %q: %v", m.ID, m.Content, err)
		}
		return m
	}

	// Edits held at Discord.
	ch := srv.NewID()
	p := tapper{h: h, t: t, guild: guild, channel: ch, where: func(*discordtest.Interaction) {}}
	board := start(ch, alice, bob)
	states := []string{board.Content}
	var edits atomic.Int64
	hold := srv.Hold(func(r discordtest.Request) bool {
		return editsOf(alice)(r) && edits.Add(1) == 1
	})
	defer hold.Release()
	players := [2]discordtest.Member{alice, bob}
	for i := range 4 {
		via(i % 2)
		row, col := boardMove(i)
		board = p.tap(players[i%2], board, row, col, mention(players[(i+1)%2])+" to move")
		states = append(states, board.Content)
		if i == 0 {
			if err := hold.WaitHeld(ctx, 1); err != nil {
				t.Fatalf("X's picture of the first move never reached Discord: %v", err)
			}
		}
		if i%2 == 1 {
			board = within(ch, board) // Y's picture came through
		}
	}
	hold.Release()

	// A row picked through X, answered late.
	ch2 := srv.NewID()
	p2 := tapper{h: h, t: t, guild: guild, channel: ch2, where: func(*discordtest.Interaction) {}}
	board2 := start(ch2, carol, dave)
	via(x)
	menu, _ := rowMenu(t, board2)
	pick := srv.Select(guild, ch2, carol, board2.ID, menu, "8")
	picks := srv.Hold(func(r discordtest.Request) bool {
		// Send sets pick.ID under the server's lock, which Hold holds.
		return r.Path == "/interactions (endpoint)" && pick.ID != "" && bytes.Contains(r.Body, []byte(`"id":"`+pick.ID+`"`))
	})
	defer picks.Release()
	if err := srv.Send(ctx, pick); err != nil {
		t.Fatal(err)
	}
	if err := picks.WaitHeld(ctx, 1); err != nil {
		t.Fatalf("X never answered the row picked: %v", err)
	}
	via(y)
	moved := within(ch2, p2.tap(carol, board2, 8, 8, mention(dave)+" to move"))
	picks.Release()
	if r, err := pick.Response(ctx); err != nil || r.Message.Content != board2.Content {
		t.Fatalf("the row picked was answered %v, %v; want the board before the move", r, err)
	}

	for i, err := range stopBoth(ctx, procs) { // waits for the edits in flight
		if err != nil {
			t.Errorf("after SIGTERM %s exited with %v; want status 0", procs[i].name, err)
		}
	}
	final, _ := srv.Message(ch, board.ID)
	if final.Content != states[len(states)-1] || len(final.Attachments) != 1 {
		t.Errorf("the board ends saying %q with %d attachments; want the picture of the last move, saying %q",
			final.Content, len(final.Attachments), states[len(states)-1])
	}
	newest, seen := 0, 0
	for _, r := range sortedByArrival(srv.Requests()) {
		text, ok := boardText(r.Body)
		if !editsOf(alice)(r) || !ok || !strings.Contains(r.Path, "/webhooks/") {
			continue
		}
		n := slices.Index(states, text)
		if n < 0 {
			continue // the other channel's board
		}
		if n < newest {
			t.Errorf("an edit of state %d (of %d) was sent after one of state %d", n, len(states)-1, newest)
		}
		newest = max(newest, n)
		seen++
	}
	if seen < 3 {
		t.Errorf("%d edits of alice and bob's board seen; want at least the held one and bob's two", seen)
	}

	final2, _ := srv.Message(ch2, board2.ID)
	menu2, _ := findRowMenu(final2)
	wantMenu, _ := findRowMenu(moved)
	if final2.Content != moved.Content || menu2 != wantMenu {
		t.Errorf("after the late row pick the board says %q with the picker %q; want carol's move shown, %q, with the picker %q",
			final2.Content, menu2, moved.Content, wantMenu)
	}
	for _, r := range srv.Rejected() {
		t.Errorf("Discord rejected %s %s: %d %s", r.Method, r.Path, r.Status, r.Reply)
	}
}

// sortedByArrival returns rs in the order the server received them (it
// records each once answered).
func sortedByArrival(rs []discordtest.Request) []discordtest.Request {
	slices.SortStableFunc(rs, func(a, b discordtest.Request) int { return a.Time.Compare(b.Time) })
	return rs
}
