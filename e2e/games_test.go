package e2e

// End-to-end tests: the bot binary, started with only the environment a
// test gives it, connects through DISCORD_API_URL to a fake Discord on
// loopback (package discordtest: a real REST server and gateway websocket)
// and plays whole games through dispatched INTERACTION_CREATE events. Every assertion is on
// what the fake Discord received.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
)

type harness struct {
	t     testing.TB
	srv   *discordtest.Server
	guild string
	ctx   context.Context
	logs  *logtest.Buffer
	vars  map[string]string
	stop  func() // stops the running bot and checks how it ended
}

// startBot runs the bot binary against a new fake Discord with env on top
// of the settings every test needs (a fresh SQLite file among them), and
// waits until it is ready. At cleanup it stops the bot with SIGTERM and
// checks that it exited with status 0, that the token was never logged
// and that Discord rejected nothing the bot sent.
func startBot(t testing.TB, env map[string]string) *harness {
	t.Helper()
	srv := discordtest.NewServer("e2e-secret-token-" + fmt.Sprint(time.Now().UnixNano()))
	guild := srv.NewID()
	vars := map[string]string{
		"DISCORD_TOKEN":    srv.Token,
		"DISCORD_API_URL":  srv.APIURL,
		"DISCORD_GUILD_ID": guild,
		"LOG_LEVEL":        "debug",
		"DATABASE_URL":     filepath.Join(t.TempDir(), "tttbot.db"),
	}
	for k, v := range env {
		vars[k] = v
	}
	if vars["DISCORD_GUILD_ID"] == "" {
		guild = "" // global commands: h.slash and h.click come from DMs
	}
	if vars["INTERACTIONS_ADDR"] != "" {
		vars["DISCORD_PUBLIC_KEY"] = srv.PublicKey()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h := &harness{t: t, srv: srv, guild: guild, ctx: ctx, logs: new(logtest.Buffer), vars: vars}
	t.Cleanup(func() {
		cancel()
		h.stop()
		srv.Close()
		if strings.Contains(h.logs.String(), srv.Token) {
			t.Errorf("the token appears in the log")
		}
		for _, r := range srv.Rejected() {
			t.Errorf("Discord rejected %s %s: %d %s", r.Method, r.Path, r.Status, r.Reply)
		}
		for _, r := range srv.Unhandled() {
			t.Errorf("the bot called an endpoint Discord does not have: %s %s", r.Method, r.Path)
		}
		if t.Failed() {
			t.Logf("bot log:\n%s", h.logs.String())
		}
	})
	h.launch()
	return h
}

// launch starts the bot binary with h's settings and waits until it is
// ready.
func (h *harness) launch() {
	h.t.Helper()
	readyBefore := strings.Count(h.logs.String(), "msg=ready")
	p := startBotProcessLogging(h.t, "bot", h.vars, h.logs)
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := p.stop(ctx); err != nil {
				h.t.Errorf("the bot exited with %v; want status 0 after a clean shutdown", err)
			}
		})
	}
	// Registered after startBotProcessLogging's cleanup, so run before it:
	// the bot is stopped with SIGTERM before being killed.
	h.t.Cleanup(h.stop)
	if _, err := h.srv.WaitCommands(h.ctx, h.guild); err != nil {
		h.t.Fatalf("commands not registered: %v\nlog:\n%s", err, h.logs.String())
	}
	if err := h.logs.WaitForCount(h.ctx, "msg=ready", readyBefore+1); err != nil {
		h.t.Fatal(err)
	}
	if h.vars["INTERACTIONS_ADDR"] != "" {
		// Discord is told the endpoint's URL, as in the Developer Portal.
		h.srv.UseEndpoint("http://" + h.listening("interactions") + "/interactions")
	}
}

// listening returns the address that the ready line of the latest start
// gives for what (interactions, metrics).
func (h *harness) listening(what string) string {
	h.t.Helper()
	return logtest.ReadyAddr(h.t, h.logs.String(), what)
}

// gateway, and on one that gets them on its HTTP endpoint without a
// gateway connection.
func bothTransports(t *testing.T, env map[string]string, test func(t *testing.T, h *harness)) {
	for _, tr := range []struct {
		name string
		env  map[string]string
	}{
		{"gateway", nil},
		{"http", map[string]string{"INTERACTIONS_ADDR": "127.0.0.1:0"}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			vars := maps.Clone(env)
			if vars == nil {
				vars = map[string]string{}
			}
			maps.Copy(vars, tr.env)
			h := startBot(t, vars)
			test(t, h)
			viaEndpoint := 0
			for _, r := range h.srv.Requests() {
				if strings.HasPrefix(r.Path, "/interactions ") {
					viaEndpoint++
				}
			}
			if tr.env != nil && (viaEndpoint == 0 || len(h.srv.Identifies()) != 0) {
				t.Errorf("%d interactions came by the endpoint and the bot identified %d times on the gateway; want some and none",
					viaEndpoint, len(h.srv.Identifies()))
			}
			if tr.env == nil && viaEndpoint != 0 {
				t.Errorf("%d interactions came by the endpoint; want none", viaEndpoint)
			}
		})
	}
}

