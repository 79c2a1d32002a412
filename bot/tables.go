package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// tables holds each channel's game through time: the registry of channels
// and their locks, loading from the store, versioned saves and taking a
// change back, the turn timers and sweeps, and challenges that
// expire. It draws no message: what a change means on Discord it tells
// upkeep. It is safe for concurrent use.
type tables struct {
	games      GameStore
	challenges ChallengeStore
	meter      Meter
	log        *slog.Logger
	now        func() time.Time
	self       *self
	starts     *startLimits
	run        *runner
	upkeep     upkeep
	channels   registry
	settings   *settings // whether a guild has reminders (remind)
	noGame     noGames   // channels found without a running game, for autocomplete
}

// upkeep is what tables tells the keeper of the Discord messages (boards)
// when a game or a challenge changes without an interaction to answer.
type upkeep interface {
	// showTimeout shows next, whose player to move just lost on time, on its
	// board message.
	showTimeout(next *match)
	// deletePing deletes the ping p: its turn is over.
	deletePing(p pingRef)
	// remind reminds the player to move in next that half of their time
	// has passed: next was saved with the reminder of its turn claimed,
	// until next.lease. Once Discord took the reminder it has it kept
	// (keepPing), which ends the claim; if Discord refused it, it has the
	// claim released (releaseReminder).
	remind(next *match)
	// showExpired says on c's message that its time ran out.
	showExpired(ctx context.Context, guildID, channelID string, c *openChallenge)
	// lookupLater learns, if the game needs it, the message of bd, the
	// board of game gameID in channelID whose player to move loses at
	// deadline.
	lookupLater(channelID, gameID string, bd store.Board, deadline time.Time)
}

// put stores m, versioned; on success m.Version is the new version. The
// turn's reminder is stored as due (store.Game.RemindAt, for the sweep of
// the processes that do not time the game) unless the guild, as far as
// this process knows, has turned reminders off.
func (t *tables) put(ctx context.Context, m *match) error {
	t.noGame.forget(m.ChannelID) // a new game, perhaps
	g := toStored(m)
	if !g.RemindAt.IsZero() && !t.settings.reminds(ctx, m.GuildID) {
		g.RemindAt = time.Time{}
	}
	if err := t.games.Save(ctx, g); err != nil {
		return err
	}
	m.Version = g.Version
	return nil
}

// lockMargin is the part of an interaction's time kept for answering when
// its channel is busy.
const lockMargin = 800 * time.Millisecond

// lock returns the channel, locked, with its game loaded from the store. A
// game whose player to move is past the deadline (the bot was down when it
// fell, or another process's timer has not fired) loses by timeout first.
// With cached, a running game this process holds is used without reading
// the store (see recheck). The caller calls unlock.
func (t *tables) lock(ctx context.Context, channelID string, cached bool) (*channel, error) {
	// The common case, a move on a free channel whose running game this
	// process holds and whose turn is not over, makes no context.
	ch, free := t.channels.tryLock(channelID)
	if free && cached { // ch is ours: its game may be read
		if m := ch.match; m != nil && !m.Over() && !m.Due(t.now()) {
			ch.cached = true
			t.syncTurn(ctx, ch) // only the timers: nothing is due
			return ch, nil
		}
	}
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-lockMargin))
		defer cancel()
	}
	if !free {
		if err := t.channels.wait(ctx, ch); err != nil {
			return nil, err
		}
	}
	if m := ch.match; cached && m != nil && !m.Over() {
		ch.cached = true
		t.syncTurn(ctx, ch) // a deadline passed since: the game is lost first
		return ch, nil
	}
	if err := t.load(ctx, ch); err != nil {
		t.channels.unlock(ch)
		return nil, err
	}
	return ch, nil
}

func (t *tables) unlock(ch *channel) { t.channels.unlock(ch) }

// running returns the channel's running game for an autocomplete, or nil:
// the one this process holds, else the stored one (lock), read at most
// once per noGameFor while the channel has none (noGames). It answers
// keystrokes, not moves: a game another process started here may be
// missed for up to noGameFor.
func (t *tables) running(ctx context.Context, channelID string) (*match, error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-lockMargin))
		defer cancel()
	}
	ch, err := t.channels.lock(ctx, channelID)
	if err != nil {
		return nil, err
	}
	defer t.channels.unlock(ch)
	if m := ch.match; m != nil && !m.Over() {
		t.syncTurn(ctx, ch) // a deadline passed since: the game is lost first
		return ch.match, nil
	}
	now := t.now()
	if t.noGame.recent(channelID, now) {
		return nil, nil
	}
	if err := t.load(ctx, ch); err != nil {
		return nil, err
	}
	if m := ch.match; m != nil && !m.Over() {
		return m, nil
	}
	t.noGame.note(channelID, now) // under the channel's lock: a start here (put) comes after
	return nil, nil
}

