package discordtest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

const testToken = "test-token"

// TestMain runs all parallel tests at once unless -test.parallel is given:
// they are not CPU-bound but wait, most of them for discordgo's
// Session.Close, which sleeps a second.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "64")
	}
	os.Exit(m.Run())
}

// rewrite sends requests for Discord's API to the fake, as the bot's own
// HTTP client does with DISCORD_API_URL.
type rewrite struct {
	api  string
	next http.RoundTripper
}

func (rt rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	if rest, ok := strings.CutPrefix(r.URL.String(), discordgo.EndpointAPI); ok {
		u, err := url.Parse(rt.api + "/" + rest)
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.URL, r.Host = u, u.Host
	}
	return rt.next.RoundTrip(r)
}

func newServer(t *testing.T) *Server {
	t.Helper()
	srv := NewServer(testToken)
	t.Cleanup(srv.Close)
	return srv
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newSession returns a discordgo session for the fake that is not connected
// to the gateway: enough for REST calls.
func newSession(t *testing.T, srv *Server, token string) *discordgo.Session {
	t.Helper()
	s, err := discordgo.New(token)
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Transport: rewrite{srv.APIURL, http.DefaultTransport}, Timeout: 5 * time.Second}
	s.ShouldReconnectOnError = false
	s.Identify.Intents = discordgo.IntentsNone
	return s
}

// bot is a connected discordgo session that queues the interactions it gets.
type bot struct {
	*discordgo.Session
	events chan *discordgo.InteractionCreate
}

// connect opens a session to the fake; setup runs before Open.
func connect(t *testing.T, srv *Server, setup ...func(*discordgo.Session)) *bot {
	t.Helper()
	b := &bot{Session: newSession(t, srv, "Bot "+testToken), events: make(chan *discordgo.InteractionCreate, 16)}
	b.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) {
		select {
		case b.events <- i:
		default: // a test that does not read its events must not leak handlers
		}
	})
	for _, f := range setup {
		f(b.Session)
	}
	if err := b.Open(); err != nil {
		t.Fatalf("Open() = %v; want nil", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// next returns the next interaction the bot received.
func (b *bot) next(t *testing.T, ctx context.Context) *discordgo.InteractionCreate {
	t.Helper()
	select {
	case i := <-b.events:
		return i
	case <-ctx.Done():
		t.Fatalf("no INTERACTION_CREATE received: %v", ctx.Err())
		return nil
	}
}

func (b *bot) respond(i *discordgo.InteractionCreate, typ discordgo.InteractionResponseType, data *discordgo.InteractionResponseData) error {
	return b.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{Type: typ, Data: data})
}

// tttCommands is a command schema like the bot's /ttt.
func tttCommands() []*discordgo.ApplicationCommand {
	minSize, minCell := 3.0, 1.0
	return []*discordgo.ApplicationCommand{{
		Name:        "ttt",
		Description: "Play tic-tac-toe",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "start", Description: "Start a game",
				Options: []*discordgo.ApplicationCommandOption{
					{Type: discordgo.ApplicationCommandOptionUser, Name: "opponent", Description: "Who to play", Required: true},
					{Type: discordgo.ApplicationCommandOptionInteger, Name: "size", Description: "Board size", MinValue: &minSize, MaxValue: 5},
				}},
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "move", Description: "Make a move",
				Options: []*discordgo.ApplicationCommandOption{
					{Type: discordgo.ApplicationCommandOptionInteger, Name: "row", Description: "Row", Required: true, MinValue: &minCell, MaxValue: 5},
					{Type: discordgo.ApplicationCommandOptionInteger, Name: "col", Description: "Column", Required: true, MinValue: &minCell, MaxValue: 5},
				}},
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "board", Description: "Show the board"},
		},
	}}
}

// board returns n rows of n buttons "cell/r/c"; marked cells are disabled
// and labelled with their mark.
func board(n int, marks map[string]string) []discordgo.MessageComponent {
	rows := make([]discordgo.MessageComponent, n)
	for r := range n {
		row := discordgo.ActionsRow{}
		for c := range n {
			id := fmt.Sprintf("cell/%d/%d", r, c)
			b := discordgo.Button{CustomID: id, Label: "·", Style: discordgo.SecondaryButton}
			if m, ok := marks[id]; ok {
				b.Label, b.Disabled = m, true
			}
			row.Components = append(row.Components, b)
		}
		rows[r] = row
	}
	return rows
}

// game sets up a server, a connected bot with /ttt registered in a guild,
// and two members.
type game struct {
	srv            *Server
	bot            *bot
	ctx            context.Context
	guild, channel string
	alice, bob     Member
	commandID      string
}

func newGame(t *testing.T, configure func(*Server), setup ...func(*discordgo.Session)) *game {
	t.Helper()
	srv := newServer(t)
	if configure != nil {
		configure(srv)
	}
	g := &game{srv: srv, ctx: testContext(t), guild: srv.NewID(), channel: srv.NewID(),
		alice: srv.NewMember("alice"), bob: srv.NewMember("bob")}
	g.bot = connect(t, srv, setup...)
	cmds, err := g.bot.ApplicationCommandBulkOverwrite(srv.AppID, g.guild, tttCommands())
	if err != nil {
		t.Fatalf("ApplicationCommandBulkOverwrite() = %v", err)
	}
	g.commandID = cmds[0].ID
	return g
}

// send sends in and returns what the bot received.
func (g *game) send(t *testing.T, in *Interaction) *discordgo.InteractionCreate {
	t.Helper()
	if err := g.srv.Send(g.ctx, in); err != nil {
		t.Fatalf("Send() = %v", err)
	}
	return g.bot.next(t, g.ctx)
}

// start sends /ttt start and answers it with a 3×3 board; it returns the
// board message.
func (g *game) start(t *testing.T) Message {
	t.Helper()
	return g.startWith(t, board(3, nil))
}

