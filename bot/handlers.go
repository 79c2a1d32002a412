package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// Every game handler reads top to bottom: decode the options (the router
// parsed a click's custom_id), lock the channel with its game (tables.lock:
// loaded from the store, or for a move perhaps the copy in memory), let
// the table decide on a clone, then commit: save the clone (versioned,
// durable), answer, and unless the answer certainly did not take effect,
// keep it and arm timers. What follows on Discord (retire the old board,
// draw the picture, ping) is returned as followUps, which boards.followUp
// queues as the handler's last step under the lock (so that the edits of
// one message keep the order in which they were decided) and sends in the
// background. A refusal changes nothing.

// showHelp lists the commands, in the user's language: the catalog's help.*
// texts, one line each, with the timeouts in force in the guild. It is an
// embed: in some languages it is longer than a message's content may be.
func (b *Bot) showHelp(ctx context.Context, req *request) error {
	tc, _, err := b.settings.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	v := view{embeds: []*discordgo.MessageEmbed{{Description: helpText(req.lang, tc)}}}
	return req.respond(ctx, discordgo.InteractionResponseChannelMessageWithSource, v, true)
}

// helpText is the text of /ttt help in l's language, with tc's timeouts.
func helpText(l *i18n.Language, tc table.Config) string {
	return strings.Join([]string{
		l.T("help.intro", nil),
		l.T("help.start", nil),
		l.T("help.level.easy", nil),
		l.T("help.level.medium", nil),
		l.T("help.level.hard", nil),
		l.T("help.move", nil),
		l.T("help.more", nil),
		l.T("help.manage", nil),
		l.T("help.config", nil),
		l.N("help.results", MinRated, nil),
		l.T("help.rules", map[string]any{
			"TurnTimeout":      humanDuration(l, tc.TurnTimeout),
			"ChallengeTimeout": humanDuration(l, tc.ChallengeTimeout),
		}),
	}, "\n")
}

// busy refuses a new game or challenge while the channel has one.
func busy(ch *channel) error {
	if c := ch.challenge; c != nil {
		return refuse("start.busy_challenge", map[string]any{"From": mention(c.From), "To": challenged(c.Challenge), "Expires": c.Expires.Unix()})
	}
	if m := ch.match; m != nil && !m.Over() {
		return refuse("start.busy_game", players(m.Match))
	}
	return nil
}

// challenged names who c challenges: a mention, or for an open challenge
// "anyone", in the language it is answered in.
func challenged(c *table.Challenge) any {
	if c.Open() {
		return text{key: "challenge.anyone"}
	}
	return mention(c.To)
}

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
	if req.Interaction != nil && req.Token != "" { // not a tap on the live board
		next.Board.Reached = hasChannel(req.Interaction)
	}
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
	next.Board = b.newBoard(req, next.Board)
	next.locale = req.keptLocale(next.locale)
	v := boardView(b.catalog.For(next.locale), next)
	if !notify {
		v.ping = ""
	}
	kept, err := b.commit(ctx, req, ch, next, discordgo.InteractionResponseChannelMessageWithSource, v)
	if !kept {
		return followUps{}, err
	}
	return followUps{shown: next, retire: old, picture: pic, lookup: true}, err
}

// newBoard is the board drawn by req's answer, in place of prev, the
// game's board before it (zero for a new game): its token, and whether
// the game is played on the live board too.
func (b *Bot) newBoard(req *request, prev store.Board) store.Board {
	return store.Board{AppID: req.AppID, Token: req.Token, At: b.cfg.Now(), Outside: prev.Outside}
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
	v := boardView(b.catalog.For(m.locale), m)
	typ := discordgo.InteractionResponseChannelMessageWithSource
	if req.Type == discordgo.InteractionMessageComponent || req.Type == discordgo.InteractionModalSubmit && req.Message != nil {
		typ = discordgo.InteractionResponseUpdateMessage
	}
	return req.respond(ctx, typ, v, false)
}

