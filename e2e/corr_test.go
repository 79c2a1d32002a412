package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store"
)

// A correspondence game, end to end: a server gives a day per move; a
// click pings the player to move once, in a reply to the board, and the
// move deletes that ping; a day later, after a restart, and with every
// interaction token long expired, the last ping is deleted, and
// the timeout still shows on the boards, edited through the channel with
// the bot's token: the board of a game of clicks, whose id the click
// carried, and the board that /ttt start drew, whose id the bot read while
// its token was young. A member who installed the app themselves gets 14
// minutes per move whatever the server set.
func TestE2ECorrespondence(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		admin, alice, bob := h.manager("admin"), h.srv.NewMember("alice"), h.srv.NewMember("bob")
		wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 86400)),
			"• ✏️ Time per move (`turn_timeout`): **24 hours** (was 5 minutes)")
		help := h.srv.SlashCommand(h.guild, h.srv.NewID(), alice, "ttt", discordtest.Sub("help"))
		help.UserInstall = true
		wantSaid(t, h.send(help), "You have 14 minutes per move")

		// A game of clicks: the board is the challenge message.
		clicks := h.srv.NewID()
		board := h.challengeAccepted(clicks, alice, bob)
		wantBoard(t, h.click(alice, clicks, board.ID, button(t, board, 1, 1, "")), discordgo.InteractionResponseUpdateMessage, mention(bob)+" to move")
		posted := "/api/v9/channels/" + clicks + "/messages"
		pings, err := h.srv.WaitRequests(h.ctx, 2, func(r discordtest.Request) bool { return r.Method == http.MethodPost && r.Path == posted })
		if err != nil {
			t.Fatal(err)
		}
		link := "https://discord.com/channels/" + h.guild + "/" + clicks + "/" + board.ID
		for i, who := range []discordtest.Member{alice, bob} { // after bob accepted, after alice moved
			var p discordgo.MessageSend
			if err := json.Unmarshal(pings[i].Body, &p); err != nil {
				t.Fatal(err)
			}
			want := "⏳ " + mention(who) + ", it's your move: " + link
			if p.Content != want || p.Reference == nil || p.Reference.MessageID != board.ID ||
				p.AllowedMentions == nil || !slices.Equal(p.AllowedMentions.Users, []string{who.User.ID}) {
				t.Errorf("ping %d says %q, replying to %+v, mentioning %+v; want %q replying to the board, pinging %s alone",
					i, p.Content, p.Reference, p.AllowedMentions, want, who.User.Username)
			}
		}
		// Alice's ping served once she moved; bob's stays for his turn,
		// kept with the game.
		var ids [2]string
		for i, p := range pings {
			var m discordgo.Message
			if err := json.Unmarshal(p.Reply, &m); err != nil || m.ID == "" {
				t.Fatalf("ping %d answered %s: %v", i, p.Reply, err)
			}
			ids[i] = m.ID
		}
		if _, err := h.srv.WaitRequests(h.ctx, 1, deleted(clicks, ids[0])); err != nil {
			t.Errorf("alice's ping was not deleted after her move: %v", err)
		}
		if err := h.logs.WaitFor(h.ctx, `msg="ping kept" channel=`+clicks+" ping="+ids[1]); err != nil {
			t.Fatal(err)
		}
		if msgs := h.srv.Messages(clicks); len(msgs) != 2 || msgs[0].ID != board.ID && msgs[1].ID != board.ID {
			t.Errorf("the channel has %d messages; want the board and bob's ping", len(msgs))
		}

		// A game against the computer, drawn by /ttt start.
		started := h.srv.NewID()
		r := h.slash(alice, started, "start")
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" to move")
		if err := h.logs.WaitFor(h.ctx, `msg="board message kept" channel=`+started); err != nil {
			t.Fatal(err)
		}

		// A day goes by while the bot is down: every stored time moves a
		// day back, but for the deadlines, a moment from now; Discord's
		// tokens expire.
		h.stop()
		dayLater(t, h.vars["DATABASE_URL"], clicks, started)
		h.srv.ExpireTokens() // the harness fails the test if the bot still uses one
		h.launch()

		for _, b := range []struct{ channel, id, loser string }{{clicks, board.ID, mention(bob)}, {started, r.Message.ID, mention(alice)}} {
			m := waitFor(t, h, b.channel, b.id, "did not move in time")
			if !strings.Contains(m.Content, b.loser+" did not move in time") {
				t.Errorf("board %s after the timeout says %q; want %s out of time", b.id, m.Content, b.loser)
			}
			path := "/api/v9/channels/" + b.channel + "/messages/" + b.id
			if _, err := h.srv.WaitRequests(h.ctx, 1, func(r discordtest.Request) bool {
				return r.Method == http.MethodPatch && r.Path == path && r.Status == http.StatusOK
			}); err != nil {
				t.Errorf("board %s was not edited through PATCH %s: %v", b.id, path, err)
			}
		}
		// Bob's turn ended with the game: the bot that started after the
		// ping was posted deletes it, from what the store kept.
		if _, err := h.srv.WaitRequests(h.ctx, 1, deleted(clicks, ids[1])); err != nil {
			t.Errorf("bob's ping was not deleted when his time ran out: %v", err)
		}
		if msgs := h.srv.Messages(clicks); len(msgs) != 1 || msgs[0].ID != board.ID {
			t.Errorf("the channel has %d messages after the game; want the board alone", len(msgs))
		}
	})
}

// deleted matches a successful DELETE of message id in channel.
func deleted(channel, id string) func(discordtest.Request) bool {
	path := "/api/v9/channels/" + channel + "/messages/" + id
	return func(r discordtest.Request) bool {
		return r.Method == http.MethodDelete && r.Path == path && r.Status == http.StatusNoContent
	}
}

// shiftBack moves the start, the deadline, the board's time and the
// moves' times of g back by d.
func shiftBack(g *store.Game, d time.Duration) {
	g.StartedAt, g.Deadline, g.Board.At = g.StartedAt.Add(-d), g.Deadline.Add(-d), g.Board.At.Add(-d)
	for i := range g.Moves {
		g.Moves[i].At = g.Moves[i].At.Add(-d)
	}
}

// dayLater moves every time of the channels' games a day back, and their
// deadlines to a second from now, as if a day had passed.
func dayLater(t *testing.T, dbPath string, channels ...string) {
	t.Helper()
	st, err := store.OpenSQLite(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, ch := range channels {
		g, err := st.Current(ctx, ch)
		if err != nil || g == nil || !g.Running() {
			t.Fatalf("Current(%s) = %+v, %v; want a running game", ch, g, err)
		}
		if turn := g.Deadline.Sub(g.Board.At); turn < 23*time.Hour {
			t.Fatalf("the game in %s has a turn of %v; want a day", ch, turn)
		}
		shiftBack(g, g.Deadline.Sub(time.Now())-time.Second)
		if err := st.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
}

// waitFor waits until the message says want, and returns it.
func waitFor(t *testing.T, h *harness, channel, id, want string) discordtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
	defer cancel()
	m, ok := h.srv.Message(channel, id)
	for ok && !strings.Contains(m.Content, want) {
		var err error
		if m, err = h.srv.WaitMessageEdit(ctx, channel, id, m.Edits); err != nil {
			t.Fatalf("message %s never said %q: %v; it says %q", id, want, err, m.Content)
		}
	}
	if !ok {
		t.Fatalf("message %s is gone", id)
	}
	return m
}