// restart stops the bot and starts it again on the same database.
func (h *harness) restart() {
	h.t.Helper()
	h.stop()
	h.launch()
}

func (h *harness) send(in *discordtest.Interaction) *discordtest.Response {
	h.t.Helper()
	if err := h.srv.Send(h.ctx, in); err != nil {
		h.t.Fatalf("send: %v", err)
	}
	r, err := in.Response(h.ctx)
	if err != nil {
		h.t.Fatalf("response: %v", err)
	}
	return r
}

// manager returns a new member with Manage Server, who may use /ttt config.
func (h *harness) manager(name string) discordtest.Member {
	m := h.srv.NewMember(name)
	m.Permissions |= discordgo.PermissionManageServer
	return m
}

func (h *harness) slash(who discordtest.Member, channel, sub string, opts ...discordtest.Option) *discordtest.Response {
	h.t.Helper()
	return h.send(h.srv.SlashCommand(h.guild, channel, who, "ttt", discordtest.Sub(sub, opts...)))
}

func (h *harness) click(who discordtest.Member, channel, messageID, customID string) *discordtest.Response {
	h.t.Helper()
	return h.send(h.srv.Click(h.guild, channel, who, messageID, customID))
}

// wantBoard checks that r is a public board (a new message or an update)
// whose content contains each of want.
func wantBoard(t testing.TB, r *discordtest.Response, typ discordgo.InteractionResponseType, want ...string) {
	t.Helper()
	if r.Ephemeral || r.Type != typ {
		t.Fatalf("response type %d ephemeral=%v %q; want a public type %d", r.Type, r.Ephemeral, r.Message.Content, typ)
	}
	for _, w := range want {
		if !strings.Contains(r.Message.Content, w) {
			t.Errorf("board %q; want it to contain %q", r.Message.Content, w)
		}
	}
}

// wantSaid checks that r is an ephemeral message containing want.
func wantSaid(t testing.TB, r *discordtest.Response, want string) {
	t.Helper()
	if !r.Ephemeral || r.Type != discordgo.InteractionResponseChannelMessageWithSource {
		t.Fatalf("response type %d ephemeral=%v %q; want an ephemeral message", r.Type, r.Ephemeral, r.Message.Content)
	}
	said := r.Message.Content
	for _, e := range r.Message.Embeds { // /ttt help is an embed
		said += "\n" + e.Description
	}
	if !strings.Contains(said, want) {
		t.Errorf("said %q; want it to contain %q", said, want)
	}
}

// freeCell returns the custom id of the first cell button of m that can
// still be clicked, or "" when the game is over.
func freeCell(m discordtest.Message) string {
	for _, b := range m.Buttons() {
		if !b.Disabled && strings.HasPrefix(b.CustomID, "move/") {
			return b.CustomID
		}
	}
	return ""
}

// button returns the custom_id of the button at (row, col) of m's grid, or
// of the first button whose id starts with prefix when row < 0.
func button(t testing.TB, m discordtest.Message, row, col int, prefix string) string {
	t.Helper()
	for _, b := range m.Buttons() {
		if row >= 0 && b.Row == row && b.Col == col || row < 0 && strings.HasPrefix(b.CustomID, prefix) {
			return b.CustomID
		}
	}
	t.Fatalf("message %s has no button (%d,%d,%q); buttons: %+v", m.ID, row, col, prefix, m.Buttons())
	return ""
}

func enabledButtons(m discordtest.Message) int {
	n := 0
	for _, b := range m.Buttons() {
		if !b.Disabled {
			n++
		}
	}
	return n
}

func mention(m discordtest.Member) string { return "<@" + m.User.ID + ">" }

// challengeAccepted has a challenge bob and returns the board message.
func (h *harness) challengeAccepted(channel string, a, b discordtest.Member, opts ...discordtest.Option) discordtest.Message {
	h.t.Helper()
	r := h.slash(a, channel, "start", append([]discordtest.Option{discordtest.User("opponent", b)}, opts...)...)
	wantBoard(h.t, r, discordgo.InteractionResponseChannelMessageWithSource, "challenges "+mention(b))
	r = h.click(b, channel, r.Message.ID, button(h.t, r.Message, -1, 0, "accept/"))
	wantBoard(h.t, r, discordgo.InteractionResponseUpdateMessage, mention(a)+" to move")
	return r.Message
}

