package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// Committing a change: save it (versioned, durable), answer, and keep it or
// take it back depending on what Discord did with the answer.

// commit makes next the channel's game: it saves next, then calls answer,
// then, once next is current, after (if not nil) for what follows from it.
// If the save fails, the game stays as it was and the user is told; if
// another process saved first, the user sees the game as it is now. If the
// answer certainly did not take effect, the change is undone. If it may
// have been shown (a timeout, a lost reply), next stays and the error is
// still returned: what players may see must be what the game is.
func (b *Bot) commit(ctx context.Context, req *request, ch *channel, next *match, answer func() error, after func()) error {
	prev := ch.match
	served := servedPing(prev, next)
	if err := b.save(ctx, next); err != nil {
		if errors.Is(err, store.ErrConflict) {
			if ch.cached {
				return errStale
			}
			return b.changed(ctx, req, ch)
		}
		return fmt.Errorf("save game: %w", err)
	}
	err := answer()
	if rejected(err) {
		b.undo(prev, next)
		return err
	}
	b.counted(prev, next)
	ch.match = next
	if served != "" {
		b.deletePing(prev.Board.ChannelID, served)
	}
	b.syncTurn(ctx, ch)
	if after != nil {
		after()
	}
	return err // nil, or an answer that may have been shown
}

// undo takes back a saved change whose answer Discord refused: a move is
// taken back (saved again as it was), a new game nobody saw is stopped. A
// game that ended stays ended: its result is already in the stats.
func (b *Bot) undo(prev, next *match) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	var back *match
	switch {
	case next.Over() && prev != nil && prev.ID == next.ID:
		b.log.Warn("a game ended but its players could not be told", "channel", next.ChannelID, "game", next.ID)
		return
	case prev != nil && prev.ID == next.ID:
		back = prev.Clone()
	default:
		back = next.Clone()
		if err := back.Stop(b.systemID(), b.now()); err != nil {
			return
		}
	}
	back.Version = next.Version
	if err := b.save(ctx, back); err != nil {
		b.log.Error("could not take back a change nobody saw", "channel", next.ChannelID, "err", err)
	}
}

// systemID is who stops a game that the bot itself calls off.
func (b *Bot) systemID() string {
	if id := b.selfID(); id != "" {
		return id
	}
	return "0"
}

// changed answers a user whose change lost the race with another process:
// the game moved on, and this is how it stands now.
func (b *Bot) changed(ctx context.Context, req *request, ch *channel) error {
	g, err := b.store.Current(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("reload after a conflict: %w", err)
	}
	if g == nil {
		return refuse("move.game_changed", nil)
	}
	m, err := fromStored(g)
	if err != nil {
		return err
	}
	ch.match = m
	if playedBy(m, req) {
		return b.replay(ctx, req, m)
	}
	// Only the user sees it: all of it in their language.
	return b.say(ctx, req, req.lang.T("move.overtaken", nil)+"\n"+renderMatch(req.lang, m.Match).content)
}

// postBoard answers req with next's board as a new message, which becomes the
// current board, in the guild's language or else in next's; notify pings
// the player to move; pic says that the board is to be a picture (see
// pictured), which follows the answer. The message it replaces loses its
// buttons.
func (b *Bot) postBoard(ctx context.Context, req *request, ch *channel, next *match, notify, pic bool) error {
	old := ch.match
	next.Serial++
	next.Board = table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
	next.locale = req.keptLocale(next.locale)
	v := renderMatch(b.lang(next.locale), next.Match)
	if !notify {
		v.ping = ""
	}
	return b.commit(ctx, req, ch, next, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	}, func() {
		b.retire(old, next)
		if pic {
			b.pictureLater(next)
		}
		b.lookupLater(next.ChannelID, next.ID, next.Board, next.Deadline) // a correspondence game's board outlives its token
	})
}

// retire retires old's board message now that next is shown: a running
// game's older board is deleted; a finished game's board keeps its result
// and its final position (its cell buttons, disabled), without the Rematch
// button. The old message keeps the language it was drawn in.
func (b *Bot) retire(old, next *match) {
	if old == nil {
		return
	}
	l := b.lang(old.locale)
	switch {
	case old.ID == next.ID && !old.Over():
		b.deleteBoard(old) // one board message per game
	case old.Judge.Size() > pictureAbove:
		// Its message may show a picture in place of the grid, which
		// stays: only the buttons go. The text is old's, as drawn.
		if ref := b.boardRef(old); ref != nil {
			b.editButtonsLater(ref, old.ChannelID)
		}
	default:
		b.editBoard(old, renderRetired(l, old.Match))
	}
}

// playedBy says whether m's board was drawn by req itself: another
// process got the same interaction (Discord delivered it twice, to two
// replicas) and saved what it asked for. Each interaction has a token of
// its own, and the board a change draws keeps the token of the interaction
// that drew it.
func playedBy(m *match, req *request) bool {
	return req.Token != "" && m.Board.Token == req.Token
}

// replay answers req, whose change m already holds, as the process that
// made it did: with the board, which a click updates and a command posts.
// Its player is not told "not your turn" or "someone was faster" about
// their own move.
func (b *Bot) replay(ctx context.Context, req *request, m *match) error {
	b.log.Info("the interaction was already acted on by another process; answering with its board", "channel", req.ChannelID, "interaction", req.ID)
	v := renderMatch(b.lang(m.locale), m.Match)
	typ := discordgo.InteractionResponseChannelMessageWithSource
	if req.Type == discordgo.InteractionMessageComponent {
		typ = discordgo.InteractionResponseUpdateMessage
	}
	return b.respond(ctx, req, typ, v, false)
}
