package bot

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
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
	pictures *pictures  // pictures of big boards (picture.go)
	slots    boardSlots // each board's edits, one at a time, coalesced
	// pause waits d before a reminder's next try and says whether to
	// make it (pauseToRetry, if nil); tests pass one that does not wait.
	pause func(ctx context.Context, d time.Duration) bool
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
	// refused: to be tried again retryIn from now, or (0) given up for
	// the turn.
	releaseReminder(ctx context.Context, next *match, retryIn time.Duration)
	// renewReminder renews the claim of next's reminder, which waited
	// past its end: next with the claim renewed, unless it was lost.
	renewReminder(ctx context.Context, next *match) (*match, bool)
	// doneReminding marks the send of next's reminder done, whatever
	// became of it, reading nothing from the store (which may be what
	// failed); keepPing, releaseReminder and renewReminder do it too,
	// once they could read it.
	doneReminding(next *match)
	// current reads the channel's game from the store, under the
	// channel's lock (a change this process saved has been answered),
	// and calls fn with it (nil if it has none) before the lock is
	// released: no answer in the channel goes out meanwhile. fn must not
	// change it.
	current(ctx context.Context, channelID string, fn func(stored *match)) error
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
		bs.show(next, false)
	}
	if fu.lookup {
		bs.lookupLater(next.ChannelID, next.ID, next.Board, next.Deadline) // a correspondence game's board outlives its token
	}
	if fu.pingFor != "" {
		bs.pingMover(fu.pingFor, next)
	}
	if fu.redraw {
		bs.show(next, true)
	}
	if fu.offer {
		bs.offerInChat(next)
	}
	return err
}

// offerInChat posts in the background, in next's board's language, the
// draw offer that next holds, made on the live board, so that an
// opponent who plays in chat can answer it with its buttons: as a
// follow-up through the board's token while Discord takes it, else to
// the board's channel when the bot reaches it (reachesChannel);
// otherwise the page alone shows it.
func (bs *boards) offerInChat(next *match) {
	v := renderDrawOffer(bs.catalog.For(next.locale), next.Match, next.DrawOffer)
	comps := v.buttons()
	ref := bs.boardRef(next)
	if ref == nil && !reachesChannel(next) {
		return
	}
	bs.run.queue(func(ctx context.Context) {
		var err error
		if ref != nil {
			_, err = bs.dc.FollowupMessageCreate(ref, true, &discordgo.WebhookParams{Content: v.content, Components: comps, AllowedMentions: allowed(v.ping)}, discordgo.WithContext(ctx))
		} else {
			_, err = bs.dc.ChannelMessageSendComplex(boardChannel(next), &discordgo.MessageSend{Content: v.content, Components: comps, AllowedMentions: allowed(v.ping)}, discordgo.WithContext(ctx))
		}
		if err != nil {
			bs.log.Warn("could not post a draw offer made on the live board", "channel", next.ChannelID, "err", err)
		}
	})
}

// showTimeout shows next, whose player to move lost on time, on its board.
// Nobody asked: the board keeps the language it was drawn in.
func (bs *boards) showTimeout(next *match) { bs.show(next, true) }

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
func (bs *boards) edit(ctx context.Context, ref *discordgo.Interaction, v view, opts ...discordgo.RequestOption) error {
	comps := v.buttonsFor(bs.settings.activity)
	_, err := bs.dc.InteractionResponseEdit(ref, &discordgo.WebhookEdit{
		Content:         &v.content,
		Components:      &comps,
		AllowedMentions: allowed(""),
	}, append([]discordgo.RequestOption{discordgo.WithContext(ctx)}, opts...)...)
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
		bs.editRetired(old, renderRetired(l, old.Match))
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
		// The edits of the game's board not yet begun are dropped (a
		// newer board of the game draws itself); one being made is
		// waited for, so that it does not find its message gone. What
		// waits is what the request needs, not the game.
		bs.wantDeleted(m.ID, boardDelete{appID: bd.AppID, token: bd.Token, channelID: m.ChannelID})
	case bd.MessageID != "":
		channelID, boardChannelID, messageID := m.ChannelID, bd.ChannelID, bd.MessageID
		bs.run.queue(func(ctx context.Context) {
			if err := bs.dc.ChannelMessageDelete(boardChannelID, messageID, discordgo.WithContext(ctx)); err != nil {
				bs.log.Warn("could not delete a replaced board through its channel", "channel", channelID, "err", err)
			}
		})
	}
}

// A boardDelete is a replaced board to delete through its token: what
// the request needs, and the channel, for the log.
type boardDelete struct{ appID, token, channelID string }

// maxDeletesOwed bounds the replaced boards waiting to be deleted through
// their tokens, over all games: a few hundred bytes each. Answered
// interactions wait for the background work to keep up (owedHigh), but a
// Discord that answers slowly or not at all can still leave deletes
// owed; past this many, a replaced board is left as it is (its clicks
// are refused as out of date), and the log says how many were.
const maxDeletesOwed = 4096