// startWith answers /ttt start with a board of comps and returns the
// message.
func (g *game) startWith(t *testing.T, comps []discordgo.MessageComponent) Message {
	t.Helper()
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("start", User("opponent", g.bob)))
	i := g.send(t, in)
	err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource,
		&discordgo.InteractionResponseData{Content: "alice vs bob", Components: comps})
	if err != nil {
		t.Fatalf("InteractionRespond() = %v", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil {
		t.Fatalf("Response() = %v", err)
	}
	return resp.Message
}

func wantAPIError(t *testing.T, err error, status, code int) {
	t.Helper()
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v; want a REST error %d with code %d", err, status, code)
	}
	got := 0
	if re.Message != nil {
		got = re.Message.Code
	}
	if re.Response.StatusCode != status || got != code {
		t.Fatalf("err = HTTP %d code %d (%s); want HTTP %d code %d", re.Response.StatusCode, got, re.ResponseBody, status, code)
	}
}

func wantNoRejected(t *testing.T, srv *Server) {
	t.Helper()
	if r := srv.Rejected(); len(r) > 0 {
		t.Errorf("Rejected() = %v; want none", r)
	}
}

func TestOpenIdentifyReady(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ready := make(chan *discordgo.Ready, 1)
	intents := discordgo.IntentsGuilds | discordgo.IntentsDirectMessages
	connect(t, srv, func(s *discordgo.Session) {
		s.Identify.Intents = intents
		s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	})
	ctx := testContext(t)
	if err := srv.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady() = %v", err)
	}
	var r *discordgo.Ready
	select {
	case r = <-ready:
	case <-ctx.Done():
		t.Fatal("no READY handled")
	}
	if r.Version != 9 || r.SessionID == "" || r.User.ID != srv.BotUser.ID || !r.User.Bot || r.Application.ID != srv.AppID {
		t.Errorf("READY = v%d session %q user %+v application %+v; want v9, a session, the bot user and the app", r.Version, r.SessionID, r.User, r.Application)
	}
	ids := srv.Identifies()
	if len(ids) != 1 {
		t.Fatalf("Identifies() = %v; want 1", ids)
	}
	if ids[0].Token != "Bot "+testToken || ids[0].Intents != intents || ids[0].Shard != nil || ids[0].CloseCode != 0 {
		t.Errorf("Identifies()[0] = %v (token ok: %t); want token, intents %d, no shard, accepted", ids[0], ids[0].Token == "Bot "+testToken, intents)
	}
	if s := fmt.Sprintf("%v %+v %#v", ids[0], ids[0], ids[0]); strings.Contains(s, testToken) {
		t.Errorf("formatted Identify %q shows the token", s)
	}
	wantNoRejected(t, srv)
}

func TestIdentifyRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		token    string
		intents  discordgo.Intent
		wantCode int
	}{
		{"wrong token", "Bot nope", discordgo.IntentsNone, CloseAuthenticationFailed},
		{"privileged intent", "Bot " + testToken, discordgo.IntentMessageContent, CloseDisallowedIntents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			s := newSession(t, srv, tt.token)
			s.Identify.Intents = tt.intents
			err := s.Open()
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != tt.wantCode {
				t.Fatalf("Open() = %v; want close code %d", err, tt.wantCode)
			}
			if ids := srv.Identifies(); len(ids) != 1 || ids[0].CloseCode != tt.wantCode {
				t.Errorf("Identifies() = %v; want one closed with %d", ids, tt.wantCode)
			}
		})
	}
}

func TestHeartbeatsAcknowledged(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	// Not much smaller: under -race, with every test of the package in
	// parallel, an ACK can take a few hundred milliseconds to be read.
	srv.HeartbeatInterval = 200 * time.Millisecond
	b := connect(t, srv)
	// discordgo gives up on a connection when no ACK came for 5 intervals
	// (and this session does not reconnect); 8 heartbeats on one
	// connection prove the ACKs arrive.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.WaitHeartbeats(ctx, 8); err != nil {
		t.Fatalf("WaitHeartbeats(8) = %v", err)
	}
	if n := len(srv.Identifies()); n != 1 {
		t.Errorf("len(Identifies()) = %d; want 1 (no reconnect)", n)
	}
	b.RLock()
	ack := b.LastHeartbeatAck
	b.RUnlock()
	if since := time.Since(ack); since > time.Second {
		t.Errorf("LastHeartbeatAck %v ago; want a recent ACK", since)
	}
}

func TestBulkOverwrite(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, "Bot "+testToken)
	guild := srv.NewID()
	ctx := testContext(t)

	got, err := s.ApplicationCommandBulkOverwrite(srv.AppID, guild, tttCommands())
	if err != nil {
		t.Fatalf("ApplicationCommandBulkOverwrite() = %v", err)
	}
	if len(got) != 1 || got[0].ID == "" || got[0].Name != "ttt" || got[0].GuildID != guild || got[0].ApplicationID != srv.AppID {
		t.Fatalf("ApplicationCommandBulkOverwrite() = %+v; want /ttt with an id in the guild", got[0])
	}
	stored, err := srv.WaitCommands(ctx, guild)
	if err != nil || len(stored) != 1 || stored[0].ID != got[0].ID || len(stored[0].Options) != 3 {
		t.Fatalf("WaitCommands() = %v, %v; want /ttt with 3 subcommands", stored, err)
	}
	again, err := s.ApplicationCommandBulkOverwrite(srv.AppID, guild, tttCommands())
	if err != nil || again[0].ID != got[0].ID {
		t.Errorf("second overwrite = %v, %v; want the same id %s", again, err, got[0].ID)
	}
	if global := srv.Commands(""); len(global) != 0 {
		t.Errorf("Commands(\"\") = %v; want none", global)
	}

	_, err = s.ApplicationCommandBulkOverwrite("123", guild, tttCommands())
	wantAPIError(t, err, http.StatusNotFound, codeUnknownApplication)
	bad := tttCommands()
	bad[0].Name = "TTT"
	_, err = s.ApplicationCommandBulkOverwrite(srv.AppID, "", bad)
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	if n := len(srv.Commands(guild)); n != 1 {
		t.Errorf("len(Commands(guild)) = %d after a rejected overwrite elsewhere; want 1", n)
	}
}

