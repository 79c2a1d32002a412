package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
)

// boards keeps the bot's messages on Discord in line with the games once
// an answer has gone out: it edits boards, deletes the boards that newer
// ones replaced, pings players, puts pictures on big boards (picture.go),
// and reaches a board through its channel once its token has expired
// (see doc.go). All of it runs in the background, on the runner.
// What must be remembered with a game (a board's message id, a ping's id)
// it hands to keeper; it never locks a channel or saves by itself. It is
// safe for concurrent use.
type boards struct {
	dc       Discord
	catalog  *i18n.Catalog
	log      *slog.Logger
	now      func() time.Time
	run      *runner
	settings *settings
	keeper   keeper
	pictures *pictures // pictures of big boards (picture.go)
}

// keeper remembers, with the channel's game, what boards learned about
// its messages (tables does it, under the channel's lock).
type keeper interface {
	// keepBoard keeps msg as the message of bd, the board of game gameID
	// in channelID, unless a newer board replaced it.
	keepBoard(ctx context.Context, channelID, gameID string, bd store.Board, msg *discordgo.Message)
	// keepPing keeps id as the ping of next's turn, says whether it did,
	// and returns the pings to delete now. A reminder's ends its claim.
	keepPing(ctx context.Context, next *match, id string) (kept bool, del []pingRef)
	// releaseReminder ends the claim of next's reminder, which Discord
	// refused: to be tried again (retry), or given up for the turn.
	releaseReminder(ctx context.Context, next *match, retry bool)
	// renewReminder renews the claim of next's reminder, which waited
	// past its end: next with the claim renewed, unless it was lost.
	renewReminder(ctx context.Context, next *match) (*match, bool)
}

// followUp queues fu, what a kept change leaves to do on Discord, and
// returns err, the outcome of the change, so that a handler ends with
// return b.boards.followUp(b.postBoard(…)).
func (bs *boards) followUp(fu followUps, err error) error {
	next := fu.shown
	if next == nil {
		return err
	}
	if fu.retire != nil {
		bs.retire(fu.retire, next)
	}
	if fu.picture {
		if ref := bs.boardRef(next); ref != nil {
			bs.pictures.drawLater(ref, next)
		}
	}
	if fu.lookup {
		bs.lookupLater(next.ChannelID, next.ID, next.Board, next.Deadline) // a correspondence game's board outlives its token
	}
	if fu.pingFor != "" {
		bs.pingMover(fu.pingFor, next)
	}
	if fu.redraw {
		bs.editBoard(next, renderMatch(bs.catalog.For(next.locale), next.Match))
	}
	return err
}

// showTimeout shows next, whose player to move lost on time, on its board.
// Nobody asked: the board keeps the language it was drawn in.
func (bs *boards) showTimeout(next *match) {
	bs.editBoard(next, renderMatch(bs.catalog.For(next.locale), next.Match))
}

// showExpired says on the message of c, a challenge of the guild in
// channelID, that its time ran out. Edited outside the lock: a slow
// Discord must not hold up the channel. Nobody asked: the message keeps
// the language it was drawn in. The guild's timeout as it is now (a
// challenge does not keep the one it was opened with); the bot's if it
// cannot be read.
func (bs *boards) showExpired(ctx context.Context, guildID, channelID string, c *openChallenge) {
	timeout := bs.settings.table.ChallengeTimeout
	if tc, _, err := bs.settings.rules(ctx, guildID); err == nil {
		timeout = tc.ChallengeTimeout
	}
	bs.editLater(c.msg, renderChallenge(bs.catalog.For(c.locale), c.Challenge, challengeExpired, timeout), channelID)
}