// noGameFor is how long a channel found without a running game is
// believed to have none, by autocomplete alone.
const noGameFor = 5 * time.Second

// maxNoGames bounds the channels noGames remembers.
const maxNoGames = 10_000

// noGames remembers, for noGameFor, the channels where autocomplete found
// no running game, so that each keystroke of /ttt move there does not read
// the store (the game, then the challenge). A game started in this process
// forgets its channel at once (tables.put). The zero value is empty; it
// is safe for concurrent use.
type noGames struct {
	mu sync.Mutex
	at map[string]time.Time // when the channel was found without a game
}

// recent says whether channelID was found without a game within noGameFor
// of now.
func (n *noGames) recent(channelID string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	at, ok := n.at[channelID]
	return ok && now.Sub(at) < noGameFor && !now.Before(at)
}

// note remembers that channelID had no running game at now.
func (n *noGames) note(channelID string, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.at == nil {
		n.at = make(map[string]time.Time)
	}
	if len(n.at) >= maxNoGames {
		for id, at := range n.at {
			if now.Sub(at) >= noGameFor {
				delete(n.at, id)
			}
		}
		if len(n.at) >= maxNoGames {
			clear(n.at)
		}
	}
	n.at[channelID] = now
}

// forget drops channelID.
func (n *noGames) forget(channelID string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.at, channelID)
}

// errStale is a save that lost the race against another process while the
// game it changed came from this process's memory, not from the store:
// the handler decides again on the stored game (recheck).
var errStale = errors.New("bot: the game in memory was out of date")

// recheck says whether err, what a handler made of ch's game for req,
// must be checked again on the game as stored: the game came from this
// process's memory (ch.cached), nothing was answered, and err is a refusal
// or a save that lost the race (errStale). The handler then loads ch and
// decides again: that verdict stands.
//
// A move, most of what the bot answers and so what it must do cheaply,
// locks its channel with cached: when this process holds the channel's
// running game from its own last save or load, the handler gets it
// without a read from the store. That game may be out of date if another
// process played here since. A change based on it cannot be saved then
// (saves are versioned), but a refusal could be wrong ("not your turn", a
// board "out of date").
func (t *tables) recheck(ch *channel, req *request, err error) bool {
	var ue userError
	return ch.cached && !req.answered.Load() && (errors.As(err, &ue) || errors.Is(err, errStale))
}

// load reads the channel's current game and brings its timer in line.
func (t *tables) load(ctx context.Context, ch *channel) error {
	g, err := t.games.Current(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("load the game of channel %s: %w", ch.id, err)
	}
	ch.match, ch.cached = nil, false
	if g != nil {
		m, err := fromStored(g)
		if err != nil {
			// A game that cannot be played must not lock the channel for
			// good: it is stopped (it counts for nobody), and a new game
			// may start.
			t.log.Error("stopping a stored game that cannot be played", "channel", ch.id, "err", err)
			if g.Running() {
				g.End, g.StoppedBy, g.EndedAt, g.Deadline = game.EndStopped, t.self.systemID(), t.now(), time.Time{}
				if err := t.games.Save(ctx, g); err != nil {
					return fmt.Errorf("stop the unplayable game of channel %s: %w", ch.id, err)
				}
			}
		} else {
			ch.match = m
		}
	}
	t.syncTurn(ctx, ch)
	if ch.match != nil && !ch.match.Over() {
		// A running game excludes a challenge (a start is refused while
		// one runs), so the moves of a game, most of what the bot
		// answers, read nothing more. One opened by another process in
		// the same instant is read when its buttons are clicked
		// (challenge), or once the game is over.
		ch.clearChallenge()
		return nil
	}
	return t.loadChallenge(ctx, ch)
}

// reload reads the channel's current game after a save that lost the race
// with another process, and makes it the channel's: nil if it has none.
func (t *tables) reload(ctx context.Context, ch *channel) (*match, error) {
	g, err := t.games.Current(ctx, ch.id)
	if err != nil {
		return nil, fmt.Errorf("reload after a conflict: %w", err)
	}
	if g == nil {
		return nil, nil
	}
	m, err := fromStored(g)
	if err != nil {
		return nil, err
	}
	ch.match = m
	return m, nil
}