// workedExample is the design's worked example: (row, col, player), 0-based;
// player 1 wins on the last move.
var workedExample = [][3]int{{0, 0, 1}, {0, 2, 2}, {2, 2, 1}, {1, 1, 2}, {2, 0, 1}, {1, 0, 2}, {2, 1, 1}}

// The worked example of the design, by slash commands: player 1 wins on the
// seventh move, and only the newest board keeps buttons.
func TestE2EWorkedExampleBySlashCommands(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
	ch := h.srv.NewID()
	h.challengeAccepted(ch, alice, bob)
	players := map[int]discordtest.Member{1: alice, 2: bob}
	var last *discordtest.Response
	for i, mv := range workedExample {
		last = h.slash(players[mv[2]], ch, "move", discordtest.Int("row", int64(mv[0]+1)), discordtest.Int("col", int64(mv[1]+1)))
		if i < len(workedExample)-1 {
			wantBoard(t, last, discordgo.InteractionResponseChannelMessageWithSource, mention(players[3-mv[2]])+" to move")
		}
	}
	wantBoard(t, last, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" wins", "(in 🟩)")
	if got := last.Message.Buttons(); len(got) != 10 || enabledButtons(last.Message) != 1 {
		t.Errorf("final board has %d buttons, %d enabled; want 9 disabled cells and Rematch", len(got), enabledButtons(last.Message))
	}
	for _, b := range last.Message.Buttons() {
		if green := b.Style == discordgo.SuccessButton; green != (b.Row == 2 && b.Label == "") {
			t.Errorf("final board: button %s at row %d is green = %v; want the bottom row green", b.CustomID, b.Row, green)
		}
	}
	button(t, last.Message, -1, 0, "rematch/")

	// A game has one board message: each board a move replaced is deleted
	// (the bot deletes it after answering).
	for _, m := range h.srv.Messages(ch) {
		if m.ID == last.Message.ID {
			continue
		}
		if err := h.srv.WaitMessageGone(h.ctx, ch, m.ID); err != nil {
			t.Fatalf("old board %s (%q) is still there: %v", m.ID, m.Content, err)
		}
	}
}

// A game played by clicking cells: every click edits the same message; then
// a rematch in which the other player moves first.
func TestE2EButtonsAndRematch(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
		ch := h.srv.NewID()
		board := h.challengeAccepted(ch, alice, bob)
		seq := []struct {
			who      discordtest.Member
			row, col int
		}{{alice, 0, 0}, {bob, 0, 1}, {alice, 1, 1}, {bob, 0, 2}, {alice, 2, 2}}
		var r *discordtest.Response
		for _, mv := range seq {
			r = h.click(mv.who, ch, board.ID, button(t, board, mv.row, mv.col, ""))
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage)
			if r.Message.ID != board.ID {
				t.Fatalf("click answered on message %s; want the board %s updated", r.Message.ID, board.ID)
			}
			board = r.Message
		}
		wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(alice)+" wins")
		if n := enabledButtons(board); n != 1 {
			t.Errorf("finished board has %d enabled buttons; want only Rematch", n)
		}

		r = h.click(bob, ch, board.ID, button(t, board, -1, 0, "rematch/"))
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "⭕ "+mention(bob)+" to move")
		if r.Message.ID == board.ID {
			t.Fatal("rematch drew over the finished board; want a new message")
		}
		old, err := h.srv.WaitMessageEdit(h.ctx, ch, board.ID, board.Edits)
		if err != nil {
			t.Fatal(err)
		}
		if len(old.Buttons()) != 9 || enabledButtons(old) != 0 || !strings.Contains(old.Content, mention(alice)+" wins") {
			t.Errorf("finished board after rematch: %q with %d buttons, %d enabled; want the result kept, its 9 cells disabled, no Rematch",
				old.Content, len(old.Buttons()), enabledButtons(old))
		}
		// In the rematch bob (O) moves first.
		r = h.click(bob, ch, r.Message.ID, button(t, r.Message, 1, 1, ""))
		wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(alice)+" to move")
	})
}

