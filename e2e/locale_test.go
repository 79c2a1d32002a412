package e2e

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/i18n"
)

// A German server, a player whose Discord speaks Japanese: the commands
// Discord registered carry their translations; the boards, which the
// channel sees, are German down to the Rematch button; the refusal, which
// only the player sees, is Japanese. The texts expected are the catalog's.
func TestE2ELocalized(t *testing.T) {
	t.Parallel()
	catalog, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	de, ja := catalog.For(string(discordgo.German)), catalog.For(string(discordgo.Japanese))
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		var ttt *discordgo.ApplicationCommand
		for _, c := range h.srv.Commands(h.guild) {
			if c.Name == "ttt" {
				ttt = c
			}
		}
		if ttt == nil {
			t.Fatal("/ttt is not registered")
		}
		if ttt.DescriptionLocalizations == nil || (*ttt.DescriptionLocalizations)[discordgo.German] != de.T("command.ttt.description", nil) {
			t.Errorf("/ttt registered with description_localizations %v; want the German description", ttt.DescriptionLocalizations)
		}
		for _, sub := range ttt.Options {
			want := de.T("command.ttt."+sub.Name+".name", nil)
			if got := sub.NameLocalizations[discordgo.German]; got != want || got == sub.Name {
				t.Errorf("/ttt %s registered with the German name %q; want %q", sub.Name, got, want)
			}
		}

		alice := h.srv.NewMember("alice")
		ch := h.srv.NewID()
		send := func(in *discordtest.Interaction) *discordtest.Response {
			t.Helper()
			in.Locale, in.GuildLocale = discordgo.Japanese, discordgo.German
			r := h.send(in)
			if c := r.Message.Content; strings.Contains(c, "<no value>") {
				t.Errorf("Discord got %q, with a placeholder left empty", c)
			}
			return r
		}
		header := de.T("board.header", map[string]any{"MarkX": "❌", "PlayerX": mention(alice), "MarkO": "⭕",
			"PlayerO": "<@" + h.srv.BotUser.ID + ">", "Size": 3, "Win": 3})

		r := send(h.srv.SlashCommand(h.guild, ch, alice, "ttt", discordtest.Sub("start")))
		wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, header)
		board := r.Message

		r = send(h.srv.Click(h.guild, ch, alice, board.ID, button(t, board, 0, 0, "")))
		wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, header)
		board = r.Message

		r = send(h.srv.SlashCommand(h.guild, ch, alice, "ttt", discordtest.Sub("move", discordtest.Int("row", 1), discordtest.Int("col", 1))))
		wantSaid(t, r, ja.T("move.occupied", map[string]any{"Row": 1, "Col": 1, "Empty": "⬜"}))

		// To the end, by the buttons: the last board offers a German rematch.
		for moves := 0; ; moves++ {
			cell := freeCell(board)
			if cell == "" {
				break
			}
			if moves == 5 {
				t.Fatalf("alice still has a cell to play after 5 more moves: %q", board.Content)
			}
			r = send(h.srv.Click(h.guild, ch, alice, board.ID, cell))
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, header)
			board = r.Message
		}
		rematch := button(t, board, -1, 0, "rematch/")
		for _, b := range board.Buttons() {
			if want := de.T("button.rematch", nil); b.CustomID == rematch && b.Label != want {
				t.Errorf("the final board's rematch button says %q; want %q", b.Label, want)
			}
		}
	})
}