func TestSlashCommandRoundTrip(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("start", User("opponent", g.bob), Int("size", 3)))
	i := g.send(t, in)

	if i.ID != in.ID || i.Token != in.Token || i.AppID != g.srv.AppID || i.GuildID != g.guild || i.ChannelID != g.channel ||
		i.Type != discordgo.InteractionApplicationCommand || i.Member == nil || i.Member.User.ID != g.alice.User.ID ||
		i.Member.Permissions != g.alice.Permissions || i.Locale != discordgo.EnglishUS {
		t.Fatalf("interaction = %+v; want the one sent, by alice", i.Interaction)
	}
	data := i.ApplicationCommandData()
	if data.Name != "ttt" || data.ID != g.commandID || len(data.Options) != 1 || data.Options[0].Name != "start" {
		t.Fatalf("data = %+v; want /ttt start with the registered id", data)
	}
	start := data.Options[0]
	if got := start.GetOption("opponent").UserValue(nil).ID; got != g.bob.User.ID {
		t.Errorf("opponent = %s; want bob %s", got, g.bob.User.ID)
	}
	if got := start.GetOption("size").IntValue(); got != 3 {
		t.Errorf("size = %d; want 3", got)
	}
	if u := data.Resolved.Users[g.bob.User.ID]; u == nil || u.Username != "bob" || data.Resolved.Members[g.bob.User.ID] == nil {
		t.Errorf("resolved = %+v; want bob as user and member", data.Resolved)
	}

	err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource,
		&discordgo.InteractionResponseData{Content: "alice vs bob", Components: board(3, nil)})
	if err != nil {
		t.Fatalf("InteractionRespond() = %v", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil {
		t.Fatalf("Response() = %v", err)
	}
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Ephemeral || resp.Message.Content != "alice vs bob" || resp.At <= 0 {
		t.Errorf("Response() = %+v; want a public type 4 message", resp)
	}
	if btns := resp.Message.Buttons(); len(btns) != 9 {
		t.Errorf("len(Buttons()) = %d; want 9", len(btns))
	}
	if b, ok := resp.Message.Button("cell/1/2"); !ok || b.Row != 1 || b.Col != 2 || b.Label != "·" {
		t.Errorf("Button(cell/1/2) = %+v, %t; want row 1 col 2", b, ok)
	}
	msgs := g.srv.Messages(g.channel)
	if len(msgs) != 1 || msgs[0].ID != resp.Message.ID || msgs[0].InteractionID != in.ID || msgs[0].Author.ID != g.srv.BotUser.ID {
		t.Errorf("Messages() = %+v; want the response, by the bot", msgs)
	}
	wantNoRejected(t, g.srv)

	err = g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "again"})
	wantAPIError(t, err, http.StatusBadRequest, codeAlreadyAcknowledged)
	if r := g.srv.Rejected(); len(r) != 1 || r[0].Code != codeAlreadyAcknowledged {
		t.Errorf("Rejected() = %v; want the second callback", r)
	}
}

func TestSendChecksSchema(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	tests := []struct {
		name string
		in   *Interaction
		want error
	}{
		{"unregistered", g.srv.SlashCommand(g.guild, g.channel, g.alice, "chess"), ErrUnknownCommand},
		{"other guild", g.srv.SlashCommand(g.srv.NewID(), g.channel, g.alice, "ttt", Sub("board")), ErrUnknownCommand},
		{"no subcommand", g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt"), ErrBadOption},
		{"missing required", g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("move", Int("row", 1))), ErrBadOption},
		{"above max_value", g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("move", Int("row", 1), Int("col", 6))), ErrBadOption},
		{"wrong type", g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("move", Str("row", "1"), Int("col", 1))), ErrBadOption},
		{"unknown message", g.srv.Click(g.guild, g.channel, g.alice, "1", "cell/0/0"), ErrUnknownMessage},
	}
	for _, tt := range tests {
		if err := g.srv.Send(g.ctx, tt.in); !errors.Is(err, tt.want) {
			t.Errorf("%s: Send() = %v; want %v", tt.name, err, tt.want)
		}
	}
	// A stale client can still send an unregistered command.
	i := g.send(t, g.srv.SlashCommand(g.guild, g.channel, g.alice, "chess").Unchecked())
	if name := i.ApplicationCommandData().Name; name != "chess" {
		t.Errorf("unchecked command name = %q; want chess", name)
	}
}

func TestLateResponseFails(t *testing.T) {
	t.Parallel()
	g := newGame(t, func(s *Server) { s.AckDeadline = 50 * time.Millisecond })
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, in)

	_, err := in.Response(g.ctx)
	if !errors.Is(err, ErrInteractionFailed) || err.Error() != "interaction failed: no response within 50ms" {
		t.Fatalf("Response() = %v; want \"interaction failed: no response within 50ms\"", err)
	}
	err = g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "too late"})
	wantAPIError(t, err, http.StatusNotFound, codeUnknownInteraction)
	_, err = g.bot.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{Content: "still there?"})
	wantAPIError(t, err, http.StatusUnauthorized, codeInvalidWebhookToken)
	if msgs := g.srv.Messages(g.channel); len(msgs) != 0 {
		t.Errorf("Messages() = %v; want none", msgs)
	}
}