func (b *Bot) start(ctx context.Context, req *request) error {
	data := req.commandData()
	sub, err := subcommand(data)
	if err != nil {
		return err
	}
	tc, set, err := b.settings.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	if err := channelAllowed(set, req.ChannelID); err != nil {
		return err
	}
	so, err := decodeStart(data, sub, defaultSize(set), set.Win)
	if err != nil {
		return err
	}
	user := req.user
	self := b.self.id()
	vsComputer := !so.open && (so.opponent == nil || so.opponent.ID == self)
	if !vsComputer {
		switch {
		case req.Context == discordgo.InteractionContextBotDM:
			// Nobody else is in a DM with the bot.
			return refuse("start.dm_challenge", nil)
		case so.open:
		case so.opponent.ID == user.ID:
			return refuse("start.self", nil)
		case so.opponent.Bot:
			return refuse("start.bot", map[string]any{"User": mention(so.opponent.ID)})
		}
	}

	// A challenge is made before the channel is locked, for its id: the
	// limits on starts count it from now.
	var c *table.Challenge
	if !vsComputer {
		to := "" // open to anyone
		if so.opponent != nil {
			to = so.opponent.ID
		}
		c = table.NewChallenge(tc, newID(), user.ID, to, so.size, so.win, b.cfg.Now())
	}
	var end func(started bool)
	if c != nil {
		end, err = b.starts.begin(ctx, user.ID, b.cfg.Now(), c.ID, c.Expires)
	} else {
		end, err = b.starts.begin(ctx, user.ID, b.cfg.Now(), "", time.Time{})
	}
	if err != nil {
		return err
	}
	started := false // what follows may not start anything: then it costs nothing
	defer func() { end(started) }()

	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	if err := busy(ch); err != nil {
		return err
	}
	if !vsComputer {
		started, err = b.openChallenge(ctx, req, ch, c, tc)
		return err
	}
	m, err := table.Start(tc, newID(), table.Setup{
		GuildID: req.GuildID, ChannelID: req.ChannelID,
		Players: [3]string{game.X: user.ID, game.O: self}, Computer: game.O, Level: so.level,
		Size: so.size, Win: so.win, First: game.X,
	}, b.cfg.Now())
	if err != nil {
		return err
	}
	fu, err := b.postBoard(ctx, req, ch, &match{Match: m, locale: req.newLocale()}, true, pictured(set, m))
	started = !rejected(err) && ch.match != nil && ch.match.ID == m.ID
	return b.boards.followUp(fu, err)
}

// openChallenge stores c, made by req, and answers with its message. It
// says whether c is open: shown, or perhaps shown.
func (b *Bot) openChallenge(ctx context.Context, req *request, ch *channel, c *table.Challenge, tc table.Config) (bool, error) {
	// Stored before it is shown, so that every process sharing the
	// database can answer its buttons; counted with its maker's others
	// as it is stored, so that starts at once on two replicas (which
	// startLimits counted each for itself) cannot exceed the limit.
	locale := req.newLocale()
	sc := storedChallenge(c, req.GuildID, req.ChannelID, store.Board{AppID: req.AppID, Token: req.Token, At: b.cfg.Now()}, locale)
	if err := b.stores.Challenges.OpenChallengeAtMost(ctx, sc, maxOpenChallenges, b.cfg.Now()); err != nil {
		if errors.Is(err, store.ErrTooMany) {
			return false, refuseN("start.too_many_challenges", maxOpenChallenges, nil)
		}
		if !errors.Is(err, store.ErrConflict) {
			return false, fmt.Errorf("store the challenge: %w", err)
		}
		// Another process opened one first.
		if err := b.tables.load(ctx, ch); err != nil {
			return false, err
		}
		if err := busy(ch); err != nil {
			return false, err
		}
		return false, refuse("start.race", nil)
	}
	v := renderChallenge(b.catalog.For(locale), c, challengeOpen, tc.ChallengeTimeout)
	err := req.respond(ctx, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	if rejected(err) {
		if _, cerr := b.stores.Challenges.CloseChallenge(context.WithoutCancel(ctx), c.ID); cerr != nil {
			b.log.Error("could not take back a challenge nobody saw", "channel", req.ChannelID, "err", cerr)
		}
		return false, err
	}
	// Shown, or perhaps shown: the challenge is open either way.
	b.tables.syncChallenge(ctx, ch, sc)
	return true, err
}

// moveByCommand answers /ttt move.
func (b *Bot) moveByCommand(ctx context.Context, req *request) error {
	sub, err := subcommand(req.commandData())
	if err != nil {
		return err
	}
	row, col, err := decodeMove(sub)
	if err != nil {
		return err
	}
	tc, set, err := b.settings.rulesFor(ctx, req) // from memory, read at most once per settingsTTL
	if err != nil {
		return err
	}
	return b.onMove(ctx, req, func(ch *channel) (followUps, error) {
		return b.playCommand(ctx, req, ch, row, col, tc, set)
	})
}

// onMove locks req's channel for a move, with the game this process holds
// if any (tables.lock, cached), and lets decide play it; a refusal, or a
// save that lost the race, decided on a game from memory is decided again
// on the game as stored (recheck). What follows is queued under the lock.
// Every move goes through it: by command, by click, and from the live
// board (live.go).
func (b *Bot) onMove(ctx context.Context, req *request, decide func(ch *channel) (followUps, error)) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, true)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	fu, err := decide(ch)
	if b.tables.recheck(ch, req, err) {
		if err := b.tables.load(ctx, ch); err != nil {
			return err
		}
		fu, err = decide(ch)
	}
	return b.boards.followUp(fu, err)
}

