package bot

import (
	"cmp"
	"context"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// Correspondence games: a server may give each move up to a day
// (MaxTurnTimeout, /ttt config turn_timeout), far longer than the 15
// minutes for which Discord lets the bot edit a board through the token of
// the interaction that drew it (tokenLife).
//
// How a board outlives its token. A board is edited in place, as in every
// game; once its token has expired, with the bot's own token through
// PATCH and DELETE /channels/{channel}/messages/{id}. Discord lets an app
// edit its public interaction responses there (discord-api-docs#3090), and
// those routes' rate limits are per channel, which a game uses alone. The
// other way, posting a fresh board and retiring the old one, would post a
// new message at every timeout and still need the old one's id to retire
// it. So a game keeps its board's channel and message id with it
// (table.Board, stored). A click brings the id for free: a component
// interaction carries the message it is on, which UPDATE_MESSAGE redraws.
// A board drawn as a new message (a slash command, Rematch) has its id
// read from Discord (GET @original) lookupAfter after the answer, while
// its token is young: an answer given as the response of an HTTP
// interaction reaches Discord only after that response, so a read at once
// could find no message yet. Only a game whose board may outlive its token
// (outlivesToken) learns the id; a game with short turns makes exactly the
// calls it made before, and its boards stay as they are once their token
// has expired.
//
// Only where the server installed the bot. An app that a user installed,
// and that is not in the server, has no channel access: its boards live
// and die with their tokens. So a turn longer than MaxTimeout is given
// only to an interaction that shows the bot in the server, able to reach
// the channel (hasChannel); anywhere else the turn gets MaxTimeout,
// whatever the server's setting. The setting belongs to the server, but
// the cap applies per interaction, and so per move: the interaction that
// sets a deadline is the one that shows whether the bot will be able to
// reach the board when it falls.
//
// One ping per turn. A board drawn by a slash command is a new message
// that pings the player to move. A click redraws the board with
// UPDATE_MESSAGE, which pings nobody: fine while both players sit at the
// board, not when the next move may come tomorrow. So after a click that
// leaves a correspondence game to the other player, that player (never the
// computer) gets one short message, a reply to the board, that pings them
// (pingMover). It is posted with the bot token to the channel, which such
// a game may use anyway, rather than as a follow-up through the click's
// token, which over the HTTP transport could reach Discord before the
// click's answer. A turn has one move, so one ping; /ttt board pings
// nobody.
//
// A ping serves one turn. Its id is stored with the game (keepPing), and
// the change that ends that turn (a move, the end of the game) deletes it
// (servedPing), whichever process makes it, even after a restart: a long
// game leaves its board in the channel, not a trail of pings.

// hasChannel says whether i shows the bot in i's server able to reach its
// messages in i's channel with its own token: the server installed the app
// (authorizing_integration_owners names the guild under GUILD_INSTALL,
// "0"), and the bot's permissions in the channel (app_permissions) let it
// see the channel, post there and read its history (to reply to a board).
func hasChannel(i *discordgo.Interaction) bool {
	if i.GuildID == "" || i.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall] != i.GuildID {
		return false
	}
	const need = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionReadMessageHistory
	p := i.AppPermissions
	return p&discordgo.PermissionAdministrator != 0 || p&need == need
}

// rulesFor returns the rules of a game played through req: the guild's
// (rules), with turns of at most MaxTimeout where req does not show the bot
// able to reach the channel.
func (b *Bot) rulesFor(ctx context.Context, req *request) (table.Config, store.Settings, error) {
	tc, s, err := b.rules(ctx, req.GuildID)
	if err == nil && tc.TurnTimeout > MaxTimeout && !hasChannel(req.Interaction) {
		tc.TurnTimeout = MaxTimeout
	}
	return tc, s, err
}

// outlivesToken says whether the board of m may have to be reached after
// its token has expired: m runs, and the player to move loses later than
// the token's life after the board was drawn. It costs a comparison, on
// every move.
func outlivesToken(m *match) bool {
	return !m.Over() && !m.Deadline.IsZero() && m.Deadline.Sub(m.Board.At) > tokenLife
}

// clickedBoard names, in next's board, the message that the click req
// redraws as next's board, when next needs it: next outlives its token, or
// the board before the click was known (so that a correspondence game's
// final board can still be retired later).
func clickedBoard(req *request, next *match, known bool) {
	if req.Message == nil || req.Message.ID == "" || !known && !outlivesToken(next) {
		return
	}
	next.Board.ChannelID, next.Board.MessageID = req.ChannelID, req.Message.ID
}

// editInChannel edits the message of bd to show v, with the bot token.
func (b *Bot) editInChannel(ctx context.Context, bd table.Board, v view) error {
	comps := v.buttons()
	_, err := b.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{
		Channel: bd.ChannelID, ID: bd.MessageID,
		Content: &v.content, Components: &comps, AllowedMentions: allowed(""),
	}, discordgo.WithContext(ctx))
	return err
}

// lookupAfter is how long after answering with a new board message the bot
// asks Discord for its id; lookupRetry is the wait before asking again
// after a failure, for as long as the token is good.
const (
	lookupAfter = 3 * time.Second
	lookupRetry = 30 * time.Second
)

// lookupLater learns, after a while, the message of bd, the board of game
// gameID in channelID drawn as a new message, if the game needs it: its
// player to move loses at deadline, after bd's token has expired (as in
// outlivesToken), and the token is still good to ask with.
func (b *Bot) lookupLater(channelID, gameID string, bd table.Board, deadline time.Time) {
	if bd.MessageID != "" || bd.Token == "" || deadline.Sub(bd.At) <= tokenLife || !b.tokenGood(bd) {
		return
	}
	b.afterFunc(lookupAfter, func() { b.lookupBoard(channelID, gameID, bd) })
}