func TestRejectedCallbacksDoNotAcknowledge(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, in)

	// UPDATE_MESSAGE is only for components.
	err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "x"})
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	// An empty message.
	err = g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{})
	wantAPIError(t, err, http.StatusBadRequest, codeEmptyMessage)
	// 2001 code points; each ❌ is 3 bytes but one code point.
	err = g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource,
		&discordgo.InteractionResponseData{Content: strings.Repeat("❌", 2001)})
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	var re *discordgo.RESTError
	errors.As(err, &re)
	var body struct {
		Errors map[string]map[string]map[string][]struct{ Code string }
	}
	if json.Unmarshal(re.ResponseBody, &body) != nil || body.Errors["data"]["content"]["_errors"][0].Code != "BASE_TYPE_MAX_LENGTH" {
		t.Errorf("error body = %s; want data.content BASE_TYPE_MAX_LENGTH", re.ResponseBody)
	}

	full := strings.Repeat("❌", 2000)
	if err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: full}); err != nil {
		t.Fatalf("InteractionRespond(2000 code points) = %v; want nil", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil || utf8.RuneCountInString(resp.Message.Content) != 2000 {
		t.Fatalf("Response() = %v, %v; want the 2000 code points", resp, err)
	}
	if r := g.srv.Rejected(); len(r) != 3 {
		t.Errorf("Rejected() = %v; want 3", r)
	}
}

func TestClickUpdateMessage(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	msg := g.start(t)

	in := g.srv.Click(g.guild, g.channel, g.bob, msg.ID, "cell/0/0")
	i := g.send(t, in)
	if i.Type != discordgo.InteractionMessageComponent || i.MessageComponentData().CustomID != "cell/0/0" ||
		i.Message == nil || i.Message.ID != msg.ID || len(i.Message.Components) != 3 || i.Member.User.ID != g.bob.User.ID {
		t.Fatalf("interaction = %+v; want bob's click on the board", i.Interaction)
	}
	marks := map[string]string{"cell/0/0": "X"}
	err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage,
		&discordgo.InteractionResponseData{Content: "bob's turn", Components: board(3, marks)})
	if err != nil {
		t.Fatalf("InteractionRespond(UPDATE_MESSAGE) = %v", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil || resp.Type != discordgo.InteractionResponseUpdateMessage || resp.Message.ID != msg.ID || resp.Message.Edits != 1 {
		t.Fatalf("Response() = %+v, %v; want the board edited once", resp, err)
	}
	edited, err := g.srv.WaitMessageEdit(g.ctx, g.channel, msg.ID, 0)
	if err != nil {
		t.Fatalf("WaitMessageEdit() = %v", err)
	}
	if b, _ := edited.Button("cell/0/0"); edited.Content != "bob's turn" || !b.Disabled || b.Label != "X" {
		t.Errorf("edited = %q with %+v; want the X disabled", edited.Content, b)
	}
	if n := len(g.srv.Messages(g.channel)); n != 1 {
		t.Errorf("len(Messages()) = %d; want 1: UPDATE_MESSAGE creates nothing", n)
	}

	// No client can click a disabled button, but a stale one could.
	if err := g.srv.Send(g.ctx, g.srv.Click(g.guild, g.channel, g.alice, msg.ID, "cell/0/0")); !errors.Is(err, ErrUnknownComponent) {
		t.Errorf("Send(click on disabled) = %v; want ErrUnknownComponent", err)
	}
	stale := g.srv.Click(g.guild, g.channel, g.alice, msg.ID, "cell/0/0").Unchecked()
	i = g.send(t, stale)

	// discordgo sends content, components and embeds in every response, so
	// an UPDATE_MESSAGE without components removes them, as on Discord.
	if err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "game over"}); err != nil {
		t.Fatalf("InteractionRespond() = %v", err)
	}
	final, err := g.srv.WaitMessageEdit(g.ctx, g.channel, msg.ID, 1)
	if err != nil || final.Content != "game over" || len(final.Components) != 0 {
		t.Errorf("WaitMessageEdit() = %q with %d components, %v; want the buttons gone", final.Content, len(final.Components), err)
	}
	wantNoRejected(t, g.srv)
}

func TestDeferredFollowupAndEdits(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, in)

	// No @original before the callback.
	content := "board"
	_, err := g.bot.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: &content})
	wantAPIError(t, err, http.StatusNotFound, codeUnknownMessage)

	if err := g.bot.respond(i, discordgo.InteractionResponseDeferredChannelMessageWithSource, nil); err != nil {
		t.Fatalf("InteractionRespond(deferred) = %v", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil || !resp.Message.Loading() || resp.Message.Content != "" {
		t.Fatalf("Response() = %+v, %v; want a loading placeholder", resp, err)
	}

	m, err := g.bot.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: &content, Components: &[]discordgo.MessageComponent{}})
	if err != nil || m.ID != resp.Message.ID || m.Content != "board" {
		t.Fatalf("InteractionResponseEdit() = %+v, %v; want the placeholder completed", m, err)
	}
	orig, ok := g.srv.Original(in)
	if !ok || orig.Loading() || orig.Content != "board" || orig.Edits != 1 {
		t.Errorf("Original() = %+v, %t; want completed, edited once", orig, ok)
	}

	f, err := g.bot.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{Content: "only you", Flags: discordgo.MessageFlagsEphemeral})
	if err != nil || f == nil || f.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("FollowupMessageCreate() = %+v, %v; want an ephemeral message", f, err)
	}
	if fs := g.srv.Followups(in); len(fs) != 1 || fs[0].ID != f.ID || !fs[0].Ephemeral() {
		t.Errorf("Followups() = %+v; want the ephemeral followup", fs)
	}
	if msgs := g.srv.Messages(g.channel); len(msgs) != 1 || msgs[0].ID != orig.ID {
		t.Errorf("Messages() = %+v; want only the original: ephemeral messages are not in the channel", msgs)
	}
	edited := "edited"
	if _, err := g.bot.FollowupMessageEdit(i.Interaction, f.ID, &discordgo.WebhookEdit{Content: &edited}); err != nil {
		t.Errorf("FollowupMessageEdit() = %v", err)
	}
	if m, ok := g.srv.Message(g.channel, f.ID); !ok || m.Content != "edited" {
		t.Errorf("Message(followup) = %+v, %t; want edited", m, ok)
	}

	// The bot's token cannot see the ephemeral message, but can edit the
	// original; a PATCH without components keeps them.
	_, err = g.bot.ChannelMessageEdit(g.channel, f.ID, "x")
	wantAPIError(t, err, http.StatusNotFound, codeUnknownMessage)
	if _, err := g.bot.ChannelMessageEdit(g.channel, orig.ID, "by bot"); err != nil {
		t.Errorf("ChannelMessageEdit(original) = %v", err)
	}
	if m, err := g.srv.WaitMessageEdit(g.ctx, g.channel, orig.ID, 1); err != nil || m.Content != "by bot" {
		t.Errorf("WaitMessageEdit() = %q, %v; want \"by bot\"", m.Content, err)
	}
	if r := g.srv.Rejected(); len(r) != 2 {
		t.Errorf("Rejected() = %v; want the early edit and the bot's edit of an ephemeral message", r)
	}
}

