package e2e

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// The app installed by a user plays wherever that user is: in a DM with the
// bot (against it; a challenge there is refused in plain words), in a group
// DM with friends, and in a server that does not have the bot; in a server
// that has it, an open challenge is taken by whoever joins first, and a
// draw offer ends a game when the opponent accepts it.
func TestE2EPlayAnywhere(t *testing.T) {
	t.Parallel()
	bothTransports(t, map[string]string{"DISCORD_GUILD_ID": ""}, func(t *testing.T, h *harness) {
		alice, bob, carol := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("carol")
		slash := func(where func(*discordtest.Interaction), who discordtest.Member, channel, sub string, opts ...discordtest.Option) *discordtest.Response {
			in := h.srv.SlashCommand("", channel, who, "ttt", discordtest.Sub(sub, opts...))
			where(in)
			return h.send(in)
		}
		click := func(where func(*discordtest.Interaction), who discordtest.Member, channel, messageID, customID string) *discordtest.Response {
			in := h.srv.Click("", channel, who, messageID, customID)
			where(in)
			return h.send(in)
		}
		dm := func(*discordtest.Interaction) {}
		groupDM := func(in *discordtest.Interaction) { in.GroupDM, in.UserInstall = true, true }
		guild := h.srv.NewID()
		userInGuild := func(in *discordtest.Interaction) { in.GuildID, in.UserInstall = guild, true }
		botGuild := h.srv.NewID()
		inBotGuild := func(in *discordtest.Interaction) { in.GuildID = botGuild }

		t.Run("DM", func(t *testing.T) {
			ch := h.srv.NewID()
			wantSaid(t, slash(dm, alice, ch, "start", discordtest.User("opponent", bob)), "In a DM with me you play me")
			wantBoard(t, slash(dm, alice, ch, "start", discordtest.Str("difficulty", "easy")), discordgo.InteractionResponseChannelMessageWithSource, "vs")
		})

		for _, place := range []struct {
			name  string
			where func(*discordtest.Interaction)
		}{{"group DM", groupDM}, {"server without the bot", userInGuild}} {
			t.Run(place.name+": challenge and a move", func(t *testing.T) {
				ch := h.srv.NewID()
				r := slash(place.where, alice, ch, "start", discordtest.User("opponent", bob))
				wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "challenges "+mention(bob))
				r = click(place.where, bob, ch, r.Message.ID, button(t, r.Message, -1, 0, "accept/"))
				wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(alice)+" to move")
				r = click(place.where, alice, ch, r.Message.ID, button(t, r.Message, 1, 1, "move/"))
				wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(bob)+" to move")
			})
		}

		t.Run("open challenge", func(t *testing.T) {
			ch := h.srv.NewID()
			r := slash(inBotGuild, alice, ch, "start", discordtest.Bool("open", true))
			wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "Anyone can press **Join**")
			join := button(t, r.Message, -1, 0, "accept/")
			wantSaid(t, click(inBotGuild, alice, ch, r.Message.ID, join), "your own challenge")
			r = click(inBotGuild, carol, ch, r.Message.ID, join)
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(alice)+" vs", mention(carol))
		})

		t.Run("draw offer", func(t *testing.T) {
			ch := h.srv.NewID()
			r := slash(inBotGuild, alice, ch, "start", discordtest.User("opponent", bob))
			board := click(inBotGuild, bob, ch, r.Message.ID, button(t, r.Message, -1, 0, "accept/")).Message
			offer := slash(inBotGuild, alice, ch, "draw")
			wantBoard(t, offer, discordgo.InteractionResponseChannelMessageWithSource, "offers "+mention(bob)+" a draw")
			wantSaid(t, click(inBotGuild, alice, ch, offer.Message.ID, button(t, offer.Message, 0, 0, "drawyes/")), "your own offer")
			r = click(inBotGuild, bob, ch, offer.Message.ID, button(t, offer.Message, 0, 0, "drawyes/"))
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, "accepted", "the game is a draw")
			// The board says so too (edited after the answer).
			for !strings.Contains(board.Content, "both players agreed") {
				var err error
				if board, err = h.srv.WaitMessageEdit(h.ctx, ch, board.ID, board.Edits); err != nil {
					t.Fatalf("the board was not updated after the draw: %v", err)
				}
			}
		})
	})
}
