package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store"
)

// A reminder, end to end: a server gives 10 minutes per move, and alice's
// turn is past its half when the bot comes back (her game's stored times
// moved 6 minutes back while it was down): she is reminded once, by a
// follow-up through her board's token that mentions her alone and says
// when her time runs out, and her move deletes it.
func TestE2EReminder(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		admin, alice, bob := h.manager("admin"), h.srv.NewMember("alice"), h.srv.NewMember("bob")
		wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 600)),
			"• ✏️ Time per move (`turn_timeout`): **10 minutes** (was 5 minutes)")
		ch := h.srv.NewID()
		board := h.challengeAccepted(ch, alice, bob)

		h.stop()
		deadline := movedBack(t, h.vars["DATABASE_URL"], ch, 6*time.Minute)
		h.launch()

		posted := func(r discordtest.Request) bool {
			return r.Method == http.MethodPost && strings.HasPrefix(r.Path, "/api/v9/webhooks/") && r.Status == http.StatusOK
		}
		reqs, err := h.srv.WaitRequests(h.ctx, 1, posted)
		if err != nil {
			t.Fatal(err)
		}
		var p discordgo.WebhookParams
		var m discordgo.Message
		if err := json.Unmarshal(reqs[0].Body, &p); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(reqs[0].Reply, &m); err != nil || m.ID == "" {
			t.Fatalf("the reminder was answered %s: %v", reqs[0].Reply, err)
		}
		want := "⏰ " + mention(alice) + ", it's your move — your time runs out <t:" + deadline + ":R>."
		if p.Content != want || p.Flags&discordgo.MessageFlagsEphemeral != 0 ||
			p.AllowedMentions == nil || !slices.Equal(p.AllowedMentions.Users, []string{alice.User.ID}) || len(p.AllowedMentions.Parse) != 0 {
			t.Errorf("reminder %q (flags %d) allowing %+v; want %q, public, pinging alice alone", p.Content, p.Flags, p.AllowedMentions, want)
		}
		if err := h.logs.WaitFor(h.ctx, `msg="ping kept" channel=`+ch); err != nil {
			t.Fatal(err)
		}
		if msgs := h.srv.Messages(ch); !slices.ContainsFunc(msgs, func(x discordtest.Message) bool { return x.ID == m.ID }) {
			t.Errorf("the channel's messages %+v lack the reminder %s", msgs, m.ID)
		}

		wantBoard(t, h.click(alice, ch, board.ID, button(t, board, 1, 1, "")), discordgo.InteractionResponseUpdateMessage, mention(bob)+" to move")
		if _, err := h.srv.WaitRequests(h.ctx, 1, func(r discordtest.Request) bool {
			return r.Method == http.MethodDelete && strings.HasPrefix(r.Path, "/api/v9/webhooks/") &&
				strings.HasSuffix(r.Path, "/messages/"+m.ID) && r.Status == http.StatusNoContent
		}); err != nil {
			t.Errorf("the reminder was not deleted after alice's move: %v", err)
		}
		if msgs := h.srv.Messages(ch); len(msgs) != 1 || msgs[0].ID != board.ID {
			t.Errorf("the channel has %d messages after the move; want the board alone", len(msgs))
		}
		var n int
		for _, r := range h.srv.Requests() {
			if posted(r) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d reminders; want 1", n)
		}
	})
}

// movedBack moves every time of the channel's game back by d, as if d
// had passed, and returns its deadline as a Unix time.
func movedBack(t *testing.T, dbPath, channel string, d time.Duration) string {
	t.Helper()
	st, err := store.OpenSQLite(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	g, err := st.Current(ctx, channel)
	if err != nil || g == nil || !g.Running() {
		t.Fatalf("Current(%s) = %+v, %v; want a running game", channel, g, err)
	}
	shiftBack(g, d)
	if err := st.Save(ctx, g); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(g.Deadline.Unix(), 10)
}
