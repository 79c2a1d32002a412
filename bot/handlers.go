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

// Every game handler follows one pattern: lock the channel (which loads its
// game from the store, or for a move may use the copy in memory: see
// Bot.play), let the table decide on a clone, then commit: save
// the clone (versioned, durable), answer, and unless the answer certainly
// did not take effect, keep it and arm timers. A refusal changes nothing.

// help lists the commands, in the user's language: the catalog's help.*
// texts, one line each, with the timeouts in force in the guild. It is an
// embed: in some languages it is longer than a message's content may be.
func (b *Bot) help(ctx context.Context, req *request) error {
	tc, _, err := b.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	v := view{embeds: []*discordgo.MessageEmbed{{Description: helpText(req.lang, tc)}}}
	return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, true)
}

// helpText is the text of /ttt help in l's language, with tc's timeouts.
func helpText(l *i18n.Localizer, tc table.Config) string {
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

// players are the placeholders MarkX, PlayerX, MarkO and PlayerO of m.
func players(m *table.Match) map[string]any {
	return map[string]any{"MarkX": cellX, "PlayerX": mention(m.Players[game.X]), "MarkO": cellO, "PlayerO": mention(m.Players[game.O])}
}

// refusal turns the table's refusal of userID's move at row, col in m into
// words; other errors pass through.
func refusal(err error, m *match, row, col int) error {
	switch {
	case errors.Is(err, table.ErrOver):
		return refuse("move.game_over", nil)
	case errors.Is(err, table.ErrNotPlayer):
		return refuse("move.not_player", players(m.Match))
	case errors.Is(err, table.ErrNotYourTurn):
		turn := m.Turn()
		return refuse("move.not_your_turn", map[string]any{"Mark": mark(turn), "Player": mention(m.Players[turn])})
	case errors.Is(err, table.ErrOutside):
		return refuse("move.outside", map[string]any{"Row": row, "Col": col, "Size": m.Judge.Size()})
	case errors.Is(err, table.ErrOccupied):
		return refuse("move.occupied", map[string]any{"Row": row, "Col": col, "Empty": cellEmpty})
	}
	return err
}

// challenged names who c challenges: a mention, or for an open challenge
// "anyone", in the language it is answered in.
func challenged(c *table.Challenge) any {
	if c.Open() {
		return text{key: "challenge.anyone"}
	}
	return mention(c.To)
}

func (b *Bot) start(ctx context.Context, req *request) error {
	data := req.commandData()
	sub, err := subcommand(data)
	if err != nil {
		return err
	}
	tc, set, err := b.rulesFor(ctx, req)
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
	self := b.selfID()
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
		c = table.NewChallenge(tc, newID(), user.ID, to, so.size, so.win, b.now())
	}
	var undo func()
	if c != nil {
		undo, err = b.starts.begin(user.ID, b.now(), c.ID, c.Expires)
	} else {
		undo, err = b.starts.begin(user.ID, b.now(), "", time.Time{})
	}
	if err != nil {
		return err
	}
	started := false // what follows may not start anything: then it costs nothing
	defer func() {
		if !started {
			undo()
		}
	}()

	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if err := busy(ch); err != nil {
		return err
	}

	if vsComputer {
		m, err := table.Start(tc, newID(), table.Setup{
			GuildID: req.GuildID, ChannelID: req.ChannelID,
			Players: [3]string{game.X: user.ID, game.O: self}, Computer: game.O, Level: so.level,
			Size: so.size, Win: so.win, First: game.X,
		}, b.now())
		if err != nil {
			return err
		}
		err = b.postBoard(ctx, req, ch, &match{Match: m, locale: req.newLocale()}, true, pictured(set, m))
		started = !rejected(err) && ch.match != nil && ch.match.ID == m.ID
		return err
	}

	// Stored before it is shown, so that every process sharing the
	// database can answer its buttons.
	locale := req.newLocale()
	sc := storedChallenge(c, req.GuildID, req.ChannelID, table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}, locale)
	if err := b.store.OpenChallenge(ctx, sc); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("store the challenge: %w", err)
		}
		// Another process opened one first.
		if err := b.load(ctx, ch); err != nil {
			return err
		}
		if err := busy(ch); err != nil {
			return err
		}
		return refuse("start.race", nil)
	}
	v := renderChallenge(b.lang(locale), c, challengeOpen, tc.ChallengeTimeout)
	err = b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	if rejected(err) {
		if _, cerr := b.store.CloseChallenge(context.WithoutCancel(ctx), c.ID); cerr != nil {
			b.log.Error("could not take back a challenge nobody saw", "channel", req.ChannelID, "err", cerr)
		}
		return err
	}
	// Shown, or perhaps shown: the challenge is open either way.
	started = true
	b.syncChallenge(ctx, ch, sc)
	return err
}