func TestTokenExpires(t *testing.T) {
	t.Parallel()
	g := newGame(t, func(s *Server) { s.TokenTTL = time.Nanosecond })
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, in)
	if err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "board"}); err != nil {
		t.Fatalf("InteractionRespond() = %v; the callback does not need the token", err)
	}
	content := "later"
	_, err := g.bot.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: &content})
	wantAPIError(t, err, http.StatusUnauthorized, codeInvalidWebhookToken)
}

// ExpireTokens ends the tokens issued so far, at once: their webhook
// routes refuse them, the bot's token still edits and deletes the messages
// they made, and a later interaction's token works.
func TestExpireTokens(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	board := g.start(t)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	old := g.send(t, in)
	if err := g.bot.respond(old, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "old"}); err != nil {
		t.Fatalf("InteractionRespond() = %v", err)
	}
	content := "before"
	if _, err := g.bot.InteractionResponseEdit(old.Interaction, &discordgo.WebhookEdit{Content: &content}); err != nil {
		t.Fatalf("InteractionResponseEdit() before ExpireTokens = %v", err)
	}

	g.srv.ExpireTokens()
	content = "after"
	_, err := g.bot.InteractionResponseEdit(old.Interaction, &discordgo.WebhookEdit{Content: &content})
	wantAPIError(t, err, http.StatusUnauthorized, codeInvalidWebhookToken)
	_, err = g.bot.InteractionResponse(old.Interaction)
	wantAPIError(t, err, http.StatusUnauthorized, codeInvalidWebhookToken)
	if m, ok := g.srv.Original(in); !ok || m.Content != "before" {
		t.Errorf("Original() after ExpireTokens = %q, %t; want the message as it was", m.Content, ok)
	}
	if _, err := g.bot.ChannelMessageEdit(g.channel, board.ID, "by bot"); err != nil {
		t.Errorf("ChannelMessageEdit() of an expired token's message = %v; want it edited", err)
	}
	if err := g.bot.ChannelMessageDelete(g.channel, board.ID); err != nil {
		t.Errorf("ChannelMessageDelete() of an expired token's message = %v; want it deleted", err)
	}

	fresh := g.send(t, g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board")))
	if err := g.bot.respond(fresh, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "new"}); err != nil {
		t.Fatalf("InteractionRespond() after ExpireTokens = %v", err)
	}
	if _, err := g.bot.InteractionResponseEdit(fresh.Interaction, &discordgo.WebhookEdit{Content: &content}); err != nil {
		t.Errorf("InteractionResponseEdit() with a token issued after ExpireTokens = %v", err)
	}
	if r := g.srv.Rejected(); len(r) != 2 {
		t.Errorf("Rejected() = %v; want the two requests with the expired token", r)
	}
	deletes, err := g.srv.WaitRequests(g.ctx, 1, func(r Request) bool { return r.Method == http.MethodDelete })
	if err != nil || len(deletes) != 1 || deletes[0].Path != apiPrefix+"/channels/"+g.channel+"/messages/"+board.ID || deletes[0].Status != http.StatusNoContent {
		t.Errorf("WaitRequests(DELETE) = %v, %v; want the bot's delete of the board", deletes, err)
	}
}

func TestFaultInjection(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	rateLimited := make(chan *discordgo.RateLimit, 1)
	g.bot.AddHandler(func(_ *discordgo.Session, r *discordgo.RateLimit) {
		select {
		case rateLimited <- r:
		default:
		}
	})
	g.srv.FailNext("POST", "/interactions/", http.StatusTooManyRequests, "", 100*time.Millisecond)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, in)
	if err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "board"}); err != nil {
		t.Fatalf("InteractionRespond() = %v; want success after discordgo's retry", err)
	}
	select {
	case r := <-rateLimited:
		if r.RetryAfter != 100*time.Millisecond {
			t.Errorf("RateLimit.RetryAfter = %v; want 100ms", r.RetryAfter)
		}
	case <-g.ctx.Done():
		t.Error("no RateLimit event")
	}
	var callbacks []Request
	for _, r := range g.srv.Requests() {
		if strings.HasSuffix(r.Path, "/callback") {
			callbacks = append(callbacks, r)
		}
	}
	if len(callbacks) != 2 || callbacks[0].Status != http.StatusTooManyRequests || !callbacks[0].Injected || callbacks[1].Status != http.StatusNoContent {
		t.Errorf("callbacks = %v; want an injected 429 then 204", callbacks)
	}
	if _, err := in.Response(g.ctx); err != nil {
		t.Errorf("Response() = %v", err)
	}

	// discordgo retries a 502 too, but not a 500.
	g.srv.FailNext("POST", "/channels/", http.StatusBadGateway, "", 0)
	if _, err := g.bot.ChannelMessageSend(g.channel, "hello"); err != nil {
		t.Errorf("ChannelMessageSend() after a 502 = %v; want a retry", err)
	}
	g.srv.FailNext("", apiPrefix+"/channels/", http.StatusInternalServerError, "", 0)
	_, err := g.bot.ChannelMessageSend(g.channel, "hello")
	wantAPIError(t, err, http.StatusInternalServerError, 0)
	wantNoRejected(t, g.srv)
}

