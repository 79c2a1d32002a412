package bot

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// Correspondence games, with the clock moved by hand: a server sets turns
// of many hours; the board outlives its token and is then reached through
// the channel; the player to move is pinged once per turn; a user-installed
// app gets MaxTimeout per turn; games with short turns make no extra call.

const (
	bob          = "42"          // Mason's opponent
	boardMessage = "11100000001" // the message the challenge is on, which becomes the board
	channelPerms = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionReadMessageHistory
)

// install makes ic come from the fixture's channel and guild, through an
// app the server installed (the bot can reach the channel) or, with
// server false, one that the user installed (it cannot).
func install(ic *discordgo.InteractionCreate, server bool) *discordgo.InteractionCreate {
	ic.GuildID, ic.ChannelID = fixtureGuild, fixtureChannel
	if server {
		ic.AuthorizingIntegrationOwners = map[discordgo.ApplicationIntegrationType]string{discordgo.ApplicationIntegrationGuildInstall: fixtureGuild}
		ic.AppPermissions = channelPerms | discordgo.PermissionEmbedLinks
	} else {
		ic.AuthorizingIntegrationOwners = map[discordgo.ApplicationIntegrationType]string{discordgo.ApplicationIntegrationUserInstall: ic.Member.User.ID}
		ic.AppPermissions = discordgo.PermissionSendMessages | discordgo.PermissionEmbedLinks
	}
	return ic
}

// as makes user the one who acts in ic, with a token of its own.
func as(ic *discordgo.InteractionCreate, user string) *discordgo.InteractionCreate {
	ic.Member.User = &discordgo.User{ID: user, Username: "u" + user}
	ic.Token = "token-" + ic.ID
	return ic
}

// corrBot is a clocked bot whose guild gives turns of turn.
func corrBot(t *testing.T, turn time.Duration) (*Bot, *recorder, *clock) {
	t.Helper()
	b, rec, clk := newClockedBot(t)
	if err := b.stores.Settings.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, TurnTimeout: turn}); err != nil {
		t.Fatal(err)
	}
	return b, rec, clk
}

// challengeAccepted has Mason challenge bob and bob accept on
// boardMessage, through a server install; Mason (X) is to move.
func challengeAccepted(t *testing.T, b *Bot, rec *recorder) *match {
	t.Helper()
	return challengeAcceptedIn(t, b, rec, true)
}

// userChallengeAccepted is challengeAccepted through apps that the users
// installed: the bot cannot reach the channel.
func userChallengeAccepted(t *testing.T, b *Bot, rec *recorder) *match {
	t.Helper()
	return challengeAcceptedIn(t, b, rec, false)
}

func challengeAcceptedIn(t *testing.T, b *Bot, rec *recorder, server bool) *match {
	t.Helper()
	ctx := context.Background()
	resolved := map[string]any{"users": map[string]any{bob: map[string]any{"id": bob, "username": "bob"}}}
	b.serveIC(ctx, install(as(slashPayload(t, "start", []map[string]any{{"type": 6, "name": "opponent", "value": bob}}, resolved), mason), server))
	c, err := b.stores.Challenges.Challenge(ctx, fixtureChannel)
	if err != nil || c == nil {
		t.Fatalf("stored challenge = %v, %v; want one (answer %q)", c, err, rec.last(t).Data.Content)
	}
	b.serveIC(ctx, clickInstalled(t, bob, route{action: actAccept, id: c.ID}, server))
	if r := rec.last(t); r.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("accept answered %d %q; want the board", r.Type, r.Data.Content)
	}
	return current(t, b)
}

// click is user clicking the button of r on boardMessage, through a
// server install.
func click(t *testing.T, user string, r route) *discordgo.InteractionCreate {
	t.Helper()
	return clickInstalled(t, user, r, true)
}

// userClick is click through an app that the user installed.
func userClick(t *testing.T, user string, r route) *discordgo.InteractionCreate {
	t.Helper()
	return clickInstalled(t, user, r, false)
}

func clickInstalled(t *testing.T, user string, r route, server bool) *discordgo.InteractionCreate {
	t.Helper()
	ic := install(as(buttonPayload(t, r.String()), user), server)
	ic.Message.ID, ic.Message.ChannelID = boardMessage, fixtureChannel
	return ic
}