// save saves next, a change of ch's game not yet current: the ping of the
// turn that next ends is no longer kept with it. store.ErrConflict means
// another process saved first.
func (t *tables) save(ctx context.Context, ch *channel, next *match) error {
	if servedPing(ch.match, next) != "" {
		next.ping = ""
	}
	return t.put(ctx, next)
}

// keep makes next, saved and shown, ch's game: the meter counts it, the
// ping of the turn it ends is deleted, and the turn timer follows it.
func (t *tables) keep(ctx context.Context, ch *channel, next *match) {
	prev := ch.match
	served := servedPing(prev, next)
	countChange(t.meter, prev, next)
	ch.match = next
	ch.own = turnKey(next) // its reminder's timer is here first
	if served != "" {
		t.upkeep.deletePing(pingOf(prev, served))
	}
	t.syncTurn(ctx, ch)
}

// undo takes back a saved change whose answer Discord refused: a move is
// taken back (saved again as it was), a new game nobody saw is stopped. A
// game that ended stays ended: its result is already in the stats.
func (t *tables) undo(prev, next *match) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	var back *match
	switch {
	case next.Over() && prev != nil && prev.ID == next.ID:
		t.log.Warn("a game ended but its players could not be told", "channel", next.ChannelID, "game", next.ID)
		return
	case prev != nil && prev.ID == next.ID:
		back = prev.Clone()
	default:
		back = next.Clone()
		if err := back.Stop(t.self.systemID(), t.now()); err != nil {
			return
		}
	}
	back.Version = next.Version
	if err := t.put(ctx, back); err != nil {
		t.log.Error("could not take back a change nobody saw", "channel", next.ChannelID, "err", err)
	}
}

// loadChallenge reads ch's open challenge from the store.
func (t *tables) loadChallenge(ctx context.Context, ch *channel) error {
	c, err := t.challenges.Challenge(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("load the challenge of channel %s: %w", ch.id, err)
	}
	t.syncChallenge(ctx, ch, c)
	return nil
}

// syncChallenge makes ch's open challenge the stored one, c (nil: none),
// with a timer here to expire it; one whose time is up is closed now.
func (t *tables) syncChallenge(ctx context.Context, ch *channel, c *store.Challenge) {
	if c == nil {
		ch.clearChallenge()
		return
	}
	if ch.challenge != nil && ch.challenge.ID == c.ID {
		return // as loaded before, timer and all
	}
	ch.clearChallenge()
	oc := &openChallenge{
		Challenge: &table.Challenge{ID: c.ID, From: c.From, To: c.To, Size: c.Size, Win: c.Win, Expires: c.Expires},
		msg:       &discordgo.Interaction{AppID: c.Message.AppID, Token: c.Message.Token},
		locale:    c.Locale,
	}
	if oc.Expired(t.now()) {
		t.closeExpired(ctx, ch.id, c.GuildID, oc)
		return
	}
	ch.challenge = oc
	channelID, id := ch.id, c.ID
	oc.timer = t.run.afterFunc(c.Expires.Sub(t.now()), func() { t.expireChallenge(channelID, id) })
}

// closeExpired closes a challenge of the guild whose time is up; of the
// processes that try, the one that closes it in the store says so on its
// message.
func (t *tables) closeExpired(ctx context.Context, channelID, guildID string, c *openChallenge) {
	closed, err := t.challenges.CloseChallenge(ctx, c.ID)
	if err != nil {
		t.log.Error("could not close an expired challenge", "channel", channelID, "err", err)
		return
	}
	t.starts.close(c.From, c.ID)
	if closed {
		t.upkeep.showExpired(ctx, guildID, channelID, c)
	}
}

// challenge returns ch's open challenge if it is id: a click on a
// challenge button.
func (t *tables) challenge(ctx context.Context, ch *channel, id string) (*openChallenge, error) {
	if ch.challenge == nil {
		// Loading skips it while a game runs (see load).
		if err := t.loadChallenge(ctx, ch); err != nil {
			return nil, err
		}
	}
	c := ch.challenge
	if c == nil || c.ID != id {
		return nil, refuse("challenge.no_longer_open", nil)
	}
	return c, nil
}

