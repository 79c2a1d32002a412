package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// Committing a change: save it (versioned, durable), answer, and keep it or
// take it back depending on what Discord did with the answer.

// commit makes next the channel's game: it saves next, answers req with v
// as an answer of type typ, and says whether next is now current, for what
// follows from it. If the save fails, the game stays as it was and the user
// is told; if another process saved first, the user sees the game as it is
// now. If the answer certainly did not take effect, the change is undone.
// If it may have been shown (a timeout, a lost reply), next stays and the
// error is still returned: what players may see must be what the game is.
func (b *Bot) commit(ctx context.Context, req *request, ch *channel, next *match, typ discordgo.InteractionResponseType, v view) (kept bool, err error) {
	if err := b.tables.save(ctx, ch, next); err != nil {
		if errors.Is(err, store.ErrConflict) {
			if ch.cached {
				return false, errStale
			}
			// Another process saved first: the game moved on, and the
			// user sees how it stands now.
			m, err := b.tables.reload(ctx, ch)
			switch {
			case err != nil:
				return false, err
			case m == nil:
				return false, refuse("move.game_changed", nil)
			case playedBy(m, req):
				return false, b.replay(ctx, req, m)
			}
			// Only the user sees it: all of it in their language.
			return false, req.say(ctx, req.lang.T("move.overtaken", nil)+"\n"+renderMatch(req.lang, m.Match).content)
		}
		return false, fmt.Errorf("save game: %w", err)
	}
	err = req.respond(ctx, typ, v, false)
	if rejected(err) {
		b.tables.undo(ch.match, next)
		return false, err
	}
	b.tables.keep(ctx, ch, next)
	return true, err // nil, or an answer that may have been shown
}

// postBoard answers req with next's board as a new message, which becomes
// the current board, in the guild's language or else in next's; notify
// pings the player to move; pic says that the board is to be a picture
// (see pictured), which follows the answer. The message it replaces loses
// its buttons.
func (b *Bot) postBoard(ctx context.Context, req *request, ch *channel, next *match, notify, pic bool) (followUps, error) {
	old := ch.match
	next.Serial++
	next.Board = store.Board{AppID: req.AppID, Token: req.Token, At: b.cfg.Now()}
	next.locale = req.keptLocale(next.locale)
	v := renderMatch(b.texts.For(next.locale), next.Match)
	if !notify {
		v.ping = ""
	}
	kept, err := b.commit(ctx, req, ch, next, discordgo.InteractionResponseChannelMessageWithSource, v)
	if !kept {
		return followUps{}, err
	}
	return followUps{shown: next, retire: old, picture: pic, lookup: true}, err
}

// adoptClickedMessage names, in next's board, the message that the click
// req redraws as next's board, when next needs it: next outlives its
// token, or the board before the click was known (so that a
// correspondence game's final board can still be retired later).
func adoptClickedMessage(req *request, next *match, known bool) {
	if req.Message == nil || req.Message.ID == "" || !known && !outlivesToken(next) {
		return
	}
	next.Board.ChannelID, next.Board.MessageID = req.ChannelID, req.Message.ID
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
	v := renderMatch(b.texts.For(m.locale), m.Match)
	typ := discordgo.InteractionResponseChannelMessageWithSource
	if req.Type == discordgo.InteractionMessageComponent {
		typ = discordgo.InteractionResponseUpdateMessage
	}
	return req.respond(ctx, typ, v, false)
}
