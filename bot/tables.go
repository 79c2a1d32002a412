package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// tables holds each channel's game through time: the registry of channels
// and their locks, loading from the store, versioned saves and taking a
// change back, the turn timers and sweeps (timers.go), and challenges that
// expire. It draws no message: what a change means on Discord it tells
// upkeep. It is safe for concurrent use.
type tables struct {
	store    Store
	meter    Meter
	log      *slog.Logger
	now      func() time.Time
	self     *self
	starts   *startLimits
	run      *runner
	upkeep   upkeep
	channels registry
}

// upkeep is what tables tells the keeper of the Discord messages (boards)
// when a game or a challenge changes without an interaction to answer.
type upkeep interface {
	// timedOut shows next, whose player to move just lost on time, on its
	// board message.
	timedOut(next *match)
	// deletePing deletes the ping id in channelID: its turn is over.
	deletePing(channelID, id string)
	// challengeExpired says on c's message that its time ran out.
	challengeExpired(ctx context.Context, guildID, channelID string, c *openChallenge)
	// lookupLater learns, if the game needs it, the message of bd, the
	// board of game gameID in channelID whose player to move loses at
	// deadline.
	lookupLater(channelID, gameID string, bd table.Board, deadline time.Time)
	// followUp does what a kept change leaves to do on Discord.
	followUp(fu followUps)
}

// put stores m, versioned; on success m.Version is the new version.
func (t *tables) put(ctx context.Context, m *match) error {
	g := toStored(m)
	if err := t.store.Save(ctx, g); err != nil {
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
// the store (see play). The caller calls unlock.
func (t *tables) lock(ctx context.Context, channelID string, cached bool) (*channel, error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-lockMargin))
		defer cancel()
	}
	ch, err := t.channels.lock(ctx, channelID)
	if err != nil {
		return nil, err
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

// errStale is a save that lost the race against another process while the
// game it changed came from this process's memory, not from the store:
// play runs the handler again on the stored game.
var errStale = errors.New("bot: the game in memory was out of date")

// play locks req's channel, runs f on it, and hands what f leaves to do
// on Discord to upkeep, which queues it before the lock is released (so
// that the edits of one message keep the order in which they were
// decided) and sends it in the background.
//
// With cached (a move: most of what the bot answers, and so what it must
// do cheaply), when this process holds the channel's running game from
// its own last save or load, f gets it without a read from the store
// (ch.cached). That game may be out of date if another process played
// here since. A change based on it cannot be saved then (saves are
// versioned: commit returns errStale), but a refusal could be wrong ("not
// your turn", a board "out of date"). So when f refuses or its save
// loses, and nothing was answered, the game is loaded from the store and
// f runs again: that verdict stands.
func (t *tables) play(ctx context.Context, req *request, cached bool, f func(ch *channel) (followUps, error)) error {
	ch, err := t.lock(ctx, req.ChannelID, cached)
	if err != nil {
		return err
	}
	defer t.unlock(ch)
	fu, err := f(ch)
	var ue userError
	if ch.cached && !req.answered.Load() && (errors.As(err, &ue) || errors.Is(err, errStale)) {
		if err := t.load(ctx, ch); err != nil {
			return err
		}
		fu, err = f(ch)
	}
	t.upkeep.followUp(fu)
	return err
}

// load reads the channel's current game and brings its timer in line.
func (t *tables) load(ctx context.Context, ch *channel) error {
	g, err := t.store.Current(ctx, ch.id)
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
				if err := t.store.Save(ctx, g); err != nil {
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
	g, err := t.store.Current(ctx, ch.id)
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
	if served != "" {
		t.upkeep.deletePing(prev.Board.ChannelID, served)
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
	c, err := t.store.Challenge(ctx, ch.id)
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
	closed, err := t.store.CloseChallenge(ctx, c.ID)
	if err != nil {
		t.log.Error("could not close an expired challenge", "channel", channelID, "err", err)
		return
	}
	t.starts.closed(c.From, c.ID)
	if closed {
		t.upkeep.challengeExpired(ctx, guildID, channelID, c)
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
	closed, err := t.store.CloseChallenge(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("close the challenge: %w", err)
	}
	ch.clearChallenge()
	t.starts.closed(c.From, c.ID)
	if !closed {
		return refuse("challenge.no_longer_open", nil)
	}
	return nil
}

// keepBoard keeps msg, read from Discord, as the message of bd, the board
// of game gameID in channelID, unless a newer board replaced it meanwhile.
func (t *tables) keepBoard(ctx context.Context, channelID, gameID string, bd table.Board, msg *discordgo.Message) {
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

// A pingRef names a ping message.
type pingRef struct{ channelID, id string }

// keepPing stores id, the ping just posted for the turn of next, with the
// game, so that the change that ends the turn deletes it, and returns the
// pings to delete now: this one if that change came first (here or in
// another process), or the one it replaces (one ping per turn).
func (t *tables) keepPing(ctx context.Context, next *match, id string) []pingRef {
	this := pingRef{next.Board.ChannelID, id}
	ch, err := t.lock(ctx, next.ChannelID, false)
	if err != nil {
		t.log.Warn("could not keep a ping", "channel", next.ChannelID, "err", err)
		return nil
	}
	defer t.unlock(ch)
	m := ch.match
	if m == nil || !sameTurn(next, m) {
		return []pingRef{this}
	}
	kept := m.Clone()
	kept.ping = id
	if err := t.put(ctx, kept); err != nil {
		// Most likely a conflict: another process changed the game since
		// the lock read it, with the move this ping asks for. A ping the
		// game cannot keep would stay for good: it goes now.
		t.log.Warn("could not keep a ping; deleting it", "channel", next.ChannelID, "err", err)
		return []pingRef{this}
	}
	ch.match = kept
	t.log.Debug("ping kept", "channel", next.ChannelID, "ping", id)
	if m.ping != "" && m.ping != id {
		return []pingRef{{m.Board.ChannelID, m.ping}} // one ping per turn
	}
	return nil
}

// stopTimers stops every timer of this process, for shutdown: challenges
// and games stay in the store, with their deadlines.
func (t *tables) stopTimers() {
	t.channels.each(func(ch *channel) {
		if ch.challenge != nil {
			ch.clearChallenge()
		}
		ch.stopTurnTimer()
	})
}