// claim closes ch's open challenge c in the store, for this process
// alone: of an Accept, a Decline and a timer racing on two processes, one
// gets it, the others are told it is no longer open.
func (t *tables) claim(ctx context.Context, ch *channel, c *openChallenge) error {
	closed, err := t.challenges.CloseChallenge(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("close the challenge: %w", err)
	}
	ch.clearChallenge()
	t.starts.close(c.From, c.ID)
	if !closed {
		return refuse("challenge.no_longer_open", nil)
	}
	return nil
}

// keepBoard keeps msg, read from Discord, as the message of bd, the board
// of game gameID in channelID, unless a newer board replaced it meanwhile.
func (t *tables) keepBoard(ctx context.Context, channelID, gameID string, bd store.Board, msg *discordgo.Message) {
	ch, err := t.lock(ctx, channelID, false)
	if err != nil {
		t.log.Warn("could not keep a board message", "channel", channelID, "err", err)
		return
	}
	defer t.unlock(ch)
	m := ch.match
	if m == nil || m.ID != gameID || m.Board.Token != bd.Token || m.Board.MessageID != "" {
		return // a newer board, or one whose message is known
	}
	next := m.Clone()
	next.Board.ChannelID, next.Board.MessageID = cmp.Or(msg.ChannelID, channelID), msg.ID
	if err := t.put(ctx, next); err != nil {
		// A conflict: another process changed the game, and drew a newer
		// board, first.
		t.log.Warn("could not keep a board message", "channel", channelID, "err", err)
		return
	}
	ch.match = next
	t.log.Debug("board message kept", "channel", channelID, "message", msg.ID)
}

// current reads the channel's game from the store under its lock, so that
// a change this process saved has been answered by then, and calls fn with
// it (nil if it has none) before the lock is released: no answer in the
// channel goes out until fn returns. The match is the channel's: it must
// not be changed.
func (t *tables) current(ctx context.Context, channelID string, fn func(stored *match)) error {
	ch, err := t.lock(ctx, channelID, false)
	if err != nil {
		return err
	}
	defer t.unlock(ch)
	fn(ch.match)
	return nil
}

// keepPing stores id, the ping just posted for the turn of next, with the
// game, so that the change that ends the turn deletes it; it says whether
// it did, and returns the pings to delete now: this one if that change
// came first (here or in another process), or the one it replaces (one
// ping per turn). A reminder sent through next's board token is kept only
// while the game's board has that token (servedPing).
func (t *tables) keepPing(ctx context.Context, next *match, id string) (kept bool, del []pingRef) {
	this := pingOf(next, id)
	ch, err := t.lock(ctx, next.ChannelID, false)
	if err != nil {
		t.log.Warn("could not keep a ping", "channel", next.ChannelID, "err", err)
		return false, nil
	}
	defer t.unlock(ch)
	t.settled(ch, next)
	m := ch.match
	if m == nil || !sameTurn(next, m) || this.hook != nil && m.Board.Token != next.Board.Token {
		return false, []pingRef{this}
	}
	with := m.Clone()
	with.ping = id
	if claimedBy(m, next) {
		with.lease = time.Time{} // the reminder went: the turn is reminded
	}
	if err := t.put(ctx, with); err != nil {
		// Most likely a conflict: another process changed the game since
		// the lock read it, with the move this ping asks for. A ping the
		// game cannot keep would stay for good: it goes now.
		t.log.Warn("could not keep a ping; deleting it", "channel", next.ChannelID, "err", err)
		return false, []pingRef{this}
	}
	ch.match = with
	t.armReminder(ch, with)
	if m.ping != "" && m.ping != id {
		return true, []pingRef{pingOf(m, m.ping)} // one ping per turn
	}
	return true, nil
}

// stopTimers stops every timer of this process, for shutdown: challenges
// and games stay in the store, with their deadlines.
func (t *tables) stopTimers() {
	t.channels.each(func(ch *channel) {
		if ch.challenge != nil {
			ch.clearChallenge()
		}
		ch.stopTurnTimer()
		ch.stopRemindTimer()
	})
}

// Deadlines: the turn timer of each channel follows its stored game, and a
// sweep finds games whose time ran out while no process here was timing them.

