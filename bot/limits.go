package bot

import "time"

// Board sizes and win lengths a player may ask for.
//
// MaxSize is 15: 15×15 five in a row is gomoku, the classic big board.
// MaxEmojiSize is the largest board drawn as an emoji grid: a board line is
// one label and n cells, and eleven emoji is what a phone shows on one line
// without wrapping; it is also the last size whose labels are single
// keycaps (1️⃣ … 🔟). A bigger board is always a picture (see pictured).
// MaxButtonSize is 5 because a message holds at most 5 action rows of 5
// buttons.
const (
	MinSize       = 3
	MaxSize       = 15
	MaxEmojiSize  = 10
	DefaultSize   = 3
	MinWin        = 3
	MaxButtonSize = 5
)

// Limits on the timeouts. A timer edits a message through the token of
// the interaction that drew it while Discord accepts that token, for 15
// minutes (tokenLife). MaxTimeout keeps within it whatever is timed on a
// message that only a token can reach: challenges, the bot's own defaults
// (which apply in DMs too), and turns in a channel the bot cannot reach
// with its own token (an app installed by a user, not by the server).
// MaxTurnTimeout is the longest turn a server may set with /ttt config:
// correspondence games, whose boards the bot reaches through the channel
// once their token has expired (see doc.go).
const (
	MinTimeout     = time.Second
	MaxTimeout     = 14 * time.Minute
	MaxTurnTimeout = 24 * time.Hour
)

// MinRated is how many rated games a player needs to be on the leaderboard.
const MinRated = 5

// Limits of the options of /ttt config besides MinTimeout, MaxTurnTimeout
// (turn_timeout), MaxTimeout (challenge_timeout: a challenge message is
// edited through its token), MinSize, MinWin and MaxSize. A challenge
// waits at least MinChallengeTimeout, long enough to be seen. maxChannels
// keeps the summary, which names the channels before and after a change,
// well within Discord's 2000 characters.
const (
	MinChallengeTimeout = 10 * time.Second
	maxChannels         = 10
)