// Games against the computer: without an opponent, and with the bot named
// as the opponent. Hard never loses 3×3.
func TestE2EComputer(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice := h.srv.NewMember("alice")
	botMember := discordtest.Member{User: h.srv.BotUser}
	for _, opts := range [][]discordtest.Option{nil, {discordtest.User("opponent", botMember)}} {
		ch := h.srv.NewID()
		r := h.slash(alice, ch, "start", opts...)
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" to move", "<@"+h.srv.BotUser.ID+">")
		board := r.Message
		for moves := 0; ; moves++ {
			cell := freeCell(board)
			if cell == "" {
				break // over: only Rematch is left
			}
			if moves == 5 {
				t.Fatalf("alice still has a cell to play after 5 moves: %q", board.Content)
			}
			r = h.click(alice, ch, board.ID, cell)
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage)
			board = r.Message
		}
		if strings.Contains(board.Content, mention(alice)+" wins") {
			t.Errorf("alice beat the hard computer on 3×3: %q", board.Content)
		}
		if !strings.Contains(board.Content, "wins") && !strings.Contains(board.Content, "Draw") {
			t.Errorf("final board %q; want a result", board.Content)
		}
	}
}

func TestE2EChallengeDeclinedAndRefused(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice, bob, carol := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("carol")
	otherBot := h.srv.NewMember("otherbot")
	otherBot.User.Bot = true
	ch := h.srv.NewID()

	wantSaid(t, h.slash(alice, ch, "start", discordtest.User("opponent", alice)), "can't challenge yourself")
	wantSaid(t, h.slash(alice, ch, "start", discordtest.User("opponent", otherBot)), "is a bot")
	wantSaid(t, h.slash(alice, ch, "start", discordtest.Int("size", 4), discordtest.Int("win", 5)), "can't be more than the board size")

	r := h.slash(alice, ch, "start", discordtest.User("opponent", bob), discordtest.Int("size", 5), discordtest.Int("win", 4))
	wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "5×5", "4 in a row")
	msg := r.Message
	wantSaid(t, h.slash(carol, ch, "start"), "challenge is already waiting")
	wantSaid(t, h.click(carol, ch, msg.ID, button(t, msg, -1, 0, "accept/")), "This challenge is for "+mention(bob))
	wantSaid(t, h.click(alice, ch, msg.ID, button(t, msg, -1, 0, "accept/")), "can't accept your own challenge")
	r = h.click(bob, ch, msg.ID, button(t, msg, -1, 0, "decline/"))
	wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(bob)+" declined")
	if len(r.Message.Buttons()) != 0 {
		t.Errorf("declined challenge still has buttons")
	}
	// The channel is free again; the challenger can withdraw with /ttt resign.
	r = h.slash(alice, ch, "start", discordtest.User("opponent", bob))
	wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "challenges")
	wantSaid(t, h.slash(alice, ch, "resign"), "withdrew")
	m, err := h.srv.WaitMessageEdit(h.ctx, ch, r.Message.ID, r.Message.Edits)
	if err != nil || !strings.Contains(m.Content, "withdrew") || len(m.Buttons()) != 0 {
		t.Errorf("withdrawn challenge message = %q (%d buttons), %v; want it to say so without buttons", m.Content, len(m.Buttons()), err)
	}
}

func TestE2EChallengeExpires(t *testing.T) {
	t.Parallel()
	h := startBot(t, map[string]string{"CHALLENGE_TIMEOUT": "1s"})
	alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
	ch := h.srv.NewID()
	r := h.slash(alice, ch, "start", discordtest.User("opponent", bob))
	m, err := h.srv.WaitMessageEdit(h.ctx, ch, r.Message.ID, r.Message.Edits)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Content, "expired") || len(m.Buttons()) != 0 {
		t.Errorf("after the timeout the challenge says %q with %d buttons; want expired, no buttons", m.Content, len(m.Buttons()))
	}
	// A late click is told, not failed; the channel is free.
	wantSaid(t, h.send(h.srv.Click(h.guild, ch, bob, r.Message.ID, button(t, r.Message, -1, 0, "accept/")).Unchecked()), "no longer open")
	wantBoard(t, h.slash(bob, ch, "start"), discordgo.InteractionResponseChannelMessageWithSource, "to move")
}

