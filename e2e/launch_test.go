package e2e

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// openBoard returns the custom_id of the Open board button of m, or "".
func openBoard(m discordtest.Message) string {
	for _, b := range m.Buttons() {
		if strings.HasPrefix(b.CustomID, "launch/") {
			return b.CustomID
		}
	}
	return ""
}

// cells are the marks of m's cell buttons, in reading order.
func cells(m discordtest.Message) string {
	var s strings.Builder
	for _, b := range m.Buttons() {
		if strings.HasPrefix(b.CustomID, "move/") {
			s.WriteString(emojiName(b))
		}
	}
	return s.String()
}

// The way into the live board, on both transports, with the real binary:
// an app whose Activities Discord enabled (its entry point command handed
// to the app) keeps that command when the bot registers /ttt again; a
// board has Open board, which anyone (a spectator too) clicks to get
// LAUNCH_ACTIVITY, as does the entry point command. The game is the same
// after. A bot without the live board's settings draws no such button.
func TestE2EOpenBoard(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DISCORD_GUILD_ID": "", "WEB_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": "e2e-client-secret"}
	bothTransports(t, env, func(t *testing.T, h *harness) {
		id := h.srv.EnableActivities(int(bot.EntryPointAppHandler))
		h.restart() // registers again, now beside the entry point
		if c, handler, ok := h.srv.EntryPoint(); !ok || c.ID != id || handler != int(bot.EntryPointAppHandler) {
			t.Fatalf("after the bot registered, the entry point is %+v, handler %d, %v; want id %s kept, APP_HANDLER", c, handler, ok, id)
		}
		if n := len(h.srv.Commands("")); n != 2 {
			t.Fatalf("%d global commands; want /ttt and the entry point", n)
		}

		alice, spectator := h.srv.NewMember("alice"), h.srv.NewMember("sam")
		ch := h.srv.NewID()
		start := h.slash(alice, ch, "start", discordtest.Str("difficulty", "easy"))
		wantBoard(t, start, discordgo.InteractionResponseChannelMessageWithSource)
		launch := openBoard(start.Message)
		if launch == "" {
			t.Fatalf("the board has no Open board button: %+v", start.Message.Buttons())
		}
		for _, who := range []discordtest.Member{alice, spectator} {
			if r := h.click(who, ch, start.Message.ID, launch); r.Type != bot.InteractionResponseLaunchActivity {
				t.Errorf("Open board answered type %d; want LAUNCH_ACTIVITY (12)", r.Type)
			}
		}
		if r := h.send(h.srv.EntryPointCommand(h.guild, ch, spectator)); r.Type != bot.InteractionResponseLaunchActivity {
			t.Errorf("the entry point command answered type %d; want LAUNCH_ACTIVITY (12)", r.Type)
		}
		after := h.slash(alice, ch, "board")
		if openBoard(after.Message) == "" || cells(after.Message) != cells(start.Message) {
			t.Errorf("after the live board was opened /ttt board shows %s; want %s, with Open board", cells(after.Message), cells(start.Message))
		}
	})

	t.Run("without the live board", func(t *testing.T) {
		t.Parallel()
		h := startBot(t, nil)
		start := h.slash(h.srv.NewMember("alice"), h.srv.NewID(), "start", discordtest.Str("difficulty", "easy"))
		if id := openBoard(start.Message); id != "" {
			t.Errorf("a bot without WEB_ADDR and DISCORD_CLIENT_SECRET drew Open board %q", id)
		}
	})
}
