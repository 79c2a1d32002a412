package bot

import (
	"context"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/table"
)

// How boards reach a correspondence game's board once its token has
// expired, and ping its players: see the package documentation (doc.go).

// editInChannel edits the message of bd to show v, with the bot token.
func (bs *boards) editInChannel(ctx context.Context, bd table.Board, v view) error {
	comps := v.buttons()
	_, err := bs.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{
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
func (bs *boards) lookupLater(channelID, gameID string, bd table.Board, deadline time.Time) {
	if bd.MessageID != "" || bd.Token == "" || deadline.Sub(bd.At) <= tokenLife || !bs.tokenGood(bd) {
		return
	}
	bs.run.afterFunc(lookupAfter, func() { bs.lookupBoard(channelID, gameID, bd) })
}

// lookupBoard reads from Discord the message of bd, the board of game
// gameID drawn through an interaction, and has keeper keep its channel and
// id with the game, unless a newer board replaced it meanwhile. A failed read is
// tried again while the token is good; after that, the board stays as it
// is once its token has expired.
func (bs *boards) lookupBoard(channelID, gameID string, bd table.Board) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	msg, err := bs.dc.InteractionResponse(&discordgo.Interaction{AppID: bd.AppID, Token: bd.Token}, discordgo.WithContext(ctx))
	if err != nil {
		if bs.now().Add(lookupRetry).Sub(bd.At) < tokenLife {
			bs.log.Warn("could not read a new board message; trying again", "channel", channelID, "retry_in", lookupRetry, "err", err)
			bs.run.afterFunc(lookupRetry, func() { bs.lookupBoard(channelID, gameID, bd) })
			return
		}
		bs.log.Error("could not read a new board message: it cannot be updated once its token expires", "channel", channelID, "err", err)
		return
	}
	bs.keeper.keepBoard(ctx, channelID, gameID, bd, msg)
}

// pingMover tells the player to move in next, after a click by clicker, that it
// is their turn, when next is a correspondence game (outlivesToken) whose
// board message is known, and the player to move is neither the computer
// nor the one who clicked. The message speaks next's language, replies to
// the board, links to it, and pings that player alone.
func (bs *boards) pingMover(clicker string, next *match) {
	bd := next.Board
	if !outlivesToken(next) || bd.MessageID == "" {
		return
	}
	turn := next.Turn()
	mover := next.Players[turn]
	if turn == next.Computer || mover == clicker {
		return
	}
	link := "https://discord.com/channels/" + next.GuildID + "/" + bd.ChannelID + "/" + bd.MessageID
	failIfGone := false
	m := &discordgo.MessageSend{
		Content:         bs.texts.For(next.locale).T("move.your_turn", map[string]any{"Player": mention(mover), "Board": link}),
		AllowedMentions: allowed(mover),
		Reference:       &discordgo.MessageReference{MessageID: bd.MessageID, ChannelID: bd.ChannelID, GuildID: next.GuildID, FailIfNotExists: &failIfGone},
	}
	bs.run.background(func(ctx context.Context) {
		msg, err := bs.dc.ChannelMessageSendComplex(bd.ChannelID, m, discordgo.WithContext(ctx))
		if err != nil {
			bs.log.Warn("could not tell a player it is their move", "channel", next.ChannelID, "user", mover, "err", err)
			return
		}
		bs.keepPing(ctx, next, msg.ID)
	})
}

// keepPing has keeper keep id, the ping just posted for the turn of
// next, with the game, so that the change that ends the turn deletes it,
// and deletes the pings that keeper says have served.
func (bs *boards) keepPing(ctx context.Context, next *match, id string) {
	for _, p := range bs.keeper.keepPing(ctx, next, id) {
		bs.deletePing(p.channelID, p.id)
	}
}

// deletePing deletes, in the background, the ping id in channelID, whose
// turn is over. One that somebody deleted already is no matter.
func (bs *boards) deletePing(channelID, id string) {
	bs.run.background(func(ctx context.Context) {
		if err := bs.dc.ChannelMessageDelete(channelID, id, discordgo.WithContext(ctx)); err != nil && !unknownMessage(err) {
			bs.log.Warn("could not delete a ping whose turn is over", "channel", channelID, "err", err)
		}
	})
}