// current is the channel's game as stored.
func current(t *testing.T, b *Bot) *match {
	t.Helper()
	g, err := b.stores.Games.Current(context.Background(), fixtureChannel)
	if err != nil || g == nil {
		t.Fatalf("Current = %v, %v; want a game", g, err)
	}
	m, err := fromStored(g)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cell is the route of a click on (row, col), 1-based, of m's board.
func cell(m *match, row, col int) route {
	return route{action: actMove, id: m.ID, serial: m.Serial, row: row, col: col}
}

// A game of 20-hour turns whose board's token expired long ago: the
// timeout edits the board through the channel's message endpoint, with
// the bot's token, since the token would be refused.
func TestCorrespondenceTimeoutEditsThroughChannel(t *testing.T) {
	b, rec, clk := corrBot(t, 20*time.Hour)
	m := challengeAccepted(t, b, rec)
	if m.Board.MessageID != boardMessage || m.Board.ChannelID != fixtureChannel {
		t.Errorf("stored board message %s/%s; want the clicked %s/%s", m.Board.ChannelID, m.Board.MessageID, fixtureChannel, boardMessage)
	}
	if got, want := m.Deadline.Sub(clk.now()).Round(time.Millisecond), 20*time.Hour; got != want { // the store keeps microseconds
		t.Errorf("the first turn lasts %v; want %v", got, want)
	}
	b.run.bg.Wait() // Mason's ping is kept with the game
	clk.advance(20*time.Hour + time.Second)
	b.tables.expireTurn(fixtureChannel) // what the turn timer does when it fires
	b.Close()

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 0 {
		t.Errorf("%d edits through an interaction token; want none, every token has expired", len(rec.edits))
	}
	if len(rec.channelEdits) != 1 {
		t.Fatalf("%d edits through the channel; want the timeout", len(rec.channelEdits))
	}
	e := rec.channelEdits[0]
	if e.Channel != fixtureChannel || e.ID != boardMessage || !strings.Contains(*e.Content, mention(mason)+" did not move in time") {
		t.Errorf("channel edit of %s/%s says %q; want the board %s/%s saying the time ran out", e.Channel, e.ID, *e.Content, fixtureChannel, boardMessage)
	}
	if e.AllowedMentions == nil || len(e.AllowedMentions.Users) != 0 || len(e.AllowedMentions.Parse) != 0 {
		t.Errorf("the edit allows mentions %+v; want none", e.AllowedMentions)
	}
	// Mason was pinged when bob accepted; his turn is over, and the
	// timeout deletes the ping.
	if want := []string{fixtureChannel + "/sent-1"}; len(rec.sent) != 1 || !slices.Equal(rec.channelDeletes, want) {
		t.Errorf("%d pings sent, deleted %v; want Mason's ping deleted, %v", len(rec.sent), rec.channelDeletes, want)
	}
}

// A board drawn as a new message (a game against the computer started
// with /ttt start) has its id read from Discord while its token is good,
// and its timeout edits it through the channel too.
func TestCorrespondenceSlashBoardIsLookedUp(t *testing.T) {
	b, rec, clk := corrBot(t, 20*time.Hour)
	start := install(as(slashPayload(t, "start", nil, nil), mason), true)
	b.serveIC(context.Background(), start)
	m := current(t, b)
	if m.Board.MessageID != "" {
		t.Fatalf("board message %q known before anyone asked", m.Board.MessageID)
	}
	clk.advance(lookupAfter)
	b.boards.lookupBoard(fixtureChannel, m.ID, m.Board) // what the lookup timer does
	m = current(t, b)
	if want := "m-" + start.Token; m.Board.MessageID != want || m.Board.ChannelID != fixtureChannel {
		t.Fatalf("board message %s/%s after the lookup; want %s/%s", m.Board.ChannelID, m.Board.MessageID, fixtureChannel, want)
	}
	clk.advance(20 * time.Hour)
	b.tables.expireTurn(fixtureChannel)
	b.Close()

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.channelEdits) != 1 || rec.channelEdits[0].ID != m.Board.MessageID || !strings.Contains(*rec.channelEdits[0].Content, "did not move in time") {
		t.Errorf("channel edits %d; want one timing out the board %s", len(rec.channelEdits), m.Board.MessageID)
	}
	if len(rec.edits) != 0 || len(rec.sent) != 0 {
		t.Errorf("%d token edits and %d messages sent; want none (the computer's opponent is never pinged)", len(rec.edits), len(rec.sent))
	}
}

