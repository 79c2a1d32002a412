package bot

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Source is where the bot's code lives, for /ttt about.
const Source = "https://github.com/tttbot/tttbot"

// invitePermissions are the permissions the invite link asks for in a
// server: see its channels, send and edit messages with links and
// pictures, and read the messages it drew (a long game's board is edited
// through the channel once its interaction token has expired). Answers
// to interactions need none of them.
const invitePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionEmbedLinks | discordgo.PermissionAttachFiles | discordgo.PermissionReadMessageHistory

// InviteURL is the link that adds the app with its bot to a server.
func InviteURL(appID string) string {
	return fmt.Sprintf("https://discord.com/oauth2/authorize?client_id=%s&scope=bot+applications.commands&permissions=%d&integration_type=0",
		appID, invitePermissions)
}

// UserInstallURL is the link that adds the app to a user's account: /ttt
// then works in their DMs, group DMs and every server.
func UserInstallURL(appID string) string {
	return "https://discord.com/oauth2/authorize?client_id=" + appID + "&scope=applications.commands&integration_type=1"
}

// aboutWithin bounds the calls /ttt about makes (Discord's count of
// servers, the store's of games): an answer with "unknown" beats none.
const aboutWithin = time.Second

// showAbout answers /ttt about, to the user alone, in their language.
func (rd *records) showAbout(ctx context.Context, req *request) error {
	l := req.lang
	unknown := l.T("about.unknown", nil)
	cctx, cancel := context.WithTimeout(ctx, aboutWithin)
	defer cancel()
	servers, games := unknown, unknown
	if f := rd.program.Servers; f != nil {
		if n, err := f(cctx); err == nil {
			servers = strconv.Itoa(n)
		} else {
			rd.log.Warn("could not count the servers for /ttt about", "err", err)
		}
	}
	if n, err := rd.store.CountGames(cctx); err == nil {
		games = strconv.Itoa(n)
	} else {
		rd.log.Warn("could not count the games for /ttt about", "err", err)
	}
	latency := l.T("about.no_gateway", nil)
	if f := rd.program.Latency; f != nil {
		latency = unknown // no heartbeat acknowledged yet
		if d := f(); d > 0 {
			latency = strconv.FormatInt(d.Milliseconds(), 10) + " ms"
		}
	}
	return req.say(ctx, l.T("about.text", map[string]any{
		"Version": rd.program.Version, "Started": rd.started.Unix(),
		"Servers": servers, "Games": games, "Latency": latency,
		"Invite": InviteURL(req.AppID), "UserInvite": UserInstallURL(req.AppID), "Source": Source,
	}))
}