func TestShards(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ctx := testContext(t)
	bots := make([]*bot, 2)
	for i := range bots {
		bots[i] = connect(t, srv, func(s *discordgo.Session) { s.ShardID, s.ShardCount = i, 2 })
	}
	if err := srv.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady() = %v", err)
	}
	for i, id := range srv.Identifies() {
		if id.Shard == nil || *id.Shard != [2]int{i, 2} {
			t.Errorf("Identifies()[%d] = %v; want shard [%d 2]", i, id, i)
		}
	}
	guild := fmt.Sprint(uint64(7) << 22) // shard 7 % 2 = 1
	member := srv.NewMember("alice")
	if err := srv.Send(ctx, srv.SlashCommand(guild, srv.NewID(), member, "ttt").Unchecked()); err != nil {
		t.Fatalf("Send() = %v", err)
	}
	if i := bots[1].next(t, ctx); i.GuildID != guild {
		t.Errorf("shard 1 got guild %s; want %s", i.GuildID, guild)
	}
	if err := srv.Send(ctx, srv.SlashCommand("", srv.NewID(), member, "ttt").Unchecked()); err != nil {
		t.Fatalf("Send(DM) = %v", err)
	}
	if i := bots[0].next(t, ctx); i.GuildID != "" || i.User == nil || i.Member != nil {
		t.Errorf("shard 0 got %+v; want the DM, with user and no member", i.Interaction)
	}
	select {
	case i := <-bots[0].events:
		t.Errorf("shard 0 also got %s", i.ID)
	case i := <-bots[1].events:
		t.Errorf("shard 1 also got %s", i.ID)
	default:
	}
}

func TestShardFor(t *testing.T) {
	tests := []struct {
		guild  string
		shards int
		want   int
	}{
		{"", 4, 0},
		{"290926798626357999", 1, 0},
		{"290926798626357999", 4, int((290926798626357999 >> 22) % 4)},
		{fmt.Sprint(uint64(5) << 22), 3, 2},
	}
	for _, tt := range tests {
		if got, err := shardFor(tt.guild, tt.shards); got != tt.want || err != nil {
			t.Errorf("shardFor(%q, %d) = %d, %v; want %d, nil", tt.guild, tt.shards, got, err, tt.want)
		}
	}
	if _, err := shardFor("x", 2); err == nil {
		t.Error("shardFor(\"x\", 2) = nil error; want an error")
	}
}

func TestDropConnectionsResume(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil, func(s *discordgo.Session) { s.ShouldReconnectOnError = true })
	g.srv.DropConnections()
	if err := g.srv.WaitReady(g.ctx); err != nil {
		t.Fatalf("WaitReady() after DropConnections = %v", err)
	}
	if r, n := g.srv.Resumes(), len(g.srv.Identifies()); r != 1 || n != 1 {
		t.Errorf("Resumes() = %d, len(Identifies()) = %d; want 1, 1", r, n)
	}
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, in)
	if err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "back"}); err != nil {
		t.Fatalf("InteractionRespond() after resume = %v", err)
	}
}

func TestUnhandledAndAuth(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, "Bot "+testToken)
	_, err := s.GuildChannels("1")
	wantAPIError(t, err, http.StatusNotFound, 0)
	if u := srv.Unhandled(); len(u) != 1 || u[0].Path != apiPrefix+"/guilds/1/channels" {
		t.Errorf("Unhandled() = %v; want GET /guilds/1/channels", u)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.APIURL+"//users/@me", nil)
	req.Header.Set("Authorization", "Bot "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET //users/@me = %s; want 404, not a redirect", resp.Status)
	}
	if u := srv.Unhandled(); len(u) != 2 {
		t.Errorf("Unhandled() = %v; want 2", u)
	}
	if me, err := s.User("@me"); err != nil || me.ID != srv.BotUser.ID {
		t.Errorf("User(@me) = %+v, %v; want the bot", me, err)
	}
	for _, token := range []string{"Bot wrong", testToken} {
		_, err = newSession(t, srv, token).ChannelMessageSend(srv.NewID(), "hi")
		wantAPIError(t, err, http.StatusUnauthorized, 0)
	}
	gw, err := s.GatewayBot()
	if err != nil || gw.Shards != 1 || !strings.HasPrefix(gw.URL, srv.GatewayURL) {
		t.Errorf("GatewayBot() = %+v, %v; want 1 shard at %s", gw, err, srv.GatewayURL)
	}
}