// After a click in a correspondence game, the player to move is pinged
// once, with a reply to the board; not the clicker, not the computer, not
// again for /ttt board, and not for a refused click.
func TestCorrespondenceClickPingsOnce(t *testing.T) {
	b, rec, _ := corrBot(t, 20*time.Hour)
	ctx := context.Background()
	m := challengeAccepted(t, b, rec) // bob's click: Mason to move
	b.serveIC(ctx, click(t, mason, cell(m, 1, 1)))
	b.serveIC(ctx, click(t, mason, cell(m, 2, 2))) // not his turn: refused
	wantEphemeral(t, rec.last(t), "It's not your turn")
	b.serveIC(ctx, install(as(slashPayload(t, "board", nil, nil), bob), true))
	if r := rec.last(t); r.Data.AllowedMentions == nil || len(r.Data.AllowedMentions.Users) != 0 {
		t.Errorf("/ttt board allows mentions %+v; want it to ping nobody", r.Data.AllowedMentions)
	}
	b.Close()
	kept := current(t, b).ping

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sent) != 2 {
		t.Fatalf("%d messages sent; want 2 pings: Mason after bob accepted, bob after Mason moved", len(rec.sent))
	}
	link := "https://discord.com/channels/" + fixtureGuild + "/" + fixtureChannel + "/" + boardMessage
	// Each ping is posted in the background after its click's answer, so
	// the two may reach Discord in either order: match them by content.
	for _, who := range []string{mason, bob} {
		want := english().T("move.your_turn", map[string]any{"Player": mention(who), "Board": link})
		i := slices.IndexFunc(rec.sent, func(m *discordgo.MessageSend) bool { return m.Content == want })
		if i < 0 {
			t.Errorf("no ping says %q; sent %q and %q", want, rec.sent[0].Content, rec.sent[1].Content)
			continue
		}
		p := rec.sent[i]
		if rec.sentTo[i] != fixtureChannel {
			t.Errorf("ping %d went to %s; want the board's channel %s", i, rec.sentTo[i], fixtureChannel)
		}
		if am := p.AllowedMentions; am == nil || !slices.Equal(am.Users, []string{who}) || len(am.Parse) != 0 || am.RepliedUser {
			t.Errorf("ping %d allows mentions %+v; want %s alone", i, p.AllowedMentions, who)
		}
		if r := p.Reference; r == nil || r.MessageID != boardMessage || r.FailIfNotExists == nil || *r.FailIfNotExists {
			t.Errorf("ping %d replies to %+v; want the board %s, sent even if it is gone", i, p.Reference, boardMessage)
		}
		// Mason's ping served once he moved. Bob's stays, kept with the
		// game, for his turn: /ttt board drew that turn again on a new
		// message, which pings nobody.
		id := "sent-" + strconv.Itoa(i+1)
		deleted := slices.Contains(rec.channelDeletes, fixtureChannel+"/"+id)
		switch {
		case who == mason && !deleted:
			t.Errorf("Mason's ping %s was not deleted after his move; deleted %v", id, rec.channelDeletes)
		case who == bob && (deleted || kept != id):
			t.Errorf("bob's ping %s: deleted %v, the game keeps %q; want it kept for his turn", id, deleted, kept)
		}
	}
}