// Invalid moves from players and strangers are refused in plain words,
// ephemerally, and the board does not change.
func TestE2EInvalidMoves(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		alice, bob, carol := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("carol")
		ch := h.srv.NewID()
		move := func(who discordtest.Member, row, col int64) *discordtest.Response {
			return h.slash(who, ch, "move", discordtest.Int("row", row), discordtest.Int("col", col))
		}
		wantSaid(t, move(alice, 1, 1), "No game in this channel")
		board := h.challengeAccepted(ch, alice, bob)
		wantBoard(t, move(alice, 2, 2), discordgo.InteractionResponseChannelMessageWithSource)
		// The board that move replaced goes: one board message per game.
		if err := h.srv.WaitMessageGone(h.ctx, ch, board.ID); err != nil {
			t.Fatalf("the replaced board is still there: %v", err)
		}

		before := h.srv.Messages(ch)
		refusals := []struct {
			name string
			r    func() *discordtest.Response
			want string
		}{
			{"out of turn", func() *discordtest.Response { return move(alice, 1, 1) }, "not your turn"},
			{"occupied", func() *discordtest.Response { return move(bob, 2, 2) }, "already taken"},
			{"off the board", func() *discordtest.Response { return move(bob, 4, 1) }, "no row 4"},
			{"stranger", func() *discordtest.Response { return move(carol, 1, 1) }, "not playing"},
			{"stranger resigns", func() *discordtest.Response { return h.slash(carol, ch, "resign") }, "not playing"},
			{"second game", func() *discordtest.Response { return h.slash(carol, ch, "start") }, "already running"},
			{"stranger clicks", func() *discordtest.Response {
				cur := h.srv.Messages(ch)
				last := cur[len(cur)-1]
				return h.click(carol, ch, last.ID, button(t, last, 0, 0, ""))
			}, "not playing"},
		}
		for _, tt := range refusals {
			wantSaid(t, tt.r(), tt.want)
		}
		if after := h.srv.Messages(ch); len(after) != len(before) || after[len(after)-1].Content != before[len(before)-1].Content {
			t.Errorf("refused moves changed the channel: %d messages, last %q; want %d, %q",
				len(after), after[len(after)-1].Content, len(before), before[len(before)-1].Content)
		}

		// The game goes on; after it ends, moves are refused as over.
		wantBoard(t, h.slash(bob, ch, "resign"), discordgo.InteractionResponseChannelMessageWithSource, mention(bob)+" resigned", mention(alice)+" wins")
		wantSaid(t, move(alice, 1, 1), "over")
		// A moderator can stop someone else's game.
		mod := h.srv.NewMember("mod")
		mod.Permissions = discordgo.PermissionManageMessages
		wantBoard(t, h.slash(mod, ch, "board"), discordgo.InteractionResponseChannelMessageWithSource, "resigned")
		h.challengeAccepted(ch, alice, bob)
		wantSaid(t, h.slash(carol, ch, "stop"), "Manage Messages")
		wantBoard(t, h.slash(mod, ch, "stop"), discordgo.InteractionResponseChannelMessageWithSource, "stopped by "+mention(mod))
	})
}

// Two channels play at the same time without waiting for each other.
func TestE2ETwoChannels(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch := h.srv.NewID()
			a, b := h.srv.NewMember("a"), h.srv.NewMember("b")
			r := h.slash(a, ch, "start", discordtest.User("opponent", b))
			accept := h.srv.Click(h.guild, ch, b, r.Message.ID, r.Message.Buttons()[0].CustomID)
			if err := h.srv.Send(h.ctx, accept); err != nil {
				t.Error(err)
				return
			}
			if _, err := accept.Response(h.ctx); err != nil {
				t.Error(err)
				return
			}
			players := map[int]discordtest.Member{1: a, 2: b}
			for _, mv := range workedExample {
				in := h.srv.SlashCommand(h.guild, ch, players[mv[2]], "ttt", discordtest.Sub("move", discordtest.Int("row", int64(mv[0]+1)), discordtest.Int("col", int64(mv[1]+1))))
				if err := h.srv.Send(h.ctx, in); err != nil {
					t.Error(err)
					return
				}
				var err error
				if r, err = in.Response(h.ctx); err != nil || r.Ephemeral {
					t.Errorf("channel %s move %v: %v %+v", ch, mv, err, r)
					return
				}
			}
			if !strings.Contains(r.Message.Content, mention(a)+" wins") {
				t.Errorf("channel %s ended with %q; want %s to win", ch, r.Message.Content, mention(a))
			}
		}()
	}
	wg.Wait()
}