// edit replaces the message that ref's @original points at with v.
func (bs *boards) edit(ctx context.Context, ref *discordgo.Interaction, v view) error {
	comps := v.buttons()
	_, err := bs.dc.InteractionResponseEdit(ref, &discordgo.WebhookEdit{
		Content:         &v.content,
		Components:      &comps,
		AllowedMentions: allowed(""),
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("edit message: %w", err)
	}
	return nil
}

// editLater edits in the background, for changes nobody waits for (a board
// that a newer message replaced). Errors are logged.
func (bs *boards) editLater(ref *discordgo.Interaction, v view, channelID string) {
	if ref == nil {
		return
	}
	bs.run.queue(func(ctx context.Context) {
		if err := bs.edit(ctx, ref, v); err != nil {
			bs.log.Warn("could not update an old message", "channel", channelID, "err", err)
		}
	})
}

// retire retires old's board message now that next is shown: a running
// game's older board is deleted; a finished game's board keeps its result
// and its final position (its cell buttons, disabled), without the Rematch
// button. The old message keeps the language it was drawn in.
func (bs *boards) retire(old, next *match) {
	l := bs.catalog.For(old.locale)
	switch {
	case old.ID == next.ID && !old.Over():
		bs.deleteBoard(old) // one board message per game
	case old.Judge.Size() > pictureAbove:
		// Its message may show a picture in place of the grid, which
		// stays: only the buttons go. The text is old's, as drawn.
		if ref := bs.boardRef(old); ref != nil {
			bs.editButtonsLater(ref, old.ChannelID)
		}
	default:
		bs.editBoard(old, renderRetired(l, old.Match))
	}
}

// editButtonsLater takes, in the background, the buttons off the message
// ref, leaving its text and attachments as they are.
func (bs *boards) editButtonsLater(ref *discordgo.Interaction, channelID string) {
	bs.run.queue(func(ctx context.Context) {
		none := []discordgo.MessageComponent{}
		_, err := bs.dc.InteractionResponseEdit(ref, &discordgo.WebhookEdit{Components: &none, AllowedMentions: allowed("")}, discordgo.WithContext(ctx))
		if err != nil {
			bs.log.Warn("could not update an old message", "channel", channelID, "err", fmt.Errorf("edit message: %w", err))
		}
	})
}

// deleteBoard deletes, in the background, the board message of m, which a
// newer message of the same game replaced: a game has one board message.
// It goes through the board's token while Discord accepts it, and after
// that through the channel when the bot knows the message (a
// correspondence game's board). Otherwise the old message stays, and its
// clicks are refused as out of date.
func (bs *boards) deleteBoard(m *match) {
	bd := m.Board
	switch {
	case bd.Token != "" && bs.tokenGood(bd):
		ref := &discordgo.Interaction{AppID: bd.AppID, Token: bd.Token}
		// A picture on its way has nowhere to go; one being put on is
		// waited for.
		turn := bs.pictures.edits.last(m.ID)
		bs.run.queue(func(ctx context.Context) {
			turn.do(func(func() bool) {
				if err := bs.dc.InteractionResponseDelete(ref, discordgo.WithContext(ctx)); err != nil {
					bs.log.Warn("could not delete a replaced board", "channel", m.ChannelID, "err", err)
				}
			})
		})
	case bd.MessageID != "":
		bs.run.queue(func(ctx context.Context) {
			if err := bs.dc.ChannelMessageDelete(bd.ChannelID, bd.MessageID, discordgo.WithContext(ctx)); err != nil {
				bs.log.Warn("could not delete a replaced board through its channel", "channel", m.ChannelID, "err", err)
			}
		})
	}
}

// editBoard edits, in the background, the board message of m with v:
// through its token while Discord accepts it (a board bigger than
// pictureAbove may then be a picture: pictures.editBoard), and after that
// through the channel when the bot knows the message (a correspondence
// game's board; a picture there too: pictures.editInChannel). Otherwise the old message keeps its buttons, whose clicks
// are refused as out of date.
func (bs *boards) editBoard(m *match, v view) {
	bd := m.Board
	switch ref := bs.boardRef(m); {
	case ref != nil && m.Judge.Size() > pictureAbove:
		bs.pictures.editBoard(ref, m, v)
	case ref != nil:
		bs.editLater(ref, v, m.ChannelID)
	case bd.MessageID != "" && m.Judge.Size() > pictureAbove:
		bs.pictures.editInChannel(m, v)
	case bd.MessageID != "":
		bs.run.queue(func(ctx context.Context) {
			if err := bs.editInChannel(ctx, bd, v); err != nil {
				bs.log.Warn("could not update an old board through its channel", "channel", m.ChannelID, "err", err)
			}
		})
	case bd.Token != "":
		bs.log.Debug("not updating an old board: its interaction token has expired", "channel", m.ChannelID)
	}
}

// boardRef returns the interaction whose @original is m's board message,
// or nil if it has none or Discord no longer accepts its token.
func (bs *boards) boardRef(m *match) *discordgo.Interaction {
	if m.Board.Token == "" || !bs.tokenGood(m.Board) {
		return nil
	}
	return &discordgo.Interaction{AppID: m.Board.AppID, Token: m.Board.Token}
}

// tokenGood says whether the bot still edits bd through its token.
func (bs *boards) tokenGood(bd store.Board) bool { return bs.now().Sub(bd.At) <= tokenLife }

// Correspondence games: reaching a board through its channel once its
// token has expired, and pinging players (see doc.go).

// editInChannel edits the message of bd to show v, with the bot token.
func (bs *boards) editInChannel(ctx context.Context, bd store.Board, v view) error {
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
func (bs *boards) lookupLater(channelID, gameID string, bd store.Board, deadline time.Time) {
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
func (bs *boards) lookupBoard(channelID, gameID string, bd store.Board) {
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
	if !outlivesToken(next) || next.Board.MessageID == "" {
		return
	}
	turn := next.Turn()
	mover := next.Players[turn]
	if turn == next.Computer || mover == clicker {
		return
	}
	content := bs.catalog.For(next.locale).T("move.your_turn", map[string]any{"Player": mention(mover), "Board": boardLink(next)})
	bs.pingInChannel(next, content, mover, "could not tell a player it is their move")
}

// pingInChannel posts content to next's channel in the background, as a
// reply to its board when that message is known, pinging mover alone, and
// keeps it as the ping of next's turn (keepPing); failure is logged as
// failed, with the error.
func (bs *boards) pingInChannel(next *match, content, mover, failed string) {
	channelID, m := channelPing(next, content, mover)
	bs.run.queue(func(ctx context.Context) {
		msg, err := bs.dc.ChannelMessageSendComplex(channelID, m, discordgo.WithContext(ctx))
		if err != nil {
			bs.log.Warn(failed, "channel", next.ChannelID, "user", mover, "err", err)
			return
		}
		bs.keepPing(ctx, next, msg.ID)
	})
}

// channelPing is the message that pings mover in next's channel with
// content, as a reply to its board when that message is known, and the
// channel's id.
func channelPing(next *match, content, mover string) (string, *discordgo.MessageSend) {
	bd := next.Board
	channelID := boardChannel(next)
	m := &discordgo.MessageSend{Content: content, AllowedMentions: allowed(mover)}
	if bd.MessageID != "" {
		failIfGone := false
		m.Reference = &discordgo.MessageReference{MessageID: bd.MessageID, ChannelID: channelID, GuildID: next.GuildID, FailIfNotExists: &failIfGone}
	}
	return channelID, m
}

// boardLink is the link to m's board message, which must be known.
func boardLink(m *match) string {
	return "https://discord.com/channels/" + cmp.Or(m.GuildID, "@me") + "/" + boardChannel(m) + "/" + m.Board.MessageID
}

// keepPing has keeper keep id, the ping just posted for the turn of
// next, with the game, so that the change that ends the turn deletes it,
// and deletes the pings that keeper says have served.
func (bs *boards) keepPing(ctx context.Context, next *match, id string) {
	kept, del := bs.keeper.keepPing(ctx, next, id)
	for _, p := range del {
		bs.deletePing(p)
	}
	if kept {
		bs.log.Debug("ping kept", "channel", next.ChannelID, "ping", id)
	}
}

// reminderText is the reminder of m's turn in l's language: it mentions
// the player to move, says when their time runs out, and links to the
// board when its message is known.
func reminderText(l *i18n.Language, m *match) string {
	data := map[string]any{"Player": mention(m.Players[m.Turn()]), "Deadline": m.Deadline.Unix()}
	if bd := m.Board; bd.MessageID != "" {
		data["Board"] = boardLink(m)
		return l.T("move.reminder_board", data)
	}
	return l.T("move.reminder", data)
}

// deletePing deletes, in the background, the ping p, whose turn is over:
// a follow-up through its token while Discord accepts it, any other
// through its channel. One that somebody deleted already is no matter.
func (bs *boards) deletePing(p pingRef) {
	bs.run.queue(func(ctx context.Context) {
		var err error
		if p.hook != nil && !bs.now().After(p.until) {
			err = bs.dc.FollowupMessageDelete(p.hook, p.id, discordgo.WithContext(ctx))
		} else {
			err = bs.dc.ChannelMessageDelete(p.channelID, p.id, discordgo.WithContext(ctx))
		}
		if err != nil && !unknownMessage(err) {
			bs.log.Warn("could not delete a ping whose turn is over", "channel", p.channelID, "err", err)
		}
	})
}

// remind tells the player to move in next, in the background, that half
// of their time has passed and when it runs out, pinging them alone; the
// message is kept as the turn's ping (keepPing), which replaces a
// correspondence ping sent for the turn: one message per turn, the latest
// to notify the player, and the one that says when time runs out. It
// speaks next's language and links to the board when its message is
// known.
//
// It goes where the board is reachable for the whole turn: as a follow-up
// through the board's token when that outlives the turn (a short turn,
// as anywhere the app is only installed by a user), else to the channel
// with the bot's token (a correspondence game, which only a server that
// installed the bot may have), as a reply to the board.
//
// next holds the claim of the turn's reminder until next.lease: the
// request is made only within it (a margin before its end), so that no
// other process, which may send the reminder once the claim ends, sends
// it too; a send that waited its turn in the queue past the claim's end
// renews it first, unless another process took it meanwhile. Keeping the
// message ends the claim; a refusal releases it, to
// be tried again if Discord may take it later (a rate limit that outlasts
// the claim, a 5xx, no answer), or gives the turn up (a 4xx).
func (bs *boards) remind(next *match) {
	mover := next.Players[next.Turn()]
	content := reminderText(bs.catalog.For(next.locale), next)
	var send func(ctx context.Context) (id string, err error)
	if ref := bs.boardRef(next); ref != nil && !outlivesToken(next) {
		params := &discordgo.WebhookParams{Content: content, AllowedMentions: allowed(mover)}
		send = func(ctx context.Context) (string, error) {
			msg, err := bs.dc.FollowupMessageCreate(ref, true, params, discordgo.WithContext(ctx))
			if err != nil {
				return "", err
			}
			return followupPing + msg.ID, nil
		}
	} else {
		channelID, m := channelPing(next, content, mover)
		send = func(ctx context.Context) (string, error) {
			msg, err := bs.dc.ChannelMessageSendComplex(channelID, m, discordgo.WithContext(ctx))
			if err != nil {
				return "", err
			}
			return msg.ID, nil
		}
	}
	bs.run.queue(func(ctx context.Context) {
		// The store's writes after the request have their own time: the
		// request may have used all of the claim's.
		settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), editWithin)
		defer cancel()
		left := next.lease.Sub(bs.now()) - remindMargin
		if left < minRemindLease/2 {
			// It waited its turn until the claim is (nearly) over.
			renewed, ok := bs.keeper.renewReminder(settle, next)
			if !ok {
				bs.log.Info("a reminder waited its turn to be sent past its claim, and its turn ended or another process took it", "channel", next.ChannelID)
				return
			}
			next = renewed
			left = next.lease.Sub(bs.now()) - remindMargin
		}
		sendCtx, stop := context.WithTimeout(ctx, left)
		id, err := send(sendCtx)
		stop()
		if err != nil {
			retry := mayTakeLater(err)
			bs.log.Warn("could not remind a player of their move", "channel", next.ChannelID, "user", mover, "retry", retry, "err", err)
			bs.keeper.releaseReminder(settle, next, retry)
			return
		}
		bs.keepPing(settle, next, id)
	})
}

// remindMargin is the part of a reminder's claim left unused by its
// request, for the request to end before the claim does.
const remindMargin = time.Second

// mayTakeLater says whether Discord may take a request later that it
// refused with err: a rate limit, its own trouble (5xx), no answer, or a
// request never sent; not a 4xx, which a retry would meet again.
func mayTakeLater(err error) bool {
	var rerr *discordgo.RESTError
	if errors.As(err, &rerr) && rerr.Response != nil {
		c := rerr.Response.StatusCode
		return c == http.StatusTooManyRequests || c >= 500
	}
	return true
}

// tellLater sends text, in the background, to the user of the interaction
// ref alone, as a follow-up of its answer. Over the HTTP endpoint Discord
// reads the answer from the response, perhaps after the follow-up arrives,
// and then knows no message to follow up: that is tried again
// (retryUnanswered).
func (bs *boards) tellLater(ref *discordgo.Interaction, text string) {
	bs.run.queue(func(ctx context.Context) {
		params := &discordgo.WebhookParams{Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: allowed("")}
		err := retryUnanswered(ctx, func() error {
			_, err := bs.dc.FollowupMessageCreate(ref, false, params, discordgo.WithContext(ctx))
			return err
		}, notAnsweredYet)
		if err != nil {
			bs.log.Warn("could not send a follow-up to the player alone", "channel", ref.ChannelID, "err", err)
		}
	})
}