func (b *Bot) moveCommand(ctx context.Context, req *request) error {
	sub, err := subcommand(req.commandData())
	if err != nil {
		return err
	}
	row, col, err := decodeMove(sub)
	if err != nil {
		return err
	}
	tc, set, err := b.rulesFor(ctx, req) // from memory, read at most once per settingsTTL
	if err != nil {
		return err
	}
	return b.play(ctx, req, func(ch *channel) error {
		if ch.match == nil {
			return noGame(ch)
		}
		if playedBy(ch.match, req) {
			return b.replay(ctx, req, ch.match)
		}
		next := ch.match.Clone()
		if err := next.Play(tc, req.user.ID, row, col, b.now()); err != nil {
			return refusal(err, ch.match, row, col)
		}
		return b.postBoard(ctx, req, ch, next, true, pictured(set, next.Match))
	})
}

func (b *Bot) moveButton(ctx context.Context, req *request) error {
	r, err := parseRoute(req.componentData().CustomID)
	if err != nil {
		return err
	}
	tc, _, err := b.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	return b.play(ctx, req, func(ch *channel) error {
		m := ch.match
		if m != nil && m.ID == r.id && playedBy(m, req) {
			return b.replay(ctx, req, m)
		}
		switch {
		case m == nil:
			return refuse("move.not_here", nil)
		case m.ID != r.id:
			return refuse("move.other_game", nil)
		case m.Over():
			return refuse("move.game_over", nil) // not "continues in a newer message"
		case r.serial != m.Serial:
			return refuse("move.stale_board", nil)
		}
		next := m.Clone()
		if err := next.Play(tc, req.user.ID, r.row, r.col, b.now()); err != nil {
			return refusal(err, m, r.row, r.col)
		}
		// The click's token edits the same message, and is fresher.
		next.Board = table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
		clickedBoard(req, next, m.Board.MessageID != "")
		next.locale = req.keptLocale(next.locale)
		v := renderMatch(b.lang(next.locale), next.Match)
		return b.commit(ctx, req, ch, next, func() error {
			return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
		}, func() { b.pingMover(req, next) })
	})
}

func noGame(ch *channel) error {
	if c := ch.challenge; c != nil {
		return refuse("board.waiting_challenge", map[string]any{"From": mention(c.From), "To": challenged(c.Challenge)})
	}
	return refuse("board.no_game", nil)
}

func (b *Bot) boardCommand(ctx context.Context, req *request) error {
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if ch.match == nil || (ch.challenge != nil && ch.match.Over()) {
		return noGame(ch)
	}
	// Showing the board again pings nobody: anyone may ask for it.
	next := ch.match.Clone()
	return b.postBoard(ctx, req, ch, next, false, b.showsPicture(ctx, req.GuildID, next.Match))
}

func (b *Bot) resign(ctx context.Context, req *request) error {
	user := req.user.ID
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if c := ch.challenge; c != nil {
		switch user {
		case c.From:
			return b.closeChallenge(ctx, req, ch, challengeWithdrawn, "resign.withdrawn")
		case c.To:
			return refuse("resign.not_accepted", nil)
		}
	}
	m := ch.match
	if m == nil || m.Over() {
		return noGame(ch)
	}
	next := m.Clone()
	if err := next.Resign(user, b.now()); err != nil {
		if errors.Is(err, table.ErrNotPlayer) {
			return refuse("resign.not_player", nil)
		}
		return err
	}
	return b.postBoard(ctx, req, ch, next, false, b.showsPicture(ctx, req.GuildID, next.Match))
}

// offerDraw answers /ttt draw: a player offers the opponent a draw, on a
// message of its own whose buttons the opponent answers with. The offer is
// stored with the game; the next move withdraws it.
func (b *Bot) offerDraw(ctx context.Context, req *request) error {
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	m := ch.match
	if m == nil || m.Over() {
		return noGame(ch)
	}
	next := m.Clone()
	switch err := next.OfferDraw(req.user.ID); {
	case errors.Is(err, table.ErrNotPlayer):
		return refuse("draw.not_player", nil)
	case errors.Is(err, table.ErrComputer):
		return refuse("draw.computer", nil)
	case errors.Is(err, table.ErrOffered):
		return refuse("draw.already", nil)
	case err != nil:
		return err
	}
	v := renderDrawOffer(b.lang(req.keptLocale(m.locale)), next.Match, next.DrawOffer)
	return b.commit(ctx, req, ch, next, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	}, nil)
}