// syncTurn ends a match whose deadline has passed, and keeps the turn timer
// on the deadline of the match.
func (t *tables) syncTurn(ctx context.Context, ch *channel) {
	if m := ch.match; m != nil && m.Due(t.now()) && !t.timeOut(ctx, ch) {
		return // a retry is armed
	}
	m := ch.match
	if m == nil || m.Over() || m.Deadline.IsZero() {
		ch.stopTurnTimer()
		ch.stopRemindTimer()
		return
	}
	t.armTurn(ch, m.Deadline)
	t.armReminder(ch, m)
}

// armTurn sets ch's turn timer to fire at at, unless it already does.
func (t *tables) armTurn(ch *channel, at time.Time) {
	if t.rearm(ch.turnTimer, &ch.turnAt, at) {
		return
	}
	id := ch.id
	ch.turnTimer = t.run.afterFunc(at.Sub(t.now()), func() { t.expireTurn(id) })
}

// rearm has the timer tm, which fires at *tmAt, fire at at instead, and
// says whether it did; false: there is no timer, and the caller makes one
// (its callback is made only then). *tmAt becomes at. A timer's callback
// only names the channel and looks again under its lock, so one that
// fires for the old time changes nothing.
func (t *tables) rearm(tm *time.Timer, tmAt *time.Time, at time.Time) bool {
	if tm != nil && !tmAt.Equal(at) {
		tm.Reset(at.Sub(t.now()))
	}
	*tmAt = at
	return tm != nil
}

// timeOut ends ch's match: the player to move loses. The board message is
// updated in the background; the player loses even if it cannot be. If the
// result cannot be saved the game goes on, and a timer tries again later;
// then timeOut returns false.
func (t *tables) timeOut(ctx context.Context, ch *channel) bool {
	next := ch.match.Clone()
	if err := next.TimeOut(t.now()); err != nil {
		return true
	}
	served := servedPing(ch.match, next)
	err := t.save(ctx, ch, next)
	if errors.Is(err, store.ErrConflict) {
		// Another process changed the game first: what it saved stands.
		if g, lerr := t.games.Current(ctx, ch.id); lerr == nil && g != nil {
			if m, ferr := fromStored(g); ferr == nil && !m.Due(t.now()) {
				ch.match = m
				return true
			}
		}
	}
	if err != nil {
		ch.saveFailures++
		wait := min(time.Second<<min(ch.saveFailures, 6), time.Minute)
		t.log.Error("could not save a timeout", "channel", ch.id, "retry_in", wait, "err", err)
		t.armTurn(ch, t.now().Add(wait))
		return false
	}
	ch.saveFailures = 0
	countChange(t.meter, ch.match, next)
	if served != "" {
		t.upkeep.deletePing(pingOf(ch.match, served))
	}
	ch.match = next
	ch.stopRemindTimer()
	t.upkeep.showTimeout(next)
	return true
}

// restore does what Bot.Restore says: a sweep now, and one every
// sweepEvery.
func (t *tables) restore(ctx context.Context) error {
	if err := t.sweep(ctx); err != nil {
		return err
	}
	if err := t.sweepChallenges(ctx, false); err != nil {
		return err
	}
	t.sweepLater()
	return nil
}

// sweepChallenges loads the channels of the open challenges (all, or
// only those whose time is up): loading arms a timer for each, or closes
// it.
func (t *tables) sweepChallenges(ctx context.Context, onlyDue bool) error {
	cs, err := t.challenges.Challenges(ctx)
	if err != nil {
		return fmt.Errorf("list open challenges: %w", err)
	}
	for _, c := range cs {
		if onlyDue && t.now().Before(c.Expires) {
			continue
		}
		if err := t.catchUp(ctx, c.ChannelID); err != nil {
			return err
		}
	}
	return nil
}

// catchUp loads a channel and lets it go: loading ends a game, or closes a
// challenge, whose time is up, and arms the timers of the others.
func (t *tables) catchUp(ctx context.Context, channelID string) error {
	ch, err := t.lock(ctx, channelID, false)
	if err != nil {
		return err
	}
	t.unlock(ch)
	return nil
}

// sweepEvery is how often restore's sweep looks for games whose time ran
// out without a timer in this process.
const sweepEvery = 30 * time.Second

func (t *tables) sweepLater() {
	t.run.afterFunc(sweepEvery, func() {
		ctx, cancel := context.WithTimeout(context.Background(), sweepEvery)
		defer cancel()
		if err := t.sweepDue(ctx); err != nil {
			t.log.Warn("looking for games out of time", "err", err)
		}
		if err := t.sweepReminders(ctx); err != nil {
			t.log.Warn("looking for reminders due", "err", err)
		}
		if err := t.sweepChallenges(ctx, true); err != nil {
			t.log.Warn("looking for challenges out of time", "err", err)
		}
		t.sweepLater()
	})
}