// wantDeleted has the slot of game key delete d before its next edit,
// dropping the edit it wanted until then (of d's message), unless
// maxDeletesOwed are owed already: then d's board stays, which the log
// says, at most once per dropLogEvery with the count since.
func (bs *boards) wantDeleted(key string, d boardDelete) {
	if !bs.slots.owe() {
		if n, ok := bs.slots.dropped(bs.now(), dropLogEvery); ok {
			bs.log.Warn("too many replaced boards are waiting to be deleted: leaving these on Discord, their clicks refused as out of date", "channel", d.channelID, "left", n, "waiting", maxDeletesOwed)
		}
		bs.want(key, nil, nil, true)
		return
	}
	bs.run.owed.add(1)
	bs.want(key, nil, &d, true)
}

// dropLogEvery is how often, at most, the log says that replaced boards
// were left undeleted.
const dropLogEvery = 10 * time.Second

// deleteNow deletes d's message through its token, within ctx: each
// delete has its own time (editWithin from its start), however many wait
// behind it.
func (bs *boards) deleteNow(ctx context.Context, d boardDelete) {
	ref := &discordgo.Interaction{AppID: d.appID, Token: d.token}
	if err := bs.dc.InteractionResponseDelete(ref, discordgo.WithContext(ctx)); err != nil {
		bs.log.Warn("could not delete a replaced board", "channel", d.channelID, "err", err)
	}
}