// playCommand plays /ttt move at row, col on ch's game, under rules tc
// and settings set.
func (b *Bot) playCommand(ctx context.Context, req *request, ch *channel, row, col int, tc table.Config, set store.Settings) (followUps, error) {
	if ch.match == nil {
		return followUps{}, noGame(ch)
	}
	if playedBy(ch.match, req) {
		return followUps{}, b.replay(ctx, req, ch.match)
	}
	next, err := b.playOn(ctx, req, ch.match, tc, row, col)
	if err != nil {
		return followUps{}, err
	}
	return b.postBoard(ctx, req, ch, next, true, pictured(set, next.Match))
}

// playOn plays req's move at row, col on a clone of m, the channel's
// game, and returns the clone: the refusal in words if the table refuses
// it. A move that keeps m's board message (a click, a tap on the live
// board) then counts as a new picker on a board with one (newPicker);
// one that posts a new board (postBoard) numbers it anew already.
func (b *Bot) playOn(ctx context.Context, req *request, m *match, tc table.Config, row, col int) (*match, error) {
	next := m.Clone()
	if err := b.play(ctx, req, next, tc, row, col); err != nil {
		return nil, moveRefusals.of(err, moveData(m, row, col))
	}
	return next, nil
}

// newPicker makes next, m after a move drawn on m's board message, a new
// picker where m's board has one: a picker drawn before the move never
// plays.
func newPicker(m, next *match) {
	if hasPicker(m.Match) {
		next.Serial++
	}
}

// play plays req's move at row, col on next, a clone of the channel's
// game. When the computer answers it, the move is paced and waits for the
// computer to have time (thinking): a player moving too fast, or a move
// the computer finds no time for, is refused in words, next unchanged.
func (b *Bot) play(ctx context.Context, req *request, next *match, tc table.Config, row, col int) error {
	user := req.user.ID
	if side := next.Side(user); next.Computer == game.None || next.Over() || side == game.None || next.Turn() != side {
		// No computer answers: a person will, or Play refuses it.
		return next.Play(tc, user, row, col, b.cfg.Now())
	}
	undo, err := b.think.pace(user, b.cfg.Now())
	if err != nil {
		return err
	}
	release, err := b.think.slot(ctx, "move.computer_busy")
	if err != nil {
		undo()
		return err
	}
	err = next.Play(tc, user, row, col, b.cfg.Now())
	release()
	if err != nil {
		undo() // refused before the computer thought: it cost nothing
	}
	return err
}