// answerDraw answers a click on Accept draw (accept) or Decline: the offer
// message says how it was answered; an accepted draw ends the game, and its
// board shows the result.
func (b *Bot) answerDraw(ctx context.Context, req *request, accept bool) error {
	r, ch, err := b.lockClicked(ctx, req)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	m := ch.match
	if m == nil || m.ID != r.id || m.Over() || m.DrawOffer == game.None {
		return refuse("draw.gone", nil)
	}
	offerer := m.DrawOffer
	next := m.Clone()
	if accept {
		err = next.AcceptDraw(req.user.ID, b.now())
	} else {
		err = next.DeclineDraw(req.user.ID)
	}
	switch {
	case errors.Is(err, table.ErrNotPlayer):
		return refuse("draw.not_player", nil)
	case errors.Is(err, table.ErrNoOffer):
		return refuse("draw.own", nil) // the offer stands, so it is the clicker's own
	case err != nil:
		return err
	}
	v := renderDrawAnswer(b.lang(req.keptLocale(m.locale)), next.Match, offerer, accept)
	var after func()
	if accept {
		after = func() { b.editBoard(next, renderMatch(b.lang(next.locale), next.Match)) }
	}
	return b.commit(ctx, req, ch, next, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
	}, after)
}

// canModerate says whether the member may stop other people's games.
func canModerate(req *request) bool {
	return req.Member != nil && req.Member.Permissions&(discordgo.PermissionManageMessages|discordgo.PermissionAdministrator) != 0
}

func (b *Bot) stop(ctx context.Context, req *request) error {
	if err := b.mayStop(ctx, req); err != nil {
		return err
	}
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if ch.challenge != nil {
		return b.closeChallenge(ctx, req, ch, challengeCancelled, "stop.cancelled")
	}
	m := ch.match
	if m == nil || m.Over() {
		return refuse("stop.no_game", nil)
	}
	next := m.Clone()
	if err := next.Stop(req.user.ID, b.now()); err != nil {
		return err
	}
	return b.postBoard(ctx, req, ch, next, false, b.showsPicture(ctx, req.GuildID, next.Match))
}

