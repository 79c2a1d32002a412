package bot

import (
	"context"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/table"
)

// A channel is what this process holds for one Discord channel besides the
// stored game: the lock that serialises everything that happens there
// (which is what makes two simultaneous clicks apply exactly one move), the
// game as this process last saved or loaded it, the open challenge, the
// turn timer and the reminder's. Every lock but a move's loads the game
// from the store, so that another process sharing the database is never
// overruled by a stale copy; a move uses the copy and checks it when it
// matters (tables.recheck).
//
// Its fields are guarded by its lock.
type channel struct {
	id  string
	sem chan struct{} // holds one token while the channel is locked

	match     *match // the game, as last saved or loaded here
	cached    bool   // match was not read from the store for this lock
	challenge *openChallenge
	turnTimer *time.Timer // fires at turnAt, the deadline of the player to move
	turnAt    time.Time
	// remindTimer fires at remindAt, when the player to move is to be
	// reminded (tables.remindTurn).
	remindTimer *time.Timer
	remindAt    time.Time
	// forgone names the turn (game id and turnNumber) whose reminder this
	// process gave up (the guild turned reminders off, or it could not be
	// claimed), so that locking the channel again does not retry it.
	forgone turn
	// sending names the turn whose reminder this process claimed and has
	// queued to send: until the send settles (kept, released, or its claim
	// lost), this process does not claim it again when the claim ends.
	sending turn
	// own names the turn whose reminder this process is first to send:
	// the turn a change saved here began, or whose reminder it claimed.
	// Other turns' reminder timers here are backups (remindBackup).
	own turn
	// saveFailures counts timeouts in a row that could not be saved, to
	// back off.
	saveFailures uint

	refs int // lockers holding or waiting for sem; guarded by registry.mu
}

// An openChallenge is the channel's stored challenge, as loaded, with the
// message it is shown on and this process's timer that expires it.
type openChallenge struct {
	*table.Challenge
	msg    *discordgo.Interaction // whose @original is the challenge message
	locale string                 // the Discord locale of that message ("": English)
	timer  *time.Timer
}

// idle says whether the channel holds nothing worth keeping in memory.
func (ch *channel) idle() bool {
	return ch.challenge == nil && ch.turnTimer == nil && ch.remindTimer == nil && ch.sending == turn{}
}

func (ch *channel) clearChallenge() {
	if ch.challenge != nil {
		ch.challenge.timer.Stop()
		ch.challenge = nil
	}
}

func (ch *channel) stopTurnTimer() {
	if ch.turnTimer != nil {
		ch.turnTimer.Stop()
		ch.turnTimer, ch.turnAt = nil, time.Time{}
	}
}

// forgo gives up the reminder of m's turn here.
func (ch *channel) forgo(m *match) {
	ch.stopRemindTimer()
	ch.forgone = turnKey(m)
}

// forgoes says whether this process gave up the reminder of m's turn.
func (ch *channel) forgoes(m *match) bool { return ch.forgone != turn{} && ch.forgone == turnKey(m) }

func (ch *channel) stopRemindTimer() {
	if ch.remindTimer != nil {
		ch.remindTimer.Stop()
		ch.remindTimer, ch.remindAt = nil, time.Time{}
	}
}

// registry maps channel ids to channels. A channel is in it only while it
// is locked or awaited, has an open challenge, or has a turn timer: memory
// follows the games being played, not every channel that ever played. The
// zero value is ready to use and safe for concurrent use.
type registry struct {
	mu       sync.Mutex
	channels map[string]*channel
}

// lock returns the channel with its lock held; the caller calls unlock. It
// gives up with errBusy when ctx ends first (a free channel is taken even
// then). Different channels never wait for each other beyond the map
// lookup.
func (r *registry) lock(ctx context.Context, id string) (*channel, error) {
	ch, ok := r.tryLock(id)
	if ok {
		return ch, nil
	}
	if err := r.wait(ctx, ch); err != nil {
		return nil, err
	}
	return ch, nil
}

// wait locks ch, which tryLock found held, once it is free: errBusy if
// ctx ends first (ch's reference is released then).
func (r *registry) wait(ctx context.Context, ch *channel) error {
	select {
	case ch.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		r.release(ch, false)
		return errBusy
	}
}

// tryLock locks the channel id if nobody holds it. Otherwise it returns
// the channel with a reference taken, which the caller waits for (wait).
func (r *registry) tryLock(id string) (*channel, bool) {
	r.mu.Lock()
	if r.channels == nil {
		r.channels = make(map[string]*channel)
	}
	ch, ok := r.channels[id]
	if !ok {
		ch = &channel{id: id, sem: make(chan struct{}, 1)}
		r.channels[id] = ch
	}
	ch.refs++
	r.mu.Unlock()

	select {
	case ch.sem <- struct{}{}:
		return ch, true
	default:
		return ch, false
	}
}

// unlock releases ch, and forgets it if it holds nothing. Its game stays
// while ch is kept (see tables.recheck).
func (r *registry) unlock(ch *channel) {
	r.release(ch, true)
}

func (r *registry) release(ch *channel, held bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch.refs--
	// With refs at 0 nobody else holds or awaits ch, and whoever held it
	// last let go under r.mu, so its fields can be read here.
	if ch.refs == 0 && ch.idle() {
		delete(r.channels, ch.id)
	}
	if held {
		<-ch.sem
	}
}

// len is the number of channels in memory.
func (r *registry) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.channels)
}

// each calls f on every channel with its lock held, for shutdown.
func (r *registry) each(f func(*channel)) {
	r.mu.Lock()
	chs := make([]*channel, 0, len(r.channels))
	for _, ch := range r.channels {
		ch.refs++
		chs = append(chs, ch)
	}
	r.mu.Unlock()
	for _, ch := range chs {
		ch.sem <- struct{}{}
		f(ch)
		r.release(ch, true)
	}
}

// errBusy is what a user hears when their channel stayed locked too long.
var errBusy = refuse("error.busy", nil)