// sweepDue ends the games whose time ran out without a timer here: it
// asks the store for their channels only (not every running game with its
// moves), and loading each ends its game.
func (t *tables) sweepDue(ctx context.Context) error {
	channels, err := t.games.Due(ctx, t.now())
	if err != nil {
		return fmt.Errorf("list games out of time: %w", err)
	}
	for _, id := range channels {
		if err := t.catchUp(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// remindAhead is how far ahead the sweep of reminders looks: twice its
// period, so that a reminder due before the next sweep (which comes a
// period after this one ends) has its timer here whatever happens to the
// process that timed it.
const remindAhead = 2 * sweepEvery

// sweepReminders reminds the players to move in the games whose turn's
// reminder is due, or comes within remindAhead, and that this process
// does not time: the process that did may have stopped for good, holding
// a claim on the reminder or not. A reminder is worth sending for only
// part of a turn (half a turn less remindLeast: 15 s in a turn of a
// minute), shorter than the sweep's period; so the sweep does not wait
// for them to be due, but arms a timer here for each. It asks the store
// for their channels only, and skips those whose reminder a timer here
// sends, or that this process gave up for the turn (the guild has no
// reminders, it came too late). Loading each arms its timers, and remind
// sends those due now; remind claims the reminder with a versioned save,
// so the player hears once whichever process sends it.
func (t *tables) sweepReminders(ctx context.Context) error {
	channels, err := t.games.DueReminders(ctx, t.now().Add(remindAhead))
	if err != nil {
		return fmt.Errorf("list reminders due: %w", err)
	}
	for _, id := range channels {
		ch, err := t.channels.lock(ctx, id)
		if err != nil {
			return err
		}
		if ch.remindTimer == nil && !(ch.turnTimer != nil && ch.match != nil && ch.forgoes(ch.match)) {
			if err := t.load(ctx, ch); err != nil {
				t.log.Warn("turn reminder", "channel", id, "err", err)
			} else if ch.match != nil {
				t.remind(ctx, ch)
			}
		}
		t.unlock(ch)
	}
	return nil
}

// sweep ends every running game whose time ran out, and arms the turn
// timer of the others; a correspondence game whose new board message the
// bot had not yet read when it stopped has it read now, if its token is
// still good (lookupLater).
func (t *tables) sweep(ctx context.Context) error {
	gs, err := t.games.Running(ctx)
	if err != nil {
		return fmt.Errorf("list running games: %w", err)
	}
	for _, g := range gs {
		switch {
		case g.Deadline.IsZero():
		case t.now().Before(g.Deadline):
			// Not due yet: a timer is all it needs; the timer loads the
			// game when it fires, so the store is not read again now.
			ch, err := t.channels.lock(ctx, g.ChannelID)
			if err != nil {
				return err
			}
			if ch.turnTimer == nil {
				t.armTurn(ch, g.Deadline)
			}
			if m, err := fromStored(g); err == nil && ch.remindTimer == nil {
				t.armReminder(ch, m) // replays the moves, but reads nothing
			}
			t.channels.unlock(ch)
			t.upkeep.lookupLater(g.ChannelID, g.ID, g.Board, g.Deadline)
		default:
			if err := t.catchUp(ctx, g.ChannelID); err != nil { // loading ends it
				return err
			}
		}
	}
	return nil
}

// onTimer runs f on the locked channel for a timer; what names the timer
// in the log if the channel cannot be had.
func (t *tables) onTimer(channelID, what string, f func(ch *channel)) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	ch, err := t.channels.lock(ctx, channelID)
	if err != nil {
		t.log.Error(what, "channel", channelID, "err", err)
		return
	}
	defer t.unlock(ch)
	f(ch)
}

// expireChallenge runs when a challenge's time is up: loading the channel
// closes a challenge whose time is up (unless it was answered in time).
func (t *tables) expireChallenge(channelID, id string) {
	t.onTimer(channelID, "challenge timeout", func(ch *channel) {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		if c := ch.challenge; c != nil && c.ID == id {
			ch.clearChallenge() // this timer has fired; load closes it
		}
		if err := t.load(ctx, ch); err != nil {
			t.log.Error("challenge timeout", "channel", channelID, "err", err)
		}
	})
}

// expireTurn runs when a player's time may be up, and again to retry a
// timeout that could not be saved. Loading the channel ends a game whose
// deadline has passed; a timer that lost a race with a move finds a later
// deadline and re-arms.
func (t *tables) expireTurn(channelID string) {
	t.onTimer(channelID, "turn timeout", func(ch *channel) {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		ch.turnTimer, ch.turnAt = nil, time.Time{} // this one has fired
		t.log.Debug("turn timer fired", "channel", channelID)
		if err := t.load(ctx, ch); err != nil {
			t.log.Error("turn timeout", "channel", channelID, "err", err)
			t.armTurn(ch, t.now().Add(time.Second))
		}
	})
}

// countChange tells m what the change from prev to next was: a game
// started, moves played, a game ended.
func countChange(m Meter, prev, next *match) {
	same := prev != nil && prev.ID == next.ID
	played := next.Judge.Len()
	if same {
		played -= prev.Judge.Len()
	} else {
		m.GameStarted()
	}
	if played > 0 {
		m.Moves(played)
	}
	if next.Over() && !(same && prev.Over()) {
		m.GameEnded(next.End.String())
	}
}

// Reminders: when half of a turn of at least minRemindedTurn has passed,
// the player to move (never the computer) is reminded, once per turn
// across processes and restarts: the process whose versioned save claims
// the turn (match.reminded) sends the reminder, and keeps its message as
// the turn's ping, which the change that ends the turn deletes (see
// doc.go).

// armReminder sets ch's reminder timer for m's turn, or stops it when m's
// player is not to be reminded (remindAt), or no longer (lateToRemind),
// or while this process has the turn's reminder queued to send (the send
// owns it, and arms the timer again once it settles). A reminder due
// already fires at once.
func (t *tables) armReminder(ch *channel, m *match) {
	at, ok := remindAt(m)
	if !ok || ch.forgoes(m) || lateToRemind(m, t.now()) || ch.sending == turnKey(m) {
		ch.stopRemindTimer()
		return
	}
	if ch.own != turnKey(m) && at.Add(remindBackup).Before(m.Deadline.Add(-remindLeast)) {
		at = at.Add(remindBackup) // a backup: the process whose turn it is goes first
	}
	if t.rearm(ch.remindTimer, &ch.remindAt, at) {
		return
	}
	id := ch.id
	ch.remindTimer = t.run.afterFunc(at.Sub(t.now()), func() { t.remindTurn(id) })
}

// remindBackup is how much later than the process that saved a turn's
// change (or claimed its reminder) the others' timers fire for its
// reminder, so that they do not all compete for every claim at the same
// instant: well inside the part of a turn a reminder is of use in.
const remindBackup = 2500 * time.Millisecond

// remindTurn runs when the player to move in a channel's game may be due
// a reminder: it loads the game (another process may have moved, or
// reminded, meanwhile) and reminds them if it is time.
func (t *tables) remindTurn(channelID string) {
	t.onTimer(channelID, "turn reminder", func(ch *channel) {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		ch.remindTimer, ch.remindAt = nil, time.Time{} // this one has fired
		if m := ch.match; m != nil && !t.settings.reminds(ctx, m.GuildID) {
			ch.forgo(m) // and nothing read from the store
			return
		}
		if err := t.load(ctx, ch); err != nil {
			t.log.Error("turn reminder", "channel", channelID, "err", err)
			return
		}
		t.remind(ctx, ch)
	})
}

// remind claims the reminder of the turn of ch's game, if it is due and
// the guild has reminders, and has upkeep send it. The claim is a
// versioned save: of the processes that try at once, one saves it and
// reminds; the others find the game changed (a conflict) and leave it.
// The claim is a lease (match.lease, remindLease): it ends when Discord
// has taken the reminder (keepPing), is released when Discord refused it
// for a while (releaseReminder), and ends by itself if the process dies.
// Then the reminder is due again, to this process's timer or to any
// process's sweep: a player hears at least once per turn, as long as the
// reminder is of use, and, but when Discord takes a reminder without the
// bot hearing it did, at most once.
func (t *tables) remind(ctx context.Context, ch *channel) {
	m := ch.match
	at, ok := remindAt(m)
	if !ok || t.now().Before(at) || ch.forgoes(m) || ch.sending == turnKey(m) {
		return // not due, given up, or queued to be sent here
	}
	if lateToRemind(m, t.now()) {
		ch.forgo(m)
		return
	}
	if !t.settings.reminds(ctx, m.GuildID) {
		ch.forgo(m)
		return
	}
	next := m.Clone()
	next.reminded = turnNumber(next)
	next.lease = t.now().Add(remindLease(m, t.now())).Truncate(time.Millisecond) // as stored
	if err := t.put(ctx, next); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Another process changed the game first, with a move or
			// with this very reminder. Loading again sees which, and
			// arms what the game needs: a reminder still due is tried
			// again.
			t.log.Info("not reminding yet: the game changed meanwhile", "channel", ch.id)
			if lerr := t.load(ctx, ch); lerr != nil {
				t.log.Warn("turn reminder", "channel", ch.id, "err", lerr)
			}
			return
		}
		t.log.Warn("could not claim a turn's reminder; the turn goes without", "channel", ch.id, "err", err)
		ch.forgo(m)
		return
	}
	ch.match = next
	ch.sending, ch.own = turnKey(next), turnKey(next)
	ch.stopRemindTimer() // the send owns the reminder until it settles
	t.upkeep.remind(next)
}

