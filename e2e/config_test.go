package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// A server's settings change how its games are played: a manager sets a
// turn timeout of 2 seconds with /ttt config, and a game whose player
// does not move ends by timeout (the bot's own default is 5 minutes); the
// setting outlives a restart. Members without Manage Server are refused,
// ephemerally, and change nothing.
func TestE2EConfigTurnTimeout(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		admin, alice := h.manager("admin"), h.srv.NewMember("alice")
		ch := h.srv.NewID()

		wantSaid(t, h.slash(alice, ch, "config", discordtest.Int("turn_timeout", 600)), "Only members with the Manage Server permission")
		r := h.slash(admin, ch, "config", discordtest.Int("turn_timeout", 2))
		wantSaid(t, r, "• ✏️ Time per move (`turn_timeout`): **2 seconds** (was 5 minutes)")
		wantSaid(t, h.slash(alice, ch, "config"), "Only members with the Manage Server permission")
		wantSaid(t, h.slash(alice, ch, "help"), "You have 2 seconds per move")

		r = h.slash(alice, ch, "start")
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" to move", "time runs out")
		board := r.Message

		// The 2 s timer is what this test is about: wait for its edit.
		ctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
		defer cancel()
		for !strings.Contains(board.Content, "did not move in time") {
			var err error
			if board, err = h.srv.WaitMessageEdit(ctx, ch, board.ID, board.Edits); err != nil {
				t.Fatalf("the board never said the time ran out: %v; it says %q", err, board.Content)
			}
		}
		for _, want := range []string{mention(alice) + " did not move in time", "<@" + h.srv.BotUser.ID + "> wins by timeout"} {
			if !strings.Contains(board.Content, want) {
				t.Errorf("after the turn timeout the board says %q; want %q", board.Content, want)
			}
		}
		if n := enabledButtons(board); n != 1 {
			t.Errorf("timed-out board has %d enabled buttons; want only Rematch", n)
		}

		h.restart()
		wantSaid(t, h.slash(admin, ch, "config"), "• Time per move (`turn_timeout`): **2 seconds**\n")
	})
}