// A ping lives as long as its turn: the move that ends the turn deletes
// the ping kept with the game, and a ping whose turn ended before it could
// be kept is deleted at once.
func TestCorrespondencePingLivesOneTurn(t *testing.T) {
	b, rec, _ := corrBot(t, 20*time.Hour)
	ctx := context.Background()
	m := challengeAccepted(t, b, rec) // Mason is pinged: sent-1
	b.run.bg.Wait()
	if got := current(t, b).ping; got != "sent-1" {
		t.Fatalf("the game keeps ping %q; want Mason's, sent-1", got)
	}
	b.serveIC(ctx, click(t, mason, cell(m, 1, 1))) // bob is pinged: sent-2
	b.run.bg.Wait()
	b.boards.keepPing(ctx, m, "late") // one more ping for Mason's turn, too late
	b.Close()
	if got := current(t, b).ping; got != "sent-2" {
		t.Errorf("the game keeps ping %q; want bob's, sent-2", got)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	slices.Sort(rec.channelDeletes)
	if want := []string{fixtureChannel + "/late", fixtureChannel + "/sent-1"}; !slices.Equal(rec.channelDeletes, want) {
		t.Errorf("deleted %v; want %v", rec.channelDeletes, want)
	}
}

// A game with short turns makes exactly the calls it made before the
// correspondence games: no ping, no lookup, no channel route, and its
// board's message is not kept.
func TestShortGameMakesNoExtraCall(t *testing.T) {
	b, rec, clk := corrBot(t, 0) // the bot's default: 5 minutes
	ctx := context.Background()
	m := challengeAccepted(t, b, rec)
	b.serveIC(ctx, click(t, mason, cell(m, 1, 1)))
	b.serveIC(ctx, install(as(slashPayload(t, "move", []map[string]any{intOpt("row", 2), intOpt("col", 2)}, nil), bob), true))
	b.serveIC(ctx, install(as(slashPayload(t, "board", nil, nil), bob), true))
	if m := current(t, b); m.Board.MessageID != "" || m.Board.ChannelID != "" {
		t.Errorf("board message %s/%s kept; want none in a short game", m.Board.ChannelID, m.Board.MessageID)
	}
	clk.advance(b.cfg.Table.TurnTimeout + time.Second)
	b.tables.expireTurn(fixtureChannel)
	b.Close()

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if n := len(rec.sent) + len(rec.lookups) + len(rec.channelEdits) + len(rec.channelDeletes); n != 0 {
		t.Errorf("%d sent, %d lookups, %d channel edits, %d channel deletes; want none",
			len(rec.sent), len(rec.lookups), len(rec.channelEdits), len(rec.channelDeletes))
	}
	if len(rec.edits) != 1 || len(rec.deleted) != 2 {
		t.Errorf("%d token edits and %d token deletes; want the timeout, and the two boards the slash commands replaced", len(rec.edits), len(rec.deleted))
	}
}

// A board replaced by /ttt move after its token expired is deleted through
// the channel: a game keeps one board message.
func TestCorrespondenceOldBoardDeletedThroughChannel(t *testing.T) {
	b, rec, clk := corrBot(t, 20*time.Hour)
	challengeAccepted(t, b, rec)
	clk.advance(3 * time.Hour)
	b.serveIC(context.Background(), install(as(slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil), mason), true))
	b.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// The old board, and Mason's ping from when bob accepted: he moved.
	slices.Sort(rec.channelDeletes)
	if want := []string{fixtureChannel + "/" + boardMessage, fixtureChannel + "/sent-1"}; !slices.Equal(rec.channelDeletes, want) || len(rec.deleted) != 0 {
		t.Errorf("deleted through the channel %v and through tokens %v; want %v through the channel", rec.channelDeletes, rec.deleted, want)
	}
}