// moveByClick answers a click on a cell of a board (or of a picker, or
// one typed in the picker's modal: see picker.go).
func (b *Bot) moveByClick(ctx context.Context, req *request, r route) error {
	tc, set, err := b.settings.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	return b.onMove(ctx, req, func(ch *channel) (followUps, error) {
		fu, err := b.playClick(ctx, req, ch, r, tc, set)
		if m := ch.match; m != nil && m.Board.Stale && m.ID == r.id && refused(err) && !req.answered.Load() {
			// The board did not show a move made on the live board:
			// it is drawn as it stands, the refusal following.
			return b.refreshStale(ctx, req, ch, err)
		}
		return fu, err
	})
}

// playClick plays the click on the cell of r on ch's game, under rules tc;
// set says whether a big board is shown as a picture, which follows.
func (b *Bot) playClick(ctx context.Context, req *request, ch *channel, r route, tc table.Config, set store.Settings) (followUps, error) {
	m := ch.match
	if m != nil && m.ID == r.id && playedBy(m, req) {
		return followUps{}, b.replay(ctx, req, m)
	}
	switch {
	case m == nil:
		return followUps{}, refuse("move.not_here", nil)
	case m.ID != r.id:
		return followUps{}, refuse("move.other_game", nil)
	case m.Over():
		return followUps{}, refuse("move.game_over", nil) // not "continues in a newer message"
	case hasPicker(m.Match):
		// A cell of the picker, or one typed in its modal (picker.go).
		// A stale tap is answered on a game read from the store: this
		// process's copy may be the one behind (recheck loads it).
		if stale, err := pickerTap(req, m, r); stale && !ch.cached {
			return followUps{}, b.answerStale(ctx, req, m, err)
		} else if err != nil {
			return followUps{}, err
		}
	case r.serial != m.Serial:
		return followUps{}, refuse("move.stale_board", nil)
	}
	next, err := b.playOn(ctx, req, m, tc, r.row, r.col)
	if err != nil {
		return followUps{}, err
	}
	newPicker(m, next)
	// The click's token edits the same message, and is fresher.
	next.Board = b.newBoard(req, m.Board)
	// A picker board's message is known from its first move on, so that
	// a stale tap can be told to be on it (answerStale).
	adoptClickedMessage(req, next, m.Board.MessageID != "" || hasPicker(m.Match))
	next.locale = req.keptLocale(next.locale)
	v := boardView(b.catalog.For(next.locale), next)
	pic := pictured(set, next.Match)
	kept, err := b.commit(ctx, req, ch, next, discordgo.InteractionResponseUpdateMessage, v)
	if !kept {
		return followUps{}, err
	}
	return followUps{shown: next, pingFor: req.user.ID, picture: pic}, err
}

// answerStale answers a tap on a picker (picker.go) drawn before m's board
// changed: nothing is played. When the tap was on m's board message (known
// once a tap moved on it: playClick), the answer redraws it as it stands,
// with a fresh picker, and the refusal follows to the player alone; an
// edit in the background instead could land after the player's next tap
// and undo it. A tap on another message (a board a newer one replaced)
// gets the refusal alone: the newest board has a fresh picker.
func (b *Bot) answerStale(ctx context.Context, req *request, m *match, refusal error) error {
	if req.Message == nil || m.Board.MessageID == "" || req.Message.ID != m.Board.MessageID {
		return refusal
	}
	pic := b.settings.showsPicture(ctx, req.GuildID, m.Match)
	v := renderPicker(b.catalog.For(m.locale), m.Match, 0, pic)
	if err := req.respond(ctx, discordgo.InteractionResponseUpdateMessage, v, false); err != nil {
		return err
	}
	var ue userError
	if errors.As(refusal, &ue) {
		b.boards.tellLater(req.Interaction, ue.in(req.lang))
	}
	return refusal // answered: the router counts it as refused
}