// closeChallenge ends ch's challenge without a game: it tells the user
// (ephemerally) the catalog's text reply and rewrites the challenge message
// to say what happened.
func (b *Bot) closeChallenge(ctx context.Context, req *request, ch *channel, st challengeState, reply string) error {
	c := ch.challenge
	if err := b.claim(ctx, ch, c); err != nil {
		return err
	}
	// The challenge ends whether or not the reply reaches the user.
	b.editLater(c.msg, renderChallenge(b.lang(req.keptLocale(c.locale)), c.Challenge, st, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	return b.say(ctx, req, req.lang.T(reply, nil))
}

// claim closes ch's open challenge c in the store, for this process
// alone: of an Accept, a Decline and a timer racing on two processes, one
// gets it, the others are told it is no longer open.
func (b *Bot) claim(ctx context.Context, ch *channel, c *openChallenge) error {
	closed, err := b.store.CloseChallenge(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("close the challenge: %w", err)
	}
	ch.clearChallenge()
	b.starts.closed(c.From, c.ID)
	if !closed {
		return refuse("challenge.no_longer_open", nil)
	}
	return nil
}

// lockClicked reads the route of the button req clicked and locks its
// channel. The caller unlocks ch.
func (b *Bot) lockClicked(ctx context.Context, req *request) (route, *channel, error) {
	r, err := parseRoute(req.componentData().CustomID)
	if err != nil {
		return route{}, nil, err
	}
	ch, err := b.lock(ctx, req.ChannelID)
	return r, ch, err
}

// challengeClick locks the channel of a click on a challenge button and
// returns the open challenge the button belongs to. The caller unlocks ch.
func (b *Bot) challengeClick(ctx context.Context, req *request) (*channel, *openChallenge, error) {
	r, ch, err := b.lockClicked(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if ch.challenge == nil {
		// Loading skips it while a game runs (see load).
		if err := b.loadChallenge(ctx, ch); err != nil {
			b.unlock(ch)
			return nil, nil, err
		}
	}
	c := ch.challenge
	if c == nil || c.ID != r.id {
		b.unlock(ch)
		return nil, nil, refuse("challenge.no_longer_open", nil)
	}
	return ch, c, nil
}

func (b *Bot) accept(ctx context.Context, req *request) error {
	ch, c, err := b.challengeClick(ctx, req)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	tc, set, err := b.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	tm, err := c.Accept(tc, newID(), req.user.ID, req.GuildID, req.ChannelID, b.now())
	switch {
	case errors.Is(err, table.ErrOwnChallenge) && c.Open():
		return refuse("challenge.own_open", nil) // its buttons are Join and Withdraw
	case errors.Is(err, table.ErrOwnChallenge):
		return refuse("challenge.own", nil)
	case errors.Is(err, table.ErrNotChallenge):
		return refuse("challenge.not_yours_start", map[string]any{"To": mention(c.To)})
	case errors.Is(err, table.ErrExpired):
		return refuse("challenge.too_late", nil)
	case err != nil:
		return err
	}
	// Claimed first: a Decline or a timer on another process now finds
	// it closed.
	if err := b.claim(ctx, ch, c); err != nil {
		return err
	}
	// The challenge message becomes the board, in its language.
	m := &match{Match: tm, locale: req.keptLocale(c.locale)}
	m.Serial, m.Board = 1, table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
	clickedBoard(req, m, false)
	v := renderMatch(b.lang(m.locale), m.Match)
	old := ch.match
	err = b.commit(ctx, req, ch, m, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
	}, func() {
		b.retire(old, m)
		if pictured(set, m.Match) {
			b.pictureLater(m)
		}
		b.pingMover(req, m)
	})
	switch {
	case rejected(err):
		// Nobody saw the game start: the challenge is open again.
		if rerr := b.store.OpenChallenge(context.WithoutCancel(ctx), storedChallenge(c.Challenge, req.GuildID, req.ChannelID,
			table.Board{AppID: c.msg.AppID, Token: c.msg.Token}, c.locale)); rerr != nil {
			b.log.Warn("could not reopen a challenge whose acceptance nobody saw", "channel", req.ChannelID, "err", rerr)
		}
	case ch.match == nil || ch.match.ID != m.ID:
		// Another process started a game in this channel first (the
		// save conflicted): the challenge can no longer be played.
		b.editLater(c.msg, renderChallenge(b.lang(req.keptLocale(c.locale)), c.Challenge, challengeSuperseded, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	}
	return err
}

func (b *Bot) decline(ctx context.Context, req *request) error {
	ch, c, err := b.challengeClick(ctx, req)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	withdrawn, err := c.Decline(req.user.ID)
	switch {
	case err != nil && c.Open():
		return refuse("challenge.open_not_yours", nil)
	case err != nil:
		return refuse("challenge.not_yours", map[string]any{"To": mention(c.To)})
	}
	st := challengeDeclined
	if withdrawn {
		st = challengeWithdrawn
	}
	if err := b.claim(ctx, ch, c); err != nil {
		return err
	}
	v := renderChallenge(b.lang(req.keptLocale(c.locale)), c.Challenge, st, b.cfg.Table.ChallengeTimeout)
	return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
}

func (b *Bot) rematch(ctx context.Context, req *request) error {
	r, ch, err := b.lockClicked(ctx, req)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	m := ch.match
	switch {
	case m == nil:
		return refuse("move.not_here", nil)
	case m.ID != r.id && !m.Over():
		return refuse("rematch.running", nil)
	case m.ID != r.id:
		return refuse("rematch.newer_game", nil)
	}
	if err := busy(ch); err != nil {
		return err
	}
	// A rematch is a new game: the guild's rules of now apply.
	tc, set, err := b.rulesFor(ctx, req)
	if err != nil {
		return err
	}
	if err := channelAllowed(set, req.ChannelID); err != nil {
		return err
	}
	next, err := m.Rematch(tc, newID(), req.user.ID, b.now())
	switch {
	case errors.Is(err, table.ErrNotOver):
		return refuse("rematch.not_over", nil)
	case errors.Is(err, table.ErrNotPlayer):
		return refuse("rematch.not_player", players(m.Match))
	case err != nil:
		return err
	}
	// A rematch speaks the language of the game before it, or the
	// guild's (postBoard).
	return b.postBoard(ctx, req, ch, &match{Match: next, locale: m.locale}, true, pictured(set, next))
}