// Two clicks at once on one board: exactly one move is applied and the other
// click is told why.
func TestE2EClickRace(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
		for round := 0; round < 10; round++ {
			ch := h.srv.NewID()
			board := h.challengeAccepted(ch, alice, bob)
			// Round by round: the same player twice on different cells, or both
			// players on the same cell.
			second, cell2 := alice, button(t, board, 2, 2, "")
			if round%2 == 1 {
				second, cell2 = bob, button(t, board, 0, 0, "")
			}
			// Unchecked: the fake must not refuse the second click because the
			// bot already answered the first; both were made on the same board.
			c1 := h.srv.Click(h.guild, ch, alice, board.ID, button(t, board, 0, 0, "")).Unchecked()
			c2 := h.srv.Click(h.guild, ch, second, board.ID, cell2).Unchecked()
			for _, c := range []*discordtest.Interaction{c1, c2} {
				if err := h.srv.Send(h.ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			var applied, told int
			for _, c := range []*discordtest.Interaction{c1, c2} {
				r, err := c.Response(h.ctx)
				if err != nil {
					t.Fatal(err)
				}
				if r.Ephemeral {
					told++
					// Bob's click on the same cell is either early (not his
					// turn yet) or late (the cell is taken).
					if !strings.Contains(r.Message.Content, "not your turn") && !strings.Contains(r.Message.Content, "already taken") {
						t.Errorf("the losing click was told %q; want not your turn or already taken", r.Message.Content)
					}
				} else {
					applied++
				}
			}
			m, _ := h.srv.Message(ch, board.ID)
			if b, err := readBoard(m); err != nil || applied != 1 || told != 1 || len(b.marks) != 1 {
				t.Fatalf("round %d: %d applied, %d told; board %q (%v); want one move", round, applied, told, m.Content, err)
			}
		}
	})
}

func TestE2ETurnTimeout(t *testing.T) {
	t.Parallel()
	bothTransports(t, map[string]string{"TURN_TIMEOUT": "1s"}, func(t *testing.T, h *harness) {
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
		ch := h.srv.NewID()
		board := h.challengeAccepted(ch, alice, bob)
		m, err := h.srv.WaitMessageEdit(h.ctx, ch, board.ID, board.Edits)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{mention(alice) + " did not move in time", mention(bob) + " wins by timeout"} {
			if !strings.Contains(m.Content, want) {
				t.Errorf("after the turn timeout the board says %q; want %q", m.Content, want)
			}
		}
		if enabledButtons(m) != 1 {
			t.Errorf("timed-out board has %d enabled buttons; want only Rematch", enabledButtons(m))
		}
	})
}

// The bot registers exactly the documented command, asks for no intents,
// identifies with the token and logs one ready line, without the token.
func TestE2EStartup(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	cmds := h.srv.Commands(h.guild)
	if len(cmds) != 1 || cmds[0].Name != "ttt" {
		t.Fatalf("registered %d commands; want /ttt alone", len(cmds))
	}
	var subs []string
	for _, o := range cmds[0].Options {
		subs = append(subs, o.Name)
	}
	if got, want := strings.Join(subs, ","), "start,move,board,resign,draw,stop,stats,leaderboard,history,help,about,config"; got != want {
		t.Errorf("subcommands = %s; want %s", got, want)
	}
	if len(h.srv.Commands("")) != 0 {
		t.Errorf("commands registered globally as well as in the guild")
	}
	ids := h.srv.Identifies()
	if len(ids) != 1 || ids[0].Intents != discordgo.IntentsNone {
		t.Errorf("identifies = %+v; want one, with no intents", ids)
	}
	wantSaid(t, h.slash(h.srv.NewMember("x"), h.srv.NewID(), "help"), "/ttt move row:2 col:3")
	if n := strings.Count(h.logs.String(), "msg=ready"); n != 1 {
		t.Errorf("log has %d ready lines; want 1:\n%s", n, h.logs.String())
	}
}