// renewReminder renews the claim that next holds on its turn's reminder,
// which waited in this process's queue past its end: if no other process
// claimed the reminder meanwhile, and the turn goes on, it returns next
// with the claim renewed, to be sent within it.
func (t *tables) renewReminder(ctx context.Context, next *match) (*match, bool) {
	ch, err := t.lock(ctx, next.ChannelID, false)
	if err != nil {
		t.log.Warn("could not renew the claim of a turn's reminder", "channel", next.ChannelID, "err", err)
		return nil, false
	}
	defer t.unlock(ch)
	m := ch.match
	if m == nil || !claimedBy(m, next) {
		t.settled(ch, next)
		return nil, false // the turn is over, or another claim holds
	}
	with := m.Clone()
	with.lease = t.now().Add(remindLease(m, t.now())).Truncate(time.Millisecond)
	if err := t.put(ctx, with); err != nil {
		t.log.Warn("could not renew the claim of a turn's reminder", "channel", next.ChannelID, "err", err)
		t.settled(ch, next)
		return nil, false // another process's change first: the claim ends by itself
	}
	ch.match = with
	t.armReminder(ch, with)
	return with, true
}

// settled marks the send of next's reminder queued here done, and arms
// the reminder timer that the send held off for ch's game (a claim that
// ends, or another process's, is then watched here again).
func (t *tables) settled(ch *channel, next *match) {
	if ch.sending == turnKey(next) {
		ch.sending = turn{}
		if ch.match != nil {
			t.armReminder(ch, ch.match)
		}
	}
}

