package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// A server that turns pictures on sees its boards bigger than 8×8 as a
// picture: a manager sets /ttt config pictures:true; alice challenges bob
// to a 10×10 game; each board message, answered with its emoji grid, is
// then edited to carry exactly one attachment, board.png, and loses the
// grid from its text. After two moves, an accepted draw edits the same
// board message again: it still carries one picture, a new one in place
// of the old.
func TestE2EPictures(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		admin, alice, bob := h.manager("admin"), h.srv.NewMember("alice"), h.srv.NewMember("bob")
		ch := h.srv.NewID()
		wantSaid(t, h.slash(admin, ch, "config", discordtest.Bool("pictures", true)),
			"• ✏️ 9×9 and 10×10 boards as a picture, one upload per move (`pictures`): **yes** (was no)")

		board := h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 10))
		if !strings.Contains(board.Content, "⬜") {
			t.Errorf("the accepted challenge became %q; want the emoji board first", board.Content)
		}
		board = h.waitPicture(ch, board, mention(alice)+" to move")

		for _, mv := range []struct {
			who      discordtest.Member
			row, col int64
			next     discordtest.Member
		}{{alice, 5, 5, bob}, {bob, 5, 6, alice}} {
			r := h.slash(mv.who, ch, "move", discordtest.Int("row", mv.row), discordtest.Int("col", mv.col))
			wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(mv.next)+" to move", "⬜")
			board = h.waitPicture(ch, r.Message, mention(mv.next)+" to move")
		}

		r := h.slash(alice, ch, "draw")
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "offers "+mention(bob)+" a draw")
		h.click(bob, ch, r.Message.ID, button(t, r.Message, -1, 0, "drawyes/"))
		board = h.waitPicture(ch, board, "both players agreed")
		if n := enabledButtons(board); n != 1 {
			t.Errorf("the drawn board has %d enabled buttons; want only Rematch", n)
		}
	})
}

// waitPicture waits for the edits of board message m until it carries a
// picture it did not carry before, and checks it: exactly one attachment,
// board.png, and a text that says want without the emoji grid. It returns
// the message as edited.
func (h *harness) waitPicture(channel string, m discordtest.Message, want string) discordtest.Message {
	h.t.Helper()
	m = h.waitNewPicture(channel, m, func(discordtest.Message) bool { return true }, "a new picture")
	wantNoGrid(h.t, m)
	if !strings.Contains(m.Content, want) {
		h.t.Errorf("board %s says %q; want %q", m.ID, m.Content, want)
	}
	return m
}

// waitNewPicture waits for the edits of board message m until it carries a
// picture it did not carry before and done says so of it (what names that
// for the failure), checks that it carries exactly one attachment,
// board.png, and returns it.
func (h *harness) waitNewPicture(channel string, m discordtest.Message, done func(discordtest.Message) bool, what string) discordtest.Message {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
	defer cancel()
	old := make(map[string]bool)
	for _, a := range m.Attachments {
		old[a.ID] = true
	}
	for len(m.Attachments) == 0 || old[m.Attachments[len(m.Attachments)-1].ID] || !done(m) {
		next, err := h.srv.WaitMessageEdit(ctx, channel, m.ID, m.Edits)
		if err != nil {
			h.t.Fatalf("board %s never got %s: %v; it says %q with attachments %+v", m.ID, what, err, m.Content, m.Attachments)
		}
		m = next
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Filename != "board.png" {
		names := make([]string, len(m.Attachments))
		for i, a := range m.Attachments {
			names[i] = a.Filename
		}
		h.t.Errorf("board %s carries %q; want exactly one attachment, board.png", m.ID, names)
	}
	return m
}

// wantNoGrid checks that board message m, which carries a picture, does
// not also show the emoji grid.
func wantNoGrid(t testing.TB, m discordtest.Message) {
	t.Helper()
	if strings.Contains(m.Content, "⬜") || strings.Contains(m.Content, "#️⃣") {
		t.Errorf("board %s with a picture still shows the emoji grid: %q", m.ID, m.Content)
	}
}