// refreshStale answers a click that was refused on ch's board, which
// does not show a move made on the live board (store.Board.Stale, see
// outside.go): the answer draws the board as the game stands, with the
// click's token kept as the board's (a fresh 15 minutes to edit it), and
// the refusal follows to the player alone.
func (b *Bot) refreshStale(ctx context.Context, req *request, ch *channel, refusal error) (followUps, error) {
	m := ch.match
	next := m.Clone()
	next.Board = b.newBoard(req, m.Board)
	adoptClickedMessage(req, next, m.Board.MessageID != "" || hasPicker(m.Match))
	next.locale = req.keptLocale(next.locale)
	v := boardView(b.catalog.For(next.locale), next)
	kept, err := b.commit(ctx, req, ch, next, discordgo.InteractionResponseUpdateMessage, v)
	if !kept {
		return followUps{}, err
	}
	var ue userError
	if errors.As(refusal, &ue) {
		b.boards.tellLater(req.Interaction, ue.in(req.lang))
	}
	fu := followUps{shown: next, picture: b.settings.showsPicture(ctx, req.GuildID, next.Match)}
	if err != nil {
		return fu, err
	}
	return fu, refusal // answered: the router counts it as refused
}

func noGame(ch *channel) error {
	if c := ch.challenge; c != nil {
		return refuse("board.waiting_challenge", map[string]any{"From": mention(c.From), "To": challenged(c.Challenge)})
	}
	return refuse("board.no_game", nil)
}

// showBoard answers /ttt board.
func (b *Bot) showBoard(ctx context.Context, req *request) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	if ch.match == nil || (ch.challenge != nil && ch.match.Over()) {
		return noGame(ch)
	}
	// Showing the board again pings nobody: anyone may ask for it.
	next := ch.match.Clone()
	return b.boards.followUp(b.postBoard(ctx, req, ch, next, false, b.settings.showsPicture(ctx, req.GuildID, next.Match)))
}

func (b *Bot) resign(ctx context.Context, req *request) error {
	user := req.user.ID
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	if c := ch.challenge; c != nil {
		switch user {
		case c.From:
			return b.closeChallenge(ctx, req, ch, challengeWithdrawn, "resign.withdrawn")
		case c.To:
			return refuse("resign.not_accepted", nil)
		}
	}
	next, err := b.resignOn(req, ch)
	if err != nil {
		return err
	}
	return b.boards.followUp(b.postBoard(ctx, req, ch, next, false, b.settings.showsPicture(ctx, req.GuildID, next.Match)))
}

// resignOn resigns req's user from ch's running game, on a clone: the
// refusal in words if they cannot.
func (b *Bot) resignOn(req *request, ch *channel) (*match, error) {
	m := ch.match
	if m == nil || m.Over() {
		return nil, noGame(ch)
	}
	next := m.Clone()
	if err := next.Resign(req.user.ID, b.cfg.Now()); err != nil {
		return nil, resignRefusals.of(err, nil)
	}
	return next, nil
}

// offerDraw answers /ttt draw: a player offers the opponent a draw, on a
// message of its own whose buttons the opponent answers with. The offer is
// stored with the game; the next move withdraws it.
func (b *Bot) offerDraw(ctx context.Context, req *request) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	next, err := b.offerDrawOn(req, ch)
	if err != nil {
		return err
	}
	v := renderDrawOffer(b.catalog.For(req.keptLocale(ch.match.locale)), next.Match, next.DrawOffer)
	_, err = b.commit(ctx, req, ch, next, discordgo.InteractionResponseChannelMessageWithSource, v)
	return err
}

// offerDrawOn has req's user offer a draw in ch's running game, on a
// clone: the refusal in words if they cannot.
func (b *Bot) offerDrawOn(req *request, ch *channel) (*match, error) {
	m := ch.match
	if m == nil || m.Over() {
		return nil, noGame(ch)
	}
	next := m.Clone()
	if err := next.OfferDraw(req.user.ID); err != nil {
		return nil, offerDrawRefusals.of(err, nil)
	}
	return next, nil
}