// doneReminding marks the send of next's reminder queued here done, under
// the channel's lock alone: a send whose outcome could not be written
// down, the store failing, is not taken for one still queued, which
// would keep the turn's reminder from this process for good.
func (t *tables) doneReminding(next *match) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	ch, err := t.channels.lock(ctx, next.ChannelID)
	if err != nil {
		t.log.Warn("could not settle a turn's reminder", "channel", next.ChannelID, "err", err)
		return
	}
	defer t.channels.unlock(ch)
	t.settled(ch, next)
}

// releaseReminder ends the claim on the reminder of next's turn that next
// holds, if it still does, after Discord refused the reminder: the
// reminder is due again retryIn from now (at least remindRetry, or as
// long as a rate limit holds), here or in any process; with 0, it is
// given up for the turn (Discord will not take
// it: the token or the channel is gone).
func (t *tables) releaseReminder(ctx context.Context, next *match, retryIn time.Duration) {
	ch, err := t.lock(ctx, next.ChannelID, false)
	if err != nil {
		t.log.Warn("could not release a turn's reminder", "channel", next.ChannelID, "err", err)
		return
	}
	defer t.unlock(ch)
	t.settled(ch, next)
	m := ch.match
	if m == nil || !claimedBy(m, next) {
		return // the turn is over, or another claim holds
	}
	with := m.Clone()
	with.lease = time.Time{}
	if retryIn > 0 {
		with.lease = t.now().Add(retryIn).Truncate(time.Millisecond)
	}
	if err := t.put(ctx, with); err != nil {
		// The claim ends by itself.
		t.log.Warn("could not release a turn's reminder", "channel", next.ChannelID, "err", err)
		return
	}
	ch.match = with
	t.armReminder(ch, with)
}
