package bot

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/table"
)

// boards keeps the bot's messages on Discord in line with the games once
// an answer has gone out: it edits boards, deletes the boards that newer
// ones replaced, pings players, puts pictures on big boards (picture.go),
// and reaches a board through its channel once its token has expired
// (correspondence.go). All of it runs in the background, on the runner.
// What must be remembered with a game (a board's message id, a ping's id)
// it hands to keeper; it never locks a channel or saves by itself. It is
// safe for concurrent use.
type boards struct {
	dc       Discord
	texts    *i18n.Catalog
	log      *slog.Logger
	now      func() time.Time
	run      *runner
	settings *settings
	keeper   keeper
	edits    boardEdits // the order of background edits of big boards (picture.go)
}

// keeper remembers, with the channel's game, what boards learned about
// its messages (tables does it, under the channel's lock).
type keeper interface {
	// keepBoard keeps msg as the message of bd, the board of game gameID
	// in channelID, unless a newer board replaced it.
	keepBoard(ctx context.Context, channelID, gameID string, bd table.Board, msg *discordgo.Message)
	// keepPing keeps id as the ping of next's turn and returns the pings
	// to delete now.
	keepPing(ctx context.Context, next *match, id string) []pingRef
}

// followUp does fu: what a kept change leaves to do on Discord.
func (bs *boards) followUp(fu followUps) {
	next := fu.shown
	if next == nil {
		return
	}
	if fu.retire != nil {
		bs.retire(fu.retire, next)
	}
	if fu.picture {
		bs.pictureLater(next)
	}
	if fu.lookup {
		bs.lookupLater(next.ChannelID, next.ID, next.Board, next.Deadline) // a correspondence game's board outlives its token
	}
	if fu.pingFor != "" {
		bs.pingMover(fu.pingFor, next)
	}
	if fu.redraw {
		bs.editBoard(next, renderMatch(bs.texts.For(next.locale), next.Match))
	}
}

// timedOut shows next, whose player to move lost on time, on its board.
// Nobody asked: the board keeps the language it was drawn in.
func (bs *boards) timedOut(next *match) {
	bs.editBoard(next, renderMatch(bs.texts.For(next.locale), next.Match))
}

// challengeExpired says on the message of c, a challenge of the guild in
// channelID, that its time ran out. Edited outside the lock: a slow
// Discord must not hold up the channel. Nobody asked: the message keeps
// the language it was drawn in. The guild's timeout as it is now (a
// challenge does not keep the one it was opened with); the bot's if it
// cannot be read.
func (bs *boards) challengeExpired(ctx context.Context, guildID, channelID string, c *openChallenge) {
	timeout := bs.settings.table.ChallengeTimeout
	if tc, _, err := bs.settings.rules(ctx, guildID); err == nil {
		timeout = tc.ChallengeTimeout
	}
	bs.editLater(c.msg, renderChallenge(bs.texts.For(c.locale), c.Challenge, challengeExpired, timeout), channelID)
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
	bs.run.background(func(ctx context.Context) {
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
	l := bs.texts.For(old.locale)
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
		bs.edits.drop(ref.Token) // a picture on its way has nowhere to go
		bs.run.background(func(ctx context.Context) {
			if err := bs.dc.InteractionResponseDelete(ref, discordgo.WithContext(ctx)); err != nil {
				bs.log.Warn("could not delete a replaced board", "channel", m.ChannelID, "err", err)
			}
		})
	case bd.MessageID != "":
		bs.run.background(func(ctx context.Context) {
			if err := bs.dc.ChannelMessageDelete(bd.ChannelID, bd.MessageID, discordgo.WithContext(ctx)); err != nil {
				bs.log.Warn("could not delete a replaced board through its channel", "channel", m.ChannelID, "err", err)
			}
		})
	}
}

// editBoard edits, in the background, the board message of m with v:
// through its token while Discord accepts it (a board bigger than
// pictureAbove may then be a picture: editBigBoard), and after that
// through the channel when the bot knows the message (a correspondence
// game's board). Otherwise the old message keeps its buttons, whose clicks
// are refused as out of date.
func (bs *boards) editBoard(m *match, v view) {
	bd := m.Board
	switch ref := bs.boardRef(m); {
	case ref != nil && m.Judge.Size() > pictureAbove:
		bs.editBigBoard(ref, m, v)
	case ref != nil:
		bs.editLater(ref, v, m.ChannelID)
	case bd.MessageID != "":
		bs.run.background(func(ctx context.Context) {
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
func (bs *boards) tokenGood(bd table.Board) bool { return bs.now().Sub(bd.At) <= tokenLife }