// answerDraw answers a click on Accept draw (actDrawYes) or Decline: the
// offer message says how it was answered; an accepted draw ends the game,
// and its board shows the result.
func (b *Bot) answerDraw(ctx context.Context, req *request, r route) error {
	accept := r.action == actDrawYes
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	m := ch.match
	next, err := b.answerDrawOn(req, m, r.id, accept)
	if err != nil {
		return err
	}
	offerer := m.DrawOffer
	v := renderDrawAnswer(b.catalog.For(req.keptLocale(m.locale)), next.Match, offerer, accept)
	kept, err := b.commit(ctx, req, ch, next, discordgo.InteractionResponseUpdateMessage, v)
	if !kept || !accept {
		return err
	}
	return b.boards.followUp(followUps{shown: next, redraw: true}, err)
}

// answerDrawOn has req's user accept or decline the draw offered in m,
// the channel's game, if it is game gameID: a clone that says so, or the
// refusal in words.
func (b *Bot) answerDrawOn(req *request, m *match, gameID string, accept bool) (*match, error) {
	if m == nil || m.ID != gameID || m.Over() || m.DrawOffer == game.None {
		return nil, refuse("draw.gone", nil)
	}
	next := m.Clone()
	var err error
	if accept {
		err = next.AcceptDraw(req.user.ID, b.cfg.Now())
	} else {
		err = next.DeclineDraw(req.user.ID)
	}
	if err != nil {
		return nil, answerDrawRefusals.of(err, nil)
	}
	return next, nil
}

func (b *Bot) stop(ctx context.Context, req *request) error {
	if err := b.settings.mayStop(ctx, req); err != nil {
		return err
	}
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	if ch.challenge != nil {
		return b.closeChallenge(ctx, req, ch, challengeCancelled, "stop.cancelled")
	}
	m := ch.match
	if m == nil || m.Over() {
		return refuse("stop.no_game", nil)
	}
	next := m.Clone()
	if err := next.Stop(req.user.ID, b.cfg.Now()); err != nil {
		return err
	}
	return b.boards.followUp(b.postBoard(ctx, req, ch, next, false, b.settings.showsPicture(ctx, req.GuildID, next.Match)))
}