// editRetired edits, in the background, the board message of m, a game
// whose newer message replaced it, with v: through its token while Discord
// accepts it, and after that through the channel when the bot knows the
// message. Otherwise the old message keeps its buttons, whose clicks are
// refused as out of date. It is one edit, outside the board's order
// (show): the message is no longer the game's board.
func (bs *boards) editRetired(m *match, v view) {
	bd := m.Board
	switch ref := bs.boardRef(m); {
	case ref != nil:
		bs.editLater(ref, v, m.ChannelID)
	case bd.MessageID != "":
		bs.run.queue(func(ctx context.Context) {
			if err := bs.editInChannel(ctx, bd, v); err != nil {
				bs.log.Warn("could not update an old board through its channel", "channel", m.ChannelID, "err", err)
			}
		})
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
func (bs *boards) editInChannel(ctx context.Context, bd store.Board, v view, opts ...discordgo.RequestOption) error {
	comps := v.buttonsFor(bs.settings.activity)
	_, err := bs.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{
		Channel: bd.ChannelID, ID: bd.MessageID,
		Content: &v.content, Components: &comps, AllowedMentions: allowed(""),
	}, append([]discordgo.RequestOption{discordgo.WithContext(ctx)}, opts...)...)
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
// failed, with the error. It goes with the turn's nonce (turnNonce), so
// that the REST layer's retry after a 5xx never pings twice.
func (bs *boards) pingInChannel(next *match, content, mover, failed string) {
	channelID, m := channelPing(next, content, mover)
	nonce := turnNonce("ping", next)
	bs.run.queue(func(ctx context.Context) {
		msg, err := bs.dc.ChannelMessageSendNonce(channelID, m, nonce, discordgo.WithContext(ctx))
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
// A delete that fails for a while (a rate limit, a 5xx, no answer) is
// made again after a pause, as a board's edit is (againAfter): deleting
// twice is no matter either.
func (bs *boards) deletePing(p pingRef) { bs.deletePingTry(p, 0) }

// deletePingTry is deletePing after tries failed tries.
func (bs *boards) deletePingTry(p pingRef, tries int) {
	bs.run.queue(func(ctx context.Context) {
		var err error
		if p.hook != nil && !bs.now().After(p.until) {
			err = bs.dc.FollowupMessageDelete(p.hook, p.id, discordgo.WithContext(ctx))
		} else {
			err = bs.dc.ChannelMessageDelete(p.channelID, p.id, discordgo.WithContext(ctx))
		}
		if err == nil || unknownMessage(err) {
			return
		}
		if pause, ok := againAfter(err, tries); ok {
			bs.log.Info("could not delete a ping whose turn is over; trying again", "channel", p.channelID, "in", pause, "err", err)
			bs.run.afterFunc(pause, func() { bs.deletePingTry(p, tries+1) })
			return
		}
		bs.log.Warn("could not delete a ping whose turn is over", "channel", p.channelID, "err", err)
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
// It goes to the channel with the bot's token, with the turn's nonce
// (reminderNonce), as a reply to the board when its message is known,
// wherever the bot reached the channel at the game's last interaction
// (store.Board.Reached: a server that installed the bot, which may post
// there) or the board's token does not outlive the turn (a
// correspondence game, which only such a server may have). Elsewhere (a
// user install, a DM, a server where the bot may not post), as a
// follow-up through the board's token, which outlives the turn there.
//
// next holds the claim of the turn's reminder until next.lease: the
// request is made only within it (a margin before its end), so that no
// other process, which may send the reminder once the claim ends, sends
// it too; a send that waited its turn in the queue past the claim's end
// renews it first, unless another process took it meanwhile. Keeping the
// message ends the claim; a refusal releases it, to be tried again if
// Discord certainly did not take it (a rate limit, once it has passed; a
// request never sent), or gives the turn up (a 4xx). An outcome unknown
// (a 5xx, no answer), which Discord may have taken, is tried again at
// once within the claim when the reminder carries a nonce (sendOnce),
// and gives the turn up when it does not (a follow-up), or when the
// claim's time runs out before Discord's answer is known.
func (bs *boards) remind(next *match) {
	mover := next.Players[next.Turn()]
	content := reminderText(bs.catalog.For(next.locale), next)
	var send func(ctx context.Context) (id string, err error)
	// The REST layer makes each request once: a 5xx is tried again here
	// (sendOnce), and only with a nonce. Nor does a rate limit hold a
	// worker: the reminder is tried again once it has passed
	// (releaseReminder).
	once := func(cfg *discordgo.RequestConfig) {
		discordgo.WithRestRetries(0)(cfg)
		discordgo.WithRetryOnRatelimit(false)(cfg)
	}
	nonce := ""
	if ref := bs.boardRef(next); ref != nil && !outlivesToken(next) && !next.Board.Reached {
		// Discord's webhooks take no nonce: a follow-up whose outcome
		// is unknown is not sent again.
		params := &discordgo.WebhookParams{Content: content, AllowedMentions: allowed(mover)}
		send = func(ctx context.Context) (string, error) {
			msg, err := bs.dc.FollowupMessageCreate(ref, true, params, discordgo.WithContext(ctx), once)
			if err != nil {
				return "", err
			}
			return followupPing + msg.ID, nil
		}
	} else {
		channelID, m := channelPing(next, content, mover)
		nonce = reminderNonce(next)
		send = func(ctx context.Context) (string, error) {
			msg, err := bs.dc.ChannelMessageSendNonce(channelID, m, nonce, discordgo.WithContext(ctx), once)
			if err != nil {
				return "", err
			}
			return msg.ID, nil
		}
	}
	bs.run.queue(func(ctx context.Context) {
		defer bs.keeper.doneReminding(next) // the claimed turn's, renewed or not
		// The store's writes after the request have their own time: the
		// request may have used all of the claim's.
		settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), editWithin)
		defer cancel()
		left := next.lease.Sub(bs.now()) - remindMargin
		if left < min(editWithin, remindLease(next, bs.now())-remindMargin)-time.Second {
			// It waited its turn long enough that the request would have
			// less time than a claim made now gives it (at most
			// editWithin): a request cut mid-flight may or may not have
			// been taken.
			renewed, ok := bs.keeper.renewReminder(settle, next)
			if !ok {
				bs.log.Info("a reminder waited its turn to be sent past its claim, and its turn ended or another process took it", "channel", next.ChannelID)
				return
			}
			next = renewed
			left = next.lease.Sub(bs.now()) - remindMargin
		}
		sendCtx, stop := context.WithTimeout(ctx, left)
		pause := bs.pause
		if pause == nil {
			pause = pauseToRetry
		}
		id, tries, err := sendOnce(sendCtx, send, nonce != "", pause)
		stop()
		if err != nil {
			retry := mayTakeLater(err) && tries == 1
			switch {
			case retry:
				bs.log.Warn("could not remind a player of their move; trying again", "channel", next.ChannelID, "user", mover, "err", err)
			case unknownMessage(err) && tries > 1:
				// The nonce's message: taken, and deleted since.
				bs.log.Info("Discord took a reminder without the bot hearing of it, and it was deleted since", "channel", next.ChannelID, "user", mover)
			case tries > 1 || maybeTaken(err):
				// Sending it again could remind the player twice: Discord
				// may have taken it, and the nonce vouches for a try
				// within the claim alone.
				bs.log.Warn("a reminder may have reached Discord without the bot hearing of it; not sending it again", "channel", next.ChannelID, "user", mover, "tries", tries, "err", err)
			default:
				bs.log.Warn("could not remind a player of their move; giving the turn's reminder up", "channel", next.ChannelID, "user", mover, "err", err)
			}
			var retryIn time.Duration
			if retry {
				retryIn = remindRetry
				if after, ok := retryAfter(err); ok {
					retryIn = max(after, remindRetry)
				}
			}
			bs.keeper.releaseReminder(settle, next, retryIn)
			return
		}
		if tries > 1 {
			bs.log.Info("a reminder of unknown outcome was tried again with its nonce", "channel", next.ChannelID, "tries", tries)
		}
		bs.keepPing(settle, next, id)
	})
}

// remindMargin is the part of a reminder's claim left unused by its
// request, for the request to end before the claim does.
const remindMargin = time.Second

// reminderNonce is the nonce of the reminder of m's turn (turnNonce).
func reminderNonce(m *match) string { return turnNonce("reminder", m) }

// turnNonce is the nonce of the message of kind (a turn's "ping" or
// "reminder", each sent once per turn) of m's turn: the same for every
// try of it, in any process, and another for every other kind and turn of
// any game, since Discord dedupes a nonce across all of the bot's
// messages. It is the kind's initial and 24 hex digits of a hash of both
// and the turn (turnKey), within Discord's 25 characters.
func turnNonce(kind string, m *match) string {
	sum := sha256.Sum256([]byte(kind + "/" + turnKey(m).String()))
	return kind[:1] + hex.EncodeToString(sum[:12])
}

// Tries of a reminder whose outcome is unknown (sendOnce).
const (
	remindTries      = 10                     // at most, the first included
	remindFirstPause = 100 * time.Millisecond // after the first; doubled after each
	remindMaxPause   = time.Second
)

// sendOnce calls send, and again while its outcome is unknown (a 5xx, no
// answer, an answer it could not read: maybeTaken) if withNonce says
// Discord creates its message once however often it is sent (a nonce
// with enforce_nonce), with a doubling pause, at most remindTries times,
// while ctx leaves time: every try then falls within ctx's time (at most
// editWithin), far inside the few minutes for which Discord holds a
// nonce. A rate limit met after an unknown outcome is waited out the
// same way, or ends the tries: a later try, released to any process,
// could come after Discord forgot the nonce. pauseFor waits between
// tries (pauseToRetry). It returns the message id, how many tries were
// made, and the last try's error.
func sendOnce(ctx context.Context, send func(context.Context) (string, error), withNonce bool, pauseFor func(context.Context, time.Duration) bool) (string, int, error) {
	pause := remindFirstPause
	for tries := 1; ; tries++ {
		id, err := send(ctx)
		if err == nil || !withNonce || tries == remindTries {
			return id, tries, err
		}
		wait := pause
		switch {
		case maybeTaken(err):
			pause = min(2*pause, remindMaxPause)
		case tries > 1 && mayTakeLater(err):
			if after, ok := retryAfter(err); ok {
				wait = max(wait, after)
			}
		default:
			return id, tries, err // a refusal, or a rate limit on the first try
		}
		if !pauseFor(ctx, wait) {
			return id, tries, err
		}
	}
}

// pauseToRetry waits d before a retry and reports true, unless ctx's
// deadline comes first (then it reports false at once, without waiting)
// or ctx ends while it waits.
func pauseToRetry(ctx context.Context, d time.Duration) bool {
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Add(d).Before(deadline) {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// mayTakeLater says whether a request that failed with err is to be made
// again: Discord certainly did not act on it, and may take it later (a
// rate limit, or a request never sent). Not a 4xx, which a retry would
// meet again, nor a request Discord may have acted on (maybeTaken).
func mayTakeLater(err error) bool {
	var rerr *discordgo.RESTError
	if errors.As(err, &rerr) && rerr.Response != nil {
		return rerr.Response.StatusCode == http.StatusTooManyRequests
	}
	var ns interface{ NotSent() bool }
	return errors.Is(err, errNotSent) || errors.As(err, &ns) && ns.NotSent()
}

// maybeTaken says whether Discord may have acted on a request that failed
// with err, which is not to be made again: a 5xx after it was written
// (Discord may have acted before its trouble), no answer, or one that
// could not be read (Discord took the request).
func maybeTaken(err error) bool {
	var rerr *discordgo.RESTError
	if errors.As(err, &rerr) && rerr.Response != nil {
		return rerr.Response.StatusCode >= 500
	}
	return !mayTakeLater(err)
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

// The edits of a game's board, in its slot (boardSlots, below).

// show draws m, a state of a game just saved, on its board in the
// background: with comps, its buttons too (else they stay as an answer
// drew them). A board bigger than pictureAbove may be a picture. It goes
// through the board's token while Discord accepts it, and after that, with
// comps, through the channel when the bot knows the message (a
// correspondence game's board); otherwise the old message keeps its
// buttons, whose clicks are refused as out of date. The stored game is
// drawn instead when it is newer, and after the edit too when it moved on
// meanwhile.
func (bs *boards) show(m *match, comps bool) {
	e := &boardEdit{m: m, comps: comps}
	if ref := bs.boardRef(m); !comps && ref != nil {
		// Its answer drew its buttons, after any row picked before it.
		e.await, e.picked = ref, m
	}
	bs.want(m.ID, e, nil, false)
}

// checkShown has the board of m, which the answer to ref (a row picked in
// the picker, read from the store) just drew with its buttons, drawn
// again if the stored game shows something else once that answer is on
// Discord: another process may have saved a move between the read and the
// answer, which would then hide it.
func (bs *boards) checkShown(m *match, ref *discordgo.Interaction) {
	bs.want(m.ID, &boardEdit{m: m, check: true, await: ref, picked: m, wait: true}, nil, false)
}

// want has the slot of game key want e (if not nil), and the deletion del
// (if not nil) first; replaced drops what it wanted until then (an edit
// of the message replaced). It queues a step of the slot unless one is
// queued or running.
func (bs *boards) want(key string, e *boardEdit, del *boardDelete, replaced bool) {
	if slot, start := bs.slots.ask(key, e, del, replaced); start {
		bs.run.queue(func(ctx context.Context) { bs.step(ctx, key, slot) })
	}
}

// step makes what the slot of game key wants, on an edit worker: the
// deletions, then the edit (bring). Once an edit is made, the slot checks
// the stored game again, in a step queued behind the work of other boards.
func (bs *boards) step(ctx context.Context, key string, slot *boardSlot) {
	dels, e, asked := bs.slots.take(slot)
	for _, d := range dels {
		// On a worker of their own: the game's older board messages
		// are deleted at once, whatever the slot does next (an edit of
		// the newest, which is another message).
		if !bs.run.queueDelete(func(ctx context.Context) { bs.deleteNow(ctx, d); bs.slots.paid() }) {
			bs.slots.paid()
		}
		bs.run.owed.add(-1) // owed as queued work now, if queued
	}
	var check *boardEdit
	if e != nil {
		drawn, comps, err := bs.bring(ctx, slot, e, bs.slots.current(slot, asked))
		if err != nil {
			bs.editAgain(key, e, err)
		}
		if drawn != nil {
			check = &boardEdit{m: drawn, check: true}
			if ref := bs.boardRef(drawn); comps && ref != nil {
				check.await, check.picked = ref, drawn
			} else {
				check.comps = comps
			}
		}
	}
	if bs.slots.done(key, slot, check) {
		bs.run.queue(func(ctx context.Context) { bs.step(ctx, key, slot) })
	}
}

// bring makes the edit e of slot's board: it waits for e.await's answer,
// reads the stored game, and draws it in place of e.m if it is newer; for
// a check, only if it shows something else than e.m, and Discord does not
// show it already; never what the slot's last edit drew. It returns what it
// drew, and whether with its buttons, or nil if it drew nothing or failed.
// current says whether e is still the newest edit wanted of the board.
//
// An edit that sets the board's buttons is made under the channel's lock,
// with the read: an answer of this process (a move, a row picked), made
// under that lock too, never lands between the read and the edit, where
// the edit would put back the buttons of a state the answer moved on from
// (a picker whose taps are all out of date) or close the row the answer
// opened. An edit of the text and picture alone leaves the buttons as the
// answers drew them, and is made after the lock is released.
func (bs *boards) bring(ctx context.Context, slot *boardSlot, e *boardEdit, current func() bool) (*match, bool, error) {
	if e.wait {
		// Over the HTTP endpoint Discord takes an answer once it has read
		// the response: the store is read once it has.
		bs.onDiscordNow(ctx, e.await, e.m.ChannelID)
	}
	var (
		m            *match
		comps, drawn bool
		locked       bool
		err          error
	)
	decide := func(stored *match) {
		lctx, cancel := context.WithTimeout(ctx, lockedEditWithin)
		defer cancel()
		if m, comps = bs.choose(lctx, slot, e, stored); m == nil || !bs.drawsButtons(m, comps) {
			return
		}
		locked = true
		// Under the lock, a rate limit or a 5xx is not waited out: the
		// edit fails at once, and is wanted again later (editAgain).
		drawn, err = bs.draw(lctx, m, comps, current, discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0))
	}
	if err := bs.keeper.current(ctx, e.m.ChannelID, decide); err != nil {
		bs.log.Warn("could not read a game before drawing its board", "channel", e.m.ChannelID, "err", err)
		decide(nil)
	}
	if m == nil {
		return nil, false, nil
	}
	if !locked {
		drawn, err = bs.draw(ctx, m, comps, current)
	}
	if !drawn {
		return nil, false, err
	}
	slot.drew = &boardEdit{m: m, comps: comps}
	return m, comps, nil
}

// lockedEditWithin bounds what bring does under a channel's lock (a read
// of the board on Discord, an edit of its buttons), for which the
// channel's interactions wait: well within the time an answer has, so
// that a slow Discord fails the edit, not the taps.
const lockedEditWithin = time.Second

// choose says what the edit e of slot's board draws, stored being the
// game as stored (nil if unknown): the state to draw and whether with its
// buttons, or nil to draw nothing (see bring). It runs under the channel's
// lock.
func (bs *boards) choose(ctx context.Context, slot *boardSlot, e *boardEdit, stored *match) (*match, bool) {
	m := e.m
	if stored != nil && stored.ID != m.ID && m.Board.Token != "" && stored.Board.Token == m.Board.Token {
		// The message is a newer game's board now (a rematch on the live
		// board), which that game's edits draw.
		return nil, false
	}
	if stored != nil && stored.ID == m.ID && stored.Version > m.Version {
		if !sameMessage(e.m, stored) {
			// A newer message of the game replaced this one, and is
			// drawn by whoever drew it; this one is being deleted.
			return nil, false
		}
		m = stored
	}
	if e.check && bs.sameShown(m, e.m) {
		return nil, false
	}
	comps := e.comps
	if e.picked != nil && !bs.sameShown(m, e.picked) {
		// The board's buttons are picked's, or those of an answer since.
		// A redraw of buttons that Discord shows already would only
		// close the row a player has just opened.
		msg := bs.onDiscordNow(ctx, e.await, m.ChannelID)
		if e.check && msg != nil && bs.onDiscord(msg, m) {
			return nil, false
		}
		comps = comps || msg == nil || !showsButtons(msg, renderMatch(bs.catalog.For(m.locale), m.Match))
	}
	if last := slot.drew; last != nil && bs.sameShown(m, last.m) && (last.comps || !comps) {
		return nil, false // drawn just before
	}
	return m, comps
}

// drawsButtons says whether draw(m, comps) sets the board's buttons: with
// comps, or through the board's token on a board that is never a picture
// (its edit is the whole board).
func (bs *boards) drawsButtons(m *match, comps bool) bool {
	return comps || m.Judge.Size() <= pictureAbove && bs.boardRef(m) != nil
}

// onDiscordNow reads the message that ref's answer drew, once Discord has
// it (retryUnanswered), and returns it; nil if it cannot.
func (bs *boards) onDiscordNow(ctx context.Context, ref *discordgo.Interaction, channelID string) *discordgo.Message {
	var msg *discordgo.Message
	err := retryUnanswered(ctx, func() error {
		var err error
		msg, err = bs.dc.InteractionResponse(ref, discordgo.WithContext(ctx))
		return err
	}, notAnsweredYet)
	if err != nil {
		bs.log.Debug("could not read a board after its answer", "channel", channelID, "err", err)
		return nil
	}
	return msg
}

// sameMessage says whether the board of stored, a later state of old's
// game, is the message old's board is on: a move keeps its board's
// message, and a board drawn as a new message (postBoard) has a new serial
// and no known id until it is looked up.
func sameMessage(old, stored *match) bool {
	a, b := old.Board.MessageID, stored.Board.MessageID
	switch {
	case a != "" && b != "":
		return a == b
	case old.Serial == stored.Serial:
		return true
	}
	return b != ""
}

// onDiscord says whether msg, a board message as Discord shows it, shows
// m: its text (with or without the grid) and its buttons and menus (it may
// have a row of the picker open).
func (bs *boards) onDiscord(msg *discordgo.Message, m *match) bool {
	l := bs.catalog.For(m.locale)
	v := boardView(l, m)
	if msg.Content != v.content && msg.Content != pictureView(l, m).content {
		return false
	}
	return showsButtons(msg, v)
}

// showsButtons says whether msg has every button and menu of v (and
// perhaps more: a row of the picker open).
func showsButtons(msg *discordgo.Message, v view) bool {
	shown := make(map[string]bool)
	for _, id := range customIDs(msg.Components) {
		shown[id] = true
	}
	for _, id := range customIDs(v.components) {
		if !shown[id] {
			return false
		}
	}
	return true
}

// customIDs lists the custom_ids of the buttons and menus in comps.
func customIDs(comps []discordgo.MessageComponent) []string {
	var ids []string
	for _, c := range comps {
		switch c := c.(type) {
		case *discordgo.ActionsRow:
			ids = append(ids, customIDs(c.Components)...)
		case discordgo.ActionsRow:
			ids = append(ids, customIDs(c.Components)...)
		case *discordgo.Button:
			ids = append(ids, c.CustomID)
		case discordgo.Button:
			ids = append(ids, c.CustomID)
		case *discordgo.SelectMenu:
			ids = append(ids, c.CustomID)
		case discordgo.SelectMenu:
			ids = append(ids, c.CustomID)
		}
	}
	return ids
}

// sameShown says whether a and b, states of one game, draw the same board
// (text and buttons; the picture is of the same cells then).
func (bs *boards) sameShown(a, b *match) bool {
	if a == b {
		return true
	}
	if a.ID != b.ID {
		return false
	}
	va, vb := boardView(bs.catalog.For(a.locale), a), boardView(bs.catalog.For(b.locale), b)
	return va.content == vb.content && reflect.DeepEqual(va.buttons(), vb.buttons())
}

// draw edits m's board to show m, with its buttons for comps, and says
// whether it did (see show); if not, the error of an edit that failed,
// if it did (a picture's failure is logged, and not returned).
func (bs *boards) draw(ctx context.Context, m *match, comps bool, current func() bool, opts ...discordgo.RequestOption) (bool, error) {
	bd := m.Board
	switch ref := bs.boardRef(m); {
	case ref != nil && m.Judge.Size() > pictureAbove:
		return bs.pictures.show(ctx, ref, m, comps, current), nil
	case ref != nil:
		if err := bs.edit(ctx, ref, boardView(bs.catalog.For(m.locale), m), opts...); err != nil {
			bs.log.Warn("could not update an old message", "channel", m.ChannelID, "err", err)
			return false, err
		}
		return true, nil
	case !comps:
		return false, nil // a picture follows an answer only through its token
	case bd.MessageID != "" && m.Judge.Size() > pictureAbove:
		return bs.pictures.showInChannel(ctx, m), nil
	case bd.MessageID != "":
		if err := bs.editInChannel(ctx, bd, boardView(bs.catalog.For(m.locale), m), opts...); err != nil {
			bs.log.Warn("could not update an old board through its channel", "channel", m.ChannelID, "err", err)
			return false, err
		}
		return true, nil
	case bd.Token != "":
		bs.log.Debug("not updating an old board: its interaction token has expired", "channel", m.ChannelID)
	}
	return false, nil
}

// Tries of a board's edit that failed for a while (editAgain).
const (
	editTries      = 8                      // at most, the first included
	editFirstPause = 250 * time.Millisecond // after the first; doubled after each
	editMaxPause   = 8 * time.Second
)

// editAgain has the slot of game key want e again, after a pause, when
// its edit failed with err for a while (a rate limit, a 5xx, no answer in
// time, a request never sent), up to editTries times: not after a 4xx,
// which a retry would meet again (the message is gone, say). The pause is
// the rate limit's when it says one, else doubles from editFirstPause up
// to editMaxPause; it holds no worker. Like every edit of the slot, the
// try reads the stored game and draws it if it is newer, under the
// channel's lock when it sets the buttons (bring): an edit drawn again
// late never shows an older state than the stored one. An edit is
// idempotent, so an edit that Discord took without the bot hearing of it
// is no matter made again.
func (bs *boards) editAgain(key string, e *boardEdit, err error) {
	pause, ok := againAfter(err, e.tries)
	if !ok {
		bs.log.Error("could not update a board: giving up", "game", key, "tries", e.tries+1, "err", err)
		return
	}
	again := *e
	again.tries++
	bs.log.Info("trying a board's edit again", "game", key, "in", pause, "tries", again.tries)
	bs.run.afterFunc(pause, func() { bs.want(key, &again, nil, false) })
}

// againAfter says whether a request that may be made twice (an edit, a
// delete), which failed with err after tries failed tries before, is to
// be made again, and after what pause: not after a 4xx but a rate limit,
// nor after editTries tries in all; after the rate limit's retry_after
// when it says one, else after a pause doubling from editFirstPause up to
// editMaxPause.
func againAfter(err error, tries int) (time.Duration, bool) {
	if !mayTakeLater(err) && !maybeTaken(err) { // a 4xx other than a rate limit
		return 0, false
	}
	if tries+1 >= editTries {
		return 0, false
	}
	if after, ok := retryAfter(err); ok {
		return max(after, 50*time.Millisecond), true
	}
	return min(editFirstPause<<min(tries, 16), editMaxPause), true
}

// retryAfter is the pause a rate limit that failed a request with err
// asks for, if it asks for one.
func retryAfter(err error) (time.Duration, bool) {
	var rl interface{ RetryAfter() time.Duration }
	if errors.As(err, &rl) {
		return rl.RetryAfter(), true
	}
	return 0, false
}

// Keeping boards in line with their games.
//
// A board's edits go out one at a time, and only the newest state
// matters: boards keeps, for each game, one slot (boardSlots) that holds
// the edit being made, if any, and the newest edit wanted after it. An
// edit wanted while another of the same board is being made only replaces
// what the slot wants next: a fast game makes one edit at a time, of its
// latest state, and no worker ever waits for another edit of its board,
// so that one busy board delays nobody else's.
//
// Across processes (replicas on one PostgreSQL database) the same board
// is edited by whichever process made the change, and Discord may take an
// edit's time: an older edit could land after a newer one. So each edit
// reads the stored game just before it is made, and draws the stored game
// instead when it is newer (a higher version of the same game): no edit
// older than what is stored is sent. And once an edit is made, the stored
// game is read again: if it shows something else by then, it is drawn too
// (step). The board converges to the stored game: of the edits that
// reached Discord, take the last; the check after it read the store after
// it was made, and either drew what was stored then, or found a game that
// was saved later, whose edit (made by whoever saved it, after the save)
// came later still.

// A boardEdit is what a board's slot wants drawn next.
type boardEdit struct {
	m *match // the state to draw, or a newer one that is stored
	// comps says the edit sets the board's buttons too; without, they
	// stay as an answer drew them (a picture that follows a move).
	comps bool
	// check says m is on the board already (just drawn, or answered): the
	// stored game is drawn only if it shows something else.
	check bool
	// await, if set, is an interaction on the board whose answer (or the
	// slot's edit) drew picked with its buttons: it is waited for before
	// the stored game is read, and a state other than picked is drawn with
	// its buttons unless Discord shows them already (checkShown).
	await  *discordgo.Interaction
	picked *match
	// wait says await's answer may not be on Discord yet (a row picked).
	wait bool
	// tries counts the tries of the edit that failed before (editAgain).
	tries int
}

// merge returns what a slot that wants a wants once b is wanted too: the
// newer state (b's on a tie, or of another game), the buttons if either
// sets them, the newest answer to wait for, and a check only if both are.
func (a *boardEdit) merge(b *boardEdit) *boardEdit {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := *b
	if a.m.ID == b.m.ID && a.m.Version > b.m.Version {
		out.m = a.m
	}
	out.comps = a.comps || b.comps
	out.check = a.check && b.check
	out.wait = a.wait || b.wait
	if out.await == nil || a.picked != nil && out.picked.Version < a.picked.Version {
		out.await, out.picked = a.await, a.picked
	}
	return &out
}

// boardSlots holds, by game, the slot of each board with an edit being
// made or wanted. The zero value is ready to use; it is safe for
// concurrent use.
type boardSlots struct {
	mu     sync.Mutex
	boards map[string]*boardSlot
	// deletes counts the deletions wanted of all slots and not yet made;
	// left, those left undone since leftLogged (maxDeletesOwed).
	deletes    int
	left       int
	leftLogged time.Time
}

// owe counts one more deletion wanted, and says so, unless maxDeletesOwed
// are wanted already.
func (s *boardSlots) owe() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deletes >= maxDeletesOwed {
		s.left++
		return false
	}
	s.deletes++
	return true
}

// paid counts one deletion wanted made (or failed).
func (s *boardSlots) paid() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deletes--
}

// owedDeletes returns how many deletions are wanted and not yet made.
func (s *boardSlots) owedDeletes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deletes
}

// dropped returns how many deletions were left undone since the last
// time it said so, and whether to say so now: the first time, and then
// once every interval at most.
func (s *boardSlots) dropped(now time.Time, every time.Duration) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == 0 || !s.leftLogged.IsZero() && now.Sub(s.leftLogged) < every {
		return 0, false
	}
	n := s.left
	s.left, s.leftLogged = 0, now
	return n, true
}

// A boardSlot is one board's: whether a step of it is queued or running,
// the edit it wants next, the deletions of the game's replaced board
// messages to make first, and how many edits were asked of it (current).
type boardSlot struct {
	drew    *boardEdit // the slot's last edit made, read and written by its step alone
	busy    bool
	want    *boardEdit
	deletes []boardDelete
	asked   uint64
}

// ask has the slot of game key want e (if not nil) merged into what it
// wants, and del (if not nil) made before it; replaced drops what it
// wanted until then (an edit of the message replaced). It returns the
// slot, and start if no step of it is queued or running: the caller
// queues one.
func (s *boardSlots) ask(key string, e *boardEdit, del *boardDelete, replaced bool) (slot *boardSlot, start bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot = s.boards[key]
	if slot == nil {
		if s.boards == nil {
			s.boards = make(map[string]*boardSlot)
		}
		slot = new(boardSlot)
		s.boards[key] = slot
	}
	slot.asked++
	if replaced {
		slot.want = nil
	}
	if del != nil {
		slot.deletes = append(slot.deletes, *del)
	}
	slot.want = slot.want.merge(e)
	if slot.busy {
		return slot, false
	}
	slot.busy = true
	return slot, true
}

// take returns, and clears, what slot wants: its deletions and its edit,
// with the number of edits asked so far.
func (s *boardSlots) take(slot *boardSlot) ([]boardDelete, *boardEdit, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dels, e := slot.deletes, slot.want
	slot.deletes, slot.want = nil, nil
	return dels, e, slot.asked
}

// current says whether no edit was asked of slot since asked.
func (s *boardSlots) current(slot *boardSlot, asked uint64) func() bool {
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return slot.asked == asked
	}
}

// done ends a step of slot, game key's, after which it wants check (if not
// nil) as well: it says whether the slot wants more, and so needs another
// step; if not, the slot is forgotten.
func (s *boardSlots) done(key string, slot *boardSlot, check *boardEdit) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot.want = check.merge(slot.want)
	if slot.want != nil || len(slot.deletes) > 0 {
		return true
	}
	slot.busy = false
	if s.boards[key] == slot {
		delete(s.boards, key)
	}
	return false
}