// BenchmarkEndToEndMove measures one move handled end to end: the fake
// Discord dispatches a click (or a /ttt move) over the gateway websocket,
// the bot judges it and answers over REST, and the fake records the answer.
// Allocations count the test process, the fake Discord, not the bot,
// which runs as its own process. Starting and finishing games is outside
// the timed part.
func BenchmarkEndToEndMove(b *testing.B) {
	for _, how := range []string{"click", "slash"} {
		b.Run(how, func(b *testing.B) {
			h := startBot(b, nil)
			alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
			ch := h.srv.NewID()
			var board discordtest.Message
			newGame := func() {
				if len(board.ID) > 0 {
					h.slash(alice, ch, "resign")
				}
				board = h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 5))
			}
			newGame()
			players := [2]discordtest.Member{alice, bob}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i, turn := 0, 0; i < b.N; i++ {
				cell := i % 25
				if cell == 0 && i > 0 || strings.Contains(board.Content, "Rematch") || !strings.Contains(board.Content, "to move") {
					b.StopTimer()
					newGame()
					turn = 0
					b.StartTimer()
				}
				who := players[turn%2]
				var in *discordtest.Interaction
				if how == "click" {
					in = h.srv.Click(h.guild, ch, who, board.ID, fmt.Sprintf("%s/%d/%d", strings.Join(strings.Split(board.Buttons()[0].CustomID, "/")[:3], "/"), cell/5+1, cell%5+1)).Unchecked()
				} else {
					in = h.srv.SlashCommand(h.guild, ch, who, "ttt", discordtest.Sub("move", discordtest.Int("row", int64(cell/5+1)), discordtest.Int("col", int64(cell%5+1))))
				}
				start := time.Now()
				r := h.send(in)
				lat = append(lat, time.Since(start))
				if !r.Ephemeral {
					board = r.Message
					turn++
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// A game nobody can win any more ends early as a draw, and says why.
func TestE2EDecidedDraw(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
	ch := h.srv.NewID()
	board := h.challengeAccepted(ch, alice, bob)
	players := [2]discordtest.Member{alice, bob}
	// After these eight moves every line holds both marks; one cell is left.
	cells := [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 2}}
	var r *discordtest.Response
	for i, c := range cells {
		r = h.click(players[i%2], ch, board.ID, button(t, board, c[0], c[1], ""))
		board = r.Message
	}
	wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, "Draw: no line can be completed", "ends early")
	if b, err := readBoard(board); err != nil || len(b.marks) != 8 {
		t.Errorf("decided draw board %q (%v); want exactly one empty cell left", board.Content, err)
	}
	if n := enabledButtons(board); n != 1 {
		t.Errorf("decided draw board has %d enabled buttons; want only Rematch", n)
	}
}

// A game outlives a restart of the bot: the board is the same, the game
// goes on, and the old board message keeps working.
func TestE2EGameSurvivesRestart(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
		ch := h.srv.NewID()
		board := h.challengeAccepted(ch, alice, bob)
		r := h.click(alice, ch, board.ID, button(t, board, 0, 0, ""))
		wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(bob)+" to move")
		before := r.Message.Content

		h.restart()

		r = h.slash(h.srv.NewMember("carol"), ch, "board")
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource)
		if r.Message.Content != before {
			t.Errorf("after a restart the board is\n%s\nwant\n%s", r.Message.Content, before)
		}
		r = h.slash(bob, ch, "move", discordtest.Int("row", 2), discordtest.Int("col", 2))
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" to move", "row 2, column 2")
	})
}

// Stats, history and the leaderboard count finished games per server:
// rated games against people, games against the computer apart.
func TestE2EStatsHistoryLeaderboard(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice, bob, carol := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("carol")
	ch := h.srv.NewID()
	for range bot.MinRated {
		h.challengeAccepted(ch, alice, bob)
		wantBoard(t, h.slash(bob, ch, "resign"), discordgo.InteractionResponseChannelMessageWithSource, "resigned")
	}
	wantBoard(t, h.slash(alice, ch, "start"), discordgo.InteractionResponseChannelMessageWithSource)
	wantBoard(t, h.slash(alice, ch, "resign"), discordgo.InteractionResponseChannelMessageWithSource, "resigned")

	r := h.slash(alice, h.srv.NewID(), "stats")
	wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource,
		"5 games · 5 wins · 0 losses · 0 draws · win rate 100%", "Streak: 5 wins (best 5 wins)", "rank #1",
		"Against the computer (not rated): 1 game · 0 wins · 1 loss · 0 draws")
	if len(r.Message.Mentions) != 0 {
		t.Errorf("stats pinged %v; want nobody", r.Message.Mentions)
	}
	r = h.slash(carol, ch, "stats", discordtest.User("user", bob))
	wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(bob), "5 losses", "rank #2")
	wantBoard(t, h.slash(carol, ch, "stats"), discordgo.InteractionResponseChannelMessageWithSource, "No games yet")

	r = h.slash(carol, ch, "leaderboard")
	wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "1. "+mention(alice), "2. "+mention(bob), "You are not ranked yet: 0 of 5")
	if strings.Index(r.Message.Content, mention(alice)) > strings.Index(r.Message.Content, mention(bob)) {
		t.Errorf("leaderboard %q; want alice above bob", r.Message.Content)
	}

	r = h.slash(alice, ch, "history")
	wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "the computer (hard)", "won by resignation")
	if n := strings.Count(r.Message.Content, "\n•"); n != 6 {
		t.Errorf("history has %d games; want 6:\n%s", n, r.Message.Content)
	}

}

