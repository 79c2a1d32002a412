package e2e

import (
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// A modal submit that comes without a message (the Move… modal's, as a
// hostile client may send it) has no message to update: the move is
// answered with the board as a new message, and a refusal with an
// ephemeral message, both of which Discord accepts (it refuses
// UPDATE_MESSAGE there, and the harness fails on any refusal).
func TestE2EModalSubmitWithoutMessage(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
		ch := h.srv.NewID()
		p := tapper{h: h, t: t, guild: h.guild, channel: ch, where: func(*discordtest.Interaction) {}}
		board := h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 7), discordtest.Int("win", 4))
		submit := func(text string) *discordtest.Response {
			t.Helper()
			open := h.srv.Click(h.guild, ch, alice, board.ID, button(t, board, -1, 0, "type/"))
			if r := p.send(open); r.Type != discordgo.InteractionResponseModal {
				t.Fatalf("Move… answered type %d %q; want the modal", r.Type, r.Message.Content)
			}
			return p.send(h.srv.SubmitModal(open, map[string]string{"cell": text}).WithoutMessage())
		}
		wantSaid(t, submit("nowhere"), "")
		r := submit("2 3")
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(bob)+" to move")
		if r.Message.ID == board.ID {
			t.Errorf("the move was answered on the board %s; want a new message", board.ID)
		}
	})
}
