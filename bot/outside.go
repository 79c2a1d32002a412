package bot

import (
	"errors"

	"github.com/tttbot/tttbot/i18n"
)

// Boards of games played outside chat too: on the live board, the web
// page that Discord opens as an Activity (live.go). A move made there
// comes with no interaction token to draw the chat board with. The bot
// edits the board as it can (its token while Discord takes it, else its
// message through the channel when the bot knows it: boards.show); a
// board it cannot reach is marked stale (store.Board.Stale), and the next
// click on it is answered by drawing it as the game stands
// (Bot.refreshStale). And once a game has been played on the page
// (store.Board.Outside), each of its boards that may go stale (unless
// the bot reaches its channel for good, reachesChannel: a known message
// alone, which a picker's board has in a DM too, does not say the bot can
// edit it) says, while the game runs, that the game goes on in the
// Activity (boardView): whichever edit is the last the bot can make says
// so.

// boardView is m's board in l's language: renderMatch, and for a game
// played on the live board too, whose board the bot may not reach for
// its whole life, the line that says the game goes on in the Activity.
func boardView(l *i18n.Language, m *match) view {
	return withLiveNote(l, m, renderMatch(l, m.Match))
}

// pictureView is boardView for a board shown as a picture (renderPictured).
func pictureView(l *i18n.Language, m *match) view {
	return withLiveNote(l, m, renderPictured(l, m.Match))
}

// withLiveNote adds to v, a view of m's board, the line that says the
// game goes on in the Activity, where m needs it (boardView).
func withLiveNote(l *i18n.Language, m *match, v view) view {
	if mayGoStale(m) {
		v.content += "\n" + l.T("page.board_note", nil)
	}
	return v
}

// mayGoStale says whether m's board may stop showing m: m is played on
// the live board too, runs, and the bot may not reach its board once its
// token has expired (commitLive then marks it stale rather than draw it).
func mayGoStale(m *match) bool {
	return m.Board.Outside && !m.Over() && !reachesChannel(m)
}

// reachesChannel says whether the bot reached m's channel with its own
// token at m's last change: a turn longer than MaxTimeout is given only
// then (rulesFor, hasChannel), and such a game keeps its board's message
// (doc.go). A picker's board knows its message too, wherever it is, but
// not that the bot can reach it.
func reachesChannel(m *match) bool {
	return m != nil && m.Board.MessageID != "" && !m.Over() && !m.Deadline.IsZero() && m.Deadline.Sub(turnStart(m)) > MaxTimeout
}

// refused says whether err is a refusal meant for the user.
func refused(err error) bool {
	var ue userError
	return errors.As(err, &ue)
}