// The HTTP endpoint as Discord uses it: a PING, requests with bad
// signatures, a duplicate delivery; and the operator's endpoints: /healthz,
// /readyz, /metrics and tttbot -healthcheck.
func TestE2EEndpointAndMetrics(t *testing.T) {
	t.Parallel()
	h := startBot(t, map[string]string{"INTERACTIONS_ADDR": "127.0.0.1:0", "METRICS_ADDR": "127.0.0.1:0"})
	endpoint := "http://" + h.listening("interactions") + "/interactions"
	metricsURL := "http://" + h.listening("metrics")

	post := func(body []byte, hdr http.Header) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = hdr
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ping := []byte(`{"id":"1","application_id":"` + h.srv.AppID + `","type":1,"token":"t","version":1}`)
	if got, body := post(ping, h.srv.Sign(ping, time.Now())); got != 200 || body != `{"type":1}` {
		t.Errorf("PING: %d %s; want 200 {\"type\":1}", got, body)
	}
	bad := h.srv.Sign(ping, time.Now())
	bad.Set("X-Signature-Ed25519", strings.Repeat("0", 128))
	if got, _ := post(ping, bad); got != 401 {
		t.Errorf("PING with a wrong signature: %d; want 401", got)
	}
	if got, _ := post(ping, h.srv.Sign(ping, time.Now().Add(-10*time.Minute))); got != 401 {
		t.Errorf("PING signed 10 minutes ago: %d; want 401", got)
	}

	alice := h.srv.NewMember("alice")
	ch := h.srv.NewID()
	wantBoard(t, h.slash(alice, ch, "start", discordtest.Str("difficulty", "easy")), discordgo.InteractionResponseChannelMessageWithSource)
	move := h.srv.SlashCommand(h.guild, ch, alice, "ttt", discordtest.Sub("move", discordtest.Int("row", 2), discordtest.Int("col", 2)))
	wantBoard(t, h.send(move), discordgo.InteractionResponseChannelMessageWithSource, "❌")
	before := h.slash(alice, ch, "board").Message.Content
	status, body, err := h.srv.Redeliver(h.ctx, move)
	if err != nil || status != 200 || !strings.Contains(body2text(body), "twice") {
		t.Errorf("the move delivered again: %d %s %v; want 200 and an answer that it came twice", status, body, err)
	}
	if after := h.slash(alice, ch, "board").Message.Content; after != before {
		t.Errorf("after a duplicate delivery the board is\n%s\nwant\n%s", after, before)
	}

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(metricsURL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if got, body := get(p); got != 200 {
			t.Errorf("GET %s: %d %s; want 200", p, got, body)
		}
	}
	// The router counts an interaction once its answer has gone, so the
	// last one may not be counted yet when its answer arrives: wait for it.
	wants := []string{
		`tttbot_interactions_total{kind="start",outcome="ok"} 1`,
		`tttbot_interactions_total{kind="move",outcome="ok"} 1`,
		`tttbot_interactions_total{kind="unknown",outcome="duplicate"} 1`,
		`tttbot_interactions_total{kind="board",outcome="ok"} 2`,
		`tttbot_moves_total 2`, // alice's and the computer's
		`tttbot_games_started_total 1`,
		`tttbot_active_games 1`,
		`tttbot_answer_seconds_count 5`,
		`tttbot_store_seconds_count{method="save"}`,
		`tttbot_rest_rate_limited_total 0`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	}
	var m string
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for missing := wants; len(missing) > 0; {
		_, m = get("/metrics")
		missing = slices.DeleteFunc(slices.Clone(wants), func(w string) bool { return strings.Contains(m, w) })
		if len(missing) == 0 {
			break
		}
		select {
		case <-tick.C:
			continue
		case <-h.ctx.Done():
		}
		for _, want := range missing {
			t.Errorf("/metrics has no %q", want)
		}
		break
	}
	if strings.Contains(m, "tttbot_gateway_connected") {
		t.Error("/metrics reports a gateway; this bot runs without one")
	}
	env := map[string]string{"METRICS_ADDR": h.listening("metrics")}
	check := exec.CommandContext(h.ctx, botBinary(t), "-healthcheck")
	check.Env = []string{"METRICS_ADDR=" + env["METRICS_ADDR"]}
	if out, err := check.Output(); err != nil || !strings.Contains(string(out), "ready") {
		t.Errorf("tttbot -healthcheck with METRICS_ADDR=%s: %v, %q; want nil, ready", env["METRICS_ADDR"], err, out)
	}
}

// body2text is the content of an interaction response body.
func body2text(body []byte) string {
	var r discordgo.InteractionResponse
	if json.Unmarshal(body, &r) != nil || r.Data == nil {
		return ""
	}
	return r.Data.Content
}