// closeChallenge ends ch's challenge without a game: it tells the user
// (ephemerally) the catalog's text reply and rewrites the challenge message
// to say what happened.
func (b *Bot) closeChallenge(ctx context.Context, req *request, ch *channel, st challengeState, reply string) error {
	c := ch.challenge
	if err := b.tables.claim(ctx, ch, c); err != nil {
		return err
	}
	// The challenge ends whether or not the reply reaches the user.
	b.boards.editLater(c.msg, renderChallenge(b.catalog.For(req.keptLocale(c.locale)), c.Challenge, st, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	return req.say(ctx, req.lang.T(reply, nil))
}

func (b *Bot) accept(ctx context.Context, req *request, r route) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	c, err := b.tables.challenge(ctx, ch, r.id)
	if err != nil {
		return err
	}
	tc, set, err := b.settings.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	tm, err := c.Accept(tc, newID(), req.user.ID, req.GuildID, req.ChannelID, b.cfg.Now())
	if err != nil {
		rs := acceptRefusals
		if c.Open() {
			rs = joinRefusals // its buttons are Join and Withdraw
		}
		return rs.of(err, map[string]any{"To": mention(c.To)})
	}
	// Claimed first: a Decline or a timer on another process now finds
	// it closed.
	if err := b.tables.claim(ctx, ch, c); err != nil {
		return err
	}
	// The challenge message becomes the board, in its language.
	m := &match{Match: tm, locale: req.keptLocale(c.locale)}
	m.Serial, m.Board = 1, store.Board{AppID: req.AppID, Token: req.Token, At: b.cfg.Now()}
	adoptClickedMessage(req, m, false)
	v := renderMatch(b.catalog.For(m.locale), m.Match)
	old := ch.match
	kept, err := b.commit(ctx, req, ch, m, discordgo.InteractionResponseUpdateMessage, v)
	switch {
	case kept:
		return b.boards.followUp(followUps{shown: m, retire: old, picture: pictured(set, m.Match), pingFor: req.user.ID}, err)
	case rejected(err):
		// Nobody saw the game start: the challenge is open again.
		if rerr := b.stores.Challenges.OpenChallenge(context.WithoutCancel(ctx), storedChallenge(c.Challenge, req.GuildID, req.ChannelID,
			store.Board{AppID: c.msg.AppID, Token: c.msg.Token}, c.locale)); rerr != nil {
			b.log.Warn("could not reopen a challenge whose acceptance nobody saw", "channel", req.ChannelID, "err", rerr)
		}
	case ch.match == nil || ch.match.ID != m.ID:
		// Another process started a game in this channel first (the
		// save conflicted): the challenge can no longer be played.
		b.boards.editLater(c.msg, renderChallenge(b.catalog.For(req.keptLocale(c.locale)), c.Challenge, challengeSuperseded, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	}
	return err
}

func (b *Bot) decline(ctx context.Context, req *request, r route) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	c, err := b.tables.challenge(ctx, ch, r.id)
	if err != nil {
		return err
	}
	withdrawn, err := c.Decline(req.user.ID)
	if err != nil {
		rs := declineRefusals
		if c.Open() {
			rs = withdrawRefusals
		}
		return rs.of(err, map[string]any{"To": mention(c.To)})
	}
	st := challengeDeclined
	if withdrawn {
		st = challengeWithdrawn
	}
	if err := b.tables.claim(ctx, ch, c); err != nil {
		return err
	}
	v := renderChallenge(b.catalog.For(req.keptLocale(c.locale)), c.Challenge, st, b.cfg.Table.ChallengeTimeout)
	return req.respond(ctx, discordgo.InteractionResponseUpdateMessage, v, false)
}

// rematch answers a click on Rematch: a new game, so a start, paced as
// /ttt start is (startLimits); a rematch that starts nothing costs nothing.
func (b *Bot) rematch(ctx context.Context, req *request, r route) error {
	return b.startRematch(ctx, req, r.id, func(ch *channel, next *match, set store.Settings) (followUps, error) {
		// A rematch speaks the language of the game before it, or the
		// guild's (postBoard).
		return b.postBoard(ctx, req, ch, next, true, pictured(set, next.Match))
	})
}

// startRematch starts the rematch of game gameID ("": the channel's
// game) for req, if the table lets it, and has post show it (as a new
// board in chat, or on the live board) under the channel's lock.
func (b *Bot) startRematch(ctx context.Context, req *request, gameID string, post func(ch *channel, next *match, set store.Settings) (followUps, error)) error {
	end, err := b.starts.begin(ctx, req.user.ID, b.cfg.Now(), "", time.Time{})
	if err != nil {
		return err
	}
	started := false
	defer func() { end(started) }()
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	m := ch.match
	if m != nil && gameID == "" {
		gameID = m.ID // the live board's: of the channel's game
	}
	switch {
	case m == nil:
		return refuse("move.not_here", nil)
	case m.ID != gameID && !m.Over():
		return refuse("rematch.running", nil)
	case m.ID != gameID:
		return refuse("rematch.newer_game", nil)
	}
	if err := busy(ch); err != nil {
		return err
	}
	// A rematch is a new game: the guild's rules of now apply.
	tc, set, err := b.settings.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	if err := channelAllowed(set, req.ChannelID); err != nil {
		return err
	}
	var release func()
	if m.Computer != game.None && m.Judge.First().Other() == m.Computer && m.Over() && m.Side(req.user.ID) != game.None {
		// The computer moves first in the rematch: it needs time, for
		// its move only (Rematch). A rematch that Rematch refuses (a
		// bystander's) needs none, and is told why at once.
		if release, err = b.think.slot(ctx, "rematch.computer_busy"); err != nil {
			return err
		}
	}
	next, err := m.Rematch(tc, newID(), req.user.ID, b.cfg.Now())
	if release != nil {
		release() // before the save and Discord's answer, which need no thinking
	}
	if err != nil {
		return rematchRefusals.of(err, players(m.Match))
	}
	fu, err := post(ch, &match{Match: next, locale: m.locale}, set)
	started = !rejected(err) && ch.match != nil && ch.match.ID == next.ID
	return b.boards.followUp(fu, err)
}