// Turns longer than MaxTimeout need the bot to reach the channel with its
// own token; anywhere else the game starts, and goes on, with MaxTimeout
// per turn, whatever the server set. /ttt help says what applies there.
func TestTurnCappedWithoutChannel(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(ic *discordgo.InteractionCreate)
		want  time.Duration
	}{
		{"server install", func(ic *discordgo.InteractionCreate) { install(ic, true) }, 20 * time.Hour},
		{"server install, administrator", func(ic *discordgo.InteractionCreate) {
			install(ic, true).AppPermissions = discordgo.PermissionAdministrator
		}, 20 * time.Hour},
		{"user install", func(ic *discordgo.InteractionCreate) { install(ic, false) }, MaxTimeout},
		{"user and server install", func(ic *discordgo.InteractionCreate) {
			install(ic, true).AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationUserInstall] = mason
		}, 20 * time.Hour},
		{"server install, channel hidden", func(ic *discordgo.InteractionCreate) {
			install(ic, true).AppPermissions = discordgo.PermissionSendMessages | discordgo.PermissionReadMessageHistory
		}, MaxTimeout},
		{"server install, no history", func(ic *discordgo.InteractionCreate) {
			install(ic, true).AppPermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages
		}, MaxTimeout},
		{"no owners", func(ic *discordgo.InteractionCreate) {
			install(ic, true).AuthorizingIntegrationOwners = nil
		}, MaxTimeout},
		{"another guild's install", func(ic *discordgo.InteractionCreate) {
			install(ic, true).AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall] = "1"
		}, MaxTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, clk := corrBot(t, 20*time.Hour)
			ctx := context.Background()
			start := as(slashPayload(t, "start", nil, nil), mason)
			tt.setup(start)
			b.serveIC(ctx, start)
			m := current(t, b)
			if got := m.Deadline.Sub(clk.now()).Round(time.Millisecond); got != tt.want { // the store keeps microseconds
				t.Errorf("the game started with turns of %v; want %v", got, tt.want)
			}
			move := as(slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil), mason)
			tt.setup(move)
			b.serveIC(ctx, move)
			if got := current(t, b).Deadline.Sub(clk.now()).Round(time.Millisecond); got != tt.want {
				t.Errorf("after a move the turn lasts %v; want %v", got, tt.want)
			}
			help := as(slashPayload(t, "help", nil, nil), mason)
			tt.setup(help)
			b.serveIC(ctx, help)
			wantEphemeral(t, rec.last(t), "You have "+humanDuration(english(), tt.want)+" per move")
		})
	}
}

// A deadline a day away survives a restart: the new process arms the
// turn timer on it, and when it falls the board, whose token expired
// long before, is edited through the channel.
func TestCorrespondenceDeadlineSurvivesRestart(t *testing.T) {
	st := new(store.Memory)
	clk := &clock{t: time.Now()}
	cfg := DefaultConfig()
	cfg.Now = clk.now
	start := func(rec *recorder) *Bot {
		b := New(rec, StoresOf(st), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		b.SetSelf(botID)
		t.Cleanup(b.Close)
		return b
	}
	if err := st.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, TurnTimeout: MaxTurnTimeout}); err != nil {
		t.Fatal(err)
	}
	rec := new(recorder)
	b := start(rec)
	m := challengeAccepted(t, b, rec)
	b.Close()

	clk.advance(23 * time.Hour)
	rec = new(recorder)
	b = start(rec)
	if err := b.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	ch := mustLock(t, &b.tables.channels, fixtureChannel)
	armed := ch.turnTimer != nil && ch.turnAt.Equal(m.Deadline)
	b.tables.channels.unlock(ch)
	if !armed {
		t.Errorf("after the restart the turn timer is not armed on the deadline %v", m.Deadline)
	}
	if g := current(t, b); g.Over() {
		t.Fatalf("the game ended at the restart, an hour before its deadline: %v", g.End)
	}
	clk.advance(time.Hour + time.Second)
	b.tables.expireTurn(fixtureChannel)
	b.Close()
	if g := current(t, b); g.End != game.EndTimeout || g.Loser != game.X {
		t.Errorf("after the deadline the game ended %v, loser %v; want a timeout lost by X", g.End, g.Loser)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.channelEdits) != 1 || rec.channelEdits[0].ID != boardMessage || len(rec.edits) != 0 {
		t.Errorf("%d channel edits, %d token edits; want the timeout through the channel only", len(rec.channelEdits), len(rec.edits))
	}
}

// /ttt config accepts turns of a day and says where they apply.
func TestConfigLongTurns(t *testing.T) {
	clk := &clock{t: time.Now()}
	b, rec := clockedBotOn(t, new(store.Memory), clk)
	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, intOpt("turn_timeout", 86400)))
	r := rec.last(t)
	wantEphemeral(t, r, "• ✏️ Time per move (`turn_timeout`): **24 hours** (was 5 minutes)")
	note := english().T("config.turn_timeout_long", map[string]any{"Max": "14 minutes"})
	if !strings.Contains(r.Data.Content, note) {
		t.Errorf("summary %q; want the note %q", r.Data.Content, note)
	}
	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, intOpt("turn_timeout", 840)))
	if r := rec.last(t); strings.Contains(r.Data.Content, note) {
		t.Errorf("summary of 14-minute turns %q has the note about longer ones", r.Data.Content)
	}
}