// lookupBoard reads from Discord the message of bd, the board of game
// gameID drawn through an interaction, and keeps its channel and id with
// the game, unless a newer board replaced it meanwhile. A failed read is
// tried again while the token is good; after that, the board stays as it
// is once its token has expired.
func (b *Bot) lookupBoard(channelID, gameID string, bd table.Board) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	msg, err := b.dc.InteractionResponse(&discordgo.Interaction{AppID: bd.AppID, Token: bd.Token}, discordgo.WithContext(ctx))
	if err != nil {
		if b.now().Add(lookupRetry).Sub(bd.At) < tokenLife {
			b.log.Warn("could not read a new board message; trying again", "channel", channelID, "retry_in", lookupRetry, "err", err)
			b.afterFunc(lookupRetry, func() { b.lookupBoard(channelID, gameID, bd) })
			return
		}
		b.log.Error("could not read a new board message: it cannot be updated once its token expires", "channel", channelID, "err", err)
		return
	}
	ch, err := b.lock(ctx, channelID)
	if err != nil {
		b.log.Warn("could not keep a board message", "channel", channelID, "err", err)
		return
	}
	defer b.unlock(ch)
	m := ch.match
	if m == nil || m.ID != gameID || m.Board.Token != bd.Token || m.Board.MessageID != "" {
		return // a newer board, or one whose message is known
	}
	next := m.Clone()
	next.Board.ChannelID, next.Board.MessageID = cmp.Or(msg.ChannelID, channelID), msg.ID
	if err := b.save(ctx, next); err != nil {
		// A conflict: another process changed the game, and drew a newer
		// board, first.
		b.log.Warn("could not keep a board message", "channel", channelID, "err", err)
		return
	}
	ch.match = next
	b.log.Debug("board message kept", "channel", channelID, "message", msg.ID)
}

// pingMover tells the player to move in next, after the click req, that it
// is their turn, when next is a correspondence game (outlivesToken) whose
// board message is known, and the player to move is neither the computer
// nor the one who clicked. The message speaks next's language, replies to
// the board, links to it, and pings that player alone.
func (b *Bot) pingMover(req *request, next *match) {
	bd := next.Board
	if !outlivesToken(next) || bd.MessageID == "" {
		return
	}
	turn := next.Turn()
	mover := next.Players[turn]
	if turn == next.Computer || mover == req.user.ID {
		return
	}
	link := "https://discord.com/channels/" + next.GuildID + "/" + bd.ChannelID + "/" + bd.MessageID
	failIfGone := false
	m := &discordgo.MessageSend{
		Content:         b.lang(next.locale).T("move.your_turn", map[string]any{"Player": mention(mover), "Board": link}),
		AllowedMentions: allowed(mover),
		Reference:       &discordgo.MessageReference{MessageID: bd.MessageID, ChannelID: bd.ChannelID, GuildID: next.GuildID, FailIfNotExists: &failIfGone},
	}
	b.background(func(ctx context.Context) {
		msg, err := b.dc.ChannelMessageSendComplex(bd.ChannelID, m, discordgo.WithContext(ctx))
		if err != nil {
			b.log.Warn("could not tell a player it is their move", "channel", next.ChannelID, "user", mover, "err", err)
			return
		}
		b.keepPing(ctx, next, msg.ID)
	})
}

// keepPing stores id, the ping just posted for the turn of next, with the
// game, so that the change that ends the turn deletes it. If that change
// came first (here or in another process), the ping has served already:
// it is deleted now.
func (b *Bot) keepPing(ctx context.Context, next *match, id string) {
	ch, err := b.lock(ctx, next.ChannelID)
	if err != nil {
		b.log.Warn("could not keep a ping", "channel", next.ChannelID, "err", err)
		return
	}
	defer b.unlock(ch)
	m := ch.match
	if m == nil || !sameTurn(next, m) {
		b.deletePing(next.Board.ChannelID, id)
		return
	}
	kept := m.Clone()
	kept.ping = id
	if err := b.save(ctx, kept); err != nil {
		// Most likely a conflict: another process changed the game since
		// the lock read it, with the move this ping asks for. A ping the
		// game cannot keep would stay for good: it goes now.
		b.log.Warn("could not keep a ping; deleting it", "channel", next.ChannelID, "err", err)
		b.deletePing(next.Board.ChannelID, id)
		return
	}
	ch.match = kept
	if m.ping != "" && m.ping != id {
		b.deletePing(m.Board.ChannelID, m.ping) // one ping per turn
	}
	b.log.Debug("ping kept", "channel", next.ChannelID, "ping", id)
}

// sameTurn says whether now is still the turn that then showed: the same
// game, running, with as many moves. A board drawn again (/ttt board)
// keeps the turn, and its ping: the new board pings nobody.
func sameTurn(then, now *match) bool {
	return now.ID == then.ID && !now.Over() && now.Judge.Len() == then.Judge.Len()
}

// servedPing takes from next, the change about to be saved over prev, the
// ping of prev's turn if next ends that turn, and returns it, for
// deletePing once next is current; "" if there is nothing to delete.
func servedPing(prev, next *match) string {
	if prev == nil || prev.ping == "" || prev.ID != next.ID || sameTurn(prev, next) {
		return ""
	}
	next.ping = ""
	return prev.ping
}

// deletePing deletes, in the background, the ping id in channelID, whose
// turn is over. One that somebody deleted already is no matter.
func (b *Bot) deletePing(channelID, id string) {
	b.background(func(ctx context.Context) {
		if err := b.dc.ChannelMessageDelete(channelID, id, discordgo.WithContext(ctx)); err != nil && !unknownMessage(err) {
			b.log.Warn("could not delete a ping whose turn is over", "channel", channelID, "err", err)
		}
	})
}
