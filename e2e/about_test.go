package e2e

import (
	"strings"
	"testing"

	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// /ttt about through Discord: the servers Discord counts, the games played
// and both invite links, to the user alone.
func TestE2EAbout(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	h.srv.Guilds = 3
	alice := h.srv.NewMember("alice")
	ch := h.srv.NewID()
	h.slash(alice, ch, "start", discordtest.Str("difficulty", "easy"))
	r := h.slash(alice, ch, "about")
	if !r.Ephemeral {
		t.Errorf("/ttt about answered publicly")
	}
	for _, want := range []string{"Servers: 3", "games played: 1", "gateway latency: ", bot.InviteURL(h.srv.AppID), bot.UserInstallURL(h.srv.AppID), bot.Source} {
		if !strings.Contains(r.Message.Content, want) {
			t.Errorf("/ttt about answered %q; want it to contain %q", r.Message.Content, want)
		}
	}
}

// A bot that registered its commands in one guild, started again with
// global commands, removes the guild's copy: nobody sees /ttt twice.
func TestE2EGuildCommandsThenGlobal(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	guild := h.guild
	if n := len(h.srv.Commands(guild)); n != 1 {
		t.Fatalf("%d commands in the guild; want /ttt", n)
	}
	h.stop()
	h.vars["DISCORD_GUILD_ID"], h.guild = "", ""
	h.launch()
	if n := len(h.srv.Commands("")); n != 1 {
		t.Errorf("%d global commands; want /ttt", n)
	}
	if n := len(h.srv.Commands(guild)); n != 0 {
		t.Errorf("the guild still has %d commands of its own; want none", n)
	}
}