func TestGatewayProtocol(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.HeartbeatInterval = 1234 * time.Millisecond
	dial := func() *websocket.Conn {
		ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL+"/?v=9&encoding=json", nil)
		if err != nil {
			t.Fatalf("Dial() = %v", err)
		}
		t.Cleanup(func() { ws.Close() })
		return ws
	}
	read := func(ws *websocket.Conn) map[string]any {
		t.Helper()
		var p map[string]any
		if err := ws.ReadJSON(&p); err != nil {
			t.Fatalf("ReadJSON() = %v", err)
		}
		return p
	}

	ws := dial()
	hello := read(ws)
	if hello["op"] != 10.0 || hello["d"].(map[string]any)["heartbeat_interval"] != 1234.0 {
		t.Errorf("hello = %v; want op 10 with heartbeat_interval 1234", hello)
	}
	compareKeys(t, "hello", fixture(t, "gateway_hello.json"), hello, "s", "t")
	if err := ws.WriteJSON(map[string]any{"op": 1, "d": nil}); err != nil {
		t.Fatal(err)
	}
	if ack := read(ws); ack["op"] != 11.0 {
		t.Errorf("answer to a heartbeat = %v; want op 11", ack)
	}
	if err := ws.WriteJSON(map[string]any{"op": 3, "d": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	_, _, err := ws.ReadMessage()
	if ce := new(websocket.CloseError); !errors.As(err, &ce) || ce.Code != CloseNotAuthenticated {
		t.Errorf("presence before identify: %v; want close %d", err, CloseNotAuthenticated)
	}

	// A resume of an unknown session gets Invalid Session, then may identify.
	ws = dial()
	read(ws)
	if err := ws.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": testToken, "session_id": "nope", "seq": 3}}); err != nil {
		t.Fatal(err)
	}
	if p := read(ws); p["op"] != 9.0 || p["d"] != false {
		t.Errorf("answer to resume = %v; want op 9 false", p)
	}
	if err := ws.WriteJSON(map[string]any{"op": 2, "d": map[string]any{"token": testToken, "intents": 0, "properties": map[string]string{"os": "linux"}}}); err != nil {
		t.Fatal(err)
	}
	ready := read(ws)
	if ready["t"] != "READY" || ready["s"] != 1.0 {
		t.Errorf("answer to identify = %v; want READY with s 1", ready)
	}
	ctx := testContext(t)
	if err := srv.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady() = %v", err)
	}
	if err := srv.Send(ctx, srv.Click("", srv.NewID(), srv.NewMember("a"), "1", "x")); !errors.Is(err, ErrUnknownMessage) {
		t.Errorf("Send(click on nothing) = %v; want ErrUnknownMessage", err)
	}
	if err := srv.Send(ctx, srv.SlashCommand("", srv.NewID(), srv.NewMember("a"), "x").Unchecked()); err != nil {
		t.Fatal(err)
	}
	if p := read(ws); p["t"] != "INTERACTION_CREATE" || p["s"] != 2.0 {
		t.Errorf("dispatch = %v; want INTERACTION_CREATE with s 2", p)
	}
}

// The gateway faults, at the protocol level: what each sends, and what
// the connection accepts afterwards.
func TestGatewayFaultsProtocol(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ctx := testContext(t)
	read := func(ws *websocket.Conn) map[string]any {
		t.Helper()
		var p map[string]any
		if err := ws.ReadJSON(&p); err != nil {
			t.Fatalf("ReadJSON() = %v", err)
		}
		return p
	}
	write := func(ws *websocket.Conn, p map[string]any) {
		t.Helper()
		if err := ws.WriteJSON(p); err != nil {
			t.Fatalf("WriteJSON() = %v", err)
		}
	}
	identify := map[string]any{"op": 2, "d": map[string]any{"token": testToken, "intents": 0, "properties": map[string]string{"os": "linux"}}}
	resume := func(session string) map[string]any {
		return map[string]any{"op": 6, "d": map[string]any{"token": testToken, "session_id": session, "seq": 1}}
	}
	// open connects and identifies; it returns the socket and session id.
	open := func() (*websocket.Conn, string) {
		t.Helper()
		ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL+"/?v=9&encoding=json", nil)
		if err != nil {
			t.Fatalf("Dial() = %v", err)
		}
		t.Cleanup(func() { ws.Close() })
		read(ws) // Hello
		write(ws, identify)
		ready := read(ws)
		if ready["t"] != "READY" {
			t.Fatalf("answer to identify = %v; want READY", ready)
		}
		return ws, ready["d"].(map[string]any)["session_id"].(string)
	}
	resumeOn := func(session string) map[string]any {
		t.Helper()
		ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL+"/?v=9&encoding=json", nil)
		if err != nil {
			t.Fatalf("Dial() = %v", err)
		}
		t.Cleanup(func() { ws.Close() })
		read(ws) // Hello
		write(ws, resume(session))
		return read(ws)
	}

	ws, _ := open()
	srv.Reconnect()
	if p := read(ws); p["op"] != 7.0 {
		t.Errorf("after Reconnect: %v; want op 7", p)
	}

	for _, resumable := range []bool{true, false} {
		ws, session := open()
		srv.InvalidateSessions(resumable)
		if p := read(ws); p["op"] != 9.0 || p["d"] != resumable {
			t.Errorf("after InvalidateSessions(%v): %v; want op 9 %v", resumable, p, resumable)
		}
		p := resumeOn(session)
		if resumable && p["t"] != "RESUMED" {
			t.Errorf("resume after InvalidateSessions(true) = %v; want RESUMED", p)
		}
		if !resumable && (p["op"] != 9.0 || p["d"] != false) {
			t.Errorf("resume after InvalidateSessions(false) = %v; want op 9 false", p)
		}
		if !resumable {
			// The invalidated socket may identify again.
			write(ws, identify)
			if p := read(ws); p["t"] != "READY" {
				t.Errorf("identify after op 9 = %v; want READY", p)
			}
		}
	}

	ws, _ = open()
	srv.StopHeartbeatACKs()
	before := srv.Heartbeats()
	write(ws, map[string]any{"op": 1, "d": nil})
	// Nothing comes back; a connection opened later is acknowledged.
	ws2, _ := open()
	write(ws2, map[string]any{"op": 1, "d": nil})
	if p := read(ws2); p["op"] != 11.0 {
		t.Errorf("heartbeat on a new connection: %v; want op 11", p)
	}
	if err := srv.WaitHeartbeats(ctx, before+1); err != nil {
		t.Fatal(err)
	}
	if got := srv.Heartbeats(); got != before+1 {
		t.Errorf("Heartbeats() = %d; want %d: the zombie's heartbeat is not acknowledged", got, before+1)
	}
	_ = ws.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, m, err := ws.ReadMessage(); err == nil {
		t.Errorf("the zombie connection sent %s; want nothing", m)
	}
}

// A global command is offered only in the contexts and to the installs it
// lists; a DM, a group DM (a user install) and a guild the user installed
// the app in carry what Discord sends there.
func TestContexts(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ctx := testContext(t)
	b := connect(t, srv)
	guildOnly := tttCommands()
	guildOnly[0].Name = "guildonly"
	guildOnly[0].Contexts = &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	anywhere := tttCommands()
	anywhere[0].Contexts = &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM, discordgo.InteractionContextPrivateChannel}
	anywhere[0].IntegrationTypes = &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall, discordgo.ApplicationIntegrationUserInstall}
	if _, err := b.ApplicationCommandBulkOverwrite(srv.AppID, "", append(guildOnly, anywhere...)); err != nil {
		t.Fatal(err)
	}
	alice := srv.NewMember("alice")
	guild := srv.NewID()

	if err := srv.Send(ctx, srv.SlashCommand("", srv.NewID(), alice, "guildonly", Sub("board"))); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("a guild-only command in a DM: Send = %v; want ErrUnknownCommand", err)
	}
	userInGuild := srv.SlashCommand(guild, srv.NewID(), alice, "guildonly", Sub("board"))
	userInGuild.UserInstall = true
	if err := srv.Send(ctx, userInGuild); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("a guild-install command for a user install: Send = %v; want ErrUnknownCommand", err)
	}
	groupDM := srv.SlashCommand("", srv.NewID(), alice, "ttt", Sub("board"))
	groupDM.GroupDM = true
	if err := srv.Send(ctx, groupDM); err == nil {
		t.Error("a group DM without a user install was sent; want an error")
	}

	for _, tt := range []struct {
		name        string
		in          *Interaction
		context     discordgo.InteractionContextType
		channel     discordgo.ChannelType
		owners      map[discordgo.ApplicationIntegrationType]string
		guildLocale discordgo.Locale
	}{
		{"DM", srv.SlashCommand("", srv.NewID(), alice, "ttt", Sub("board")), discordgo.InteractionContextBotDM, discordgo.ChannelTypeDM,
			map[discordgo.ApplicationIntegrationType]string{0: "0"}, ""},
		{"group DM", func() *Interaction {
			in := srv.SlashCommand("", srv.NewID(), alice, "ttt", Sub("board"))
			in.GroupDM, in.UserInstall = true, true
			return in
		}(), discordgo.InteractionContextPrivateChannel, discordgo.ChannelTypeGroupDM,
			map[discordgo.ApplicationIntegrationType]string{1: alice.User.ID}, ""},
		{"guild, user install", func() *Interaction {
			in := srv.SlashCommand(guild, srv.NewID(), alice, "ttt", Sub("board"))
			in.UserInstall, in.GuildLocale, in.Locale = true, discordgo.German, discordgo.Japanese
			return in
		}(), discordgo.InteractionContextGuild, discordgo.ChannelTypeGuildText,
			map[discordgo.ApplicationIntegrationType]string{1: alice.User.ID}, discordgo.German},
	} {
		if err := srv.Send(ctx, tt.in); err != nil {
			t.Fatalf("%s: Send = %v", tt.name, err)
		}
		i := b.next(t, ctx)
		if i.Context != tt.context || !maps.Equal(i.AuthorizingIntegrationOwners, tt.owners) {
			t.Errorf("%s: context %d, owners %v; want %d, %v", tt.name, i.Context, i.AuthorizingIntegrationOwners, tt.context, tt.owners)
		}
		raw, err := tt.in.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Channel struct{ Type discordgo.ChannelType } `json:"channel"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || p.Channel.Type != tt.channel {
			t.Errorf("%s: channel type %d (%v); want %d", tt.name, p.Channel.Type, err, tt.channel)
		}
		if tt.guildLocale != "" && (i.GuildLocale == nil || *i.GuildLocale != tt.guildLocale || i.Locale != discordgo.Japanese) {
			t.Errorf("%s: locales %v, %v; want user ja, guild %s", tt.name, i.Locale, i.GuildLocale, tt.guildLocale)
		}
		if tt.in.UserInstall && tt.in.GuildID != "" && i.AppPermissions&discordgo.PermissionViewChannel != 0 {
			t.Errorf("%s: app_permissions %d include View Channel; a user install has no bot in the guild", tt.name, i.AppPermissions)
		}
		_ = b.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "ok"})
	}
}

// Over the endpoint, Discord takes the answer when the response arrives: an
// edit that the bot sends right after flushing its answer, before its
// handler returns, finds the message.
func TestEndpointAnswerBeforeEdit(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	edited := make(chan error, 1)
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i struct{ ID, Token string }
		if err := json.NewDecoder(r.Body).Decode(&i); err != nil {
			t.Error(err)
			return
		}
		body := []byte(`{"type":4,"data":{"content":"board"}}`)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
		_ = http.NewResponseController(w).Flush()
		content := "board, edited"
		_, err := g.bot.InteractionResponseEdit(&discordgo.Interaction{AppID: g.srv.AppID, Token: i.Token}, &discordgo.WebhookEdit{Content: &content})
		edited <- err
	}))
	defer ep.Close()
	g.srv.UseEndpoint(ep.URL)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	if err := g.srv.Send(g.ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := <-edited; err != nil {
		t.Fatalf("the edit right after the answer = %v; want it to find the message", err)
	}
	if m, ok := g.srv.Original(in); !ok || m.Content != "board, edited" {
		t.Errorf("@original = %q, %v; want the edited board", m.Content, ok)
	}
}
