package web

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The hub counts the sockets (in all, per user, per activity instance)
// and keeps one room per channel with pages open on this server. A room
// watches its channel's Feed (so a channel nobody watches costs nothing
// per move) and, after every change, reads the state and sends it to
// each of its sockets.
//
// A state is per viewer (whose side, and the texts in their language),
// but every spectator of one language sees the same one: a room reads
// the state once for the players it has (each) and once per language of
// its spectators, marshals it once, and sends the same bytes to all of
// them. A thousand spectators cost one read, not a thousand.
type hub struct {
	s         *Server
	mu        sync.Mutex
	closed    bool
	total     int // sockets admitted, with or without hello
	all       map[*socket]struct{}
	users     map[string]*userSlot
	instances map[string]int
	rooms     map[string]*room
}

// userSlot is one user's sockets on this server, and their actions'
// rate limit, shared by all of them.
type userSlot struct {
	n       int
	actions bucket
}

func newHub(s *Server) *hub {
	return &hub{
		s:         s,
		all:       map[*socket]struct{}{},
		users:     map[string]*userSlot{},
		instances: map[string]int{},
		rooms:     map[string]*room{},
	}
}

// admit counts a new socket, unless Limits.Total are open.
func (h *hub) admit() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.total >= h.s.limits.Total {
		return false
	}
	h.total++
	return true
}

// add keeps k so that close can close it; false once the hub is closed.
func (h *hub) add(k *socket) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.all[k] = struct{}{}
	return true
}

// release uncounts an admitted socket (k nil: one never added).
func (h *hub) release(k *socket) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total--
	delete(h.all, k)
}

func (h *hub) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// join counts k (after its hello) against its user's and its instance's
// limits and puts it in its channel's room; if a limit is reached it
// returns the refusal's code and close status.
func (h *hub) join(k *socket) (string, websocket.StatusCode) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lim := h.s.limits
	u := h.users[k.claims.User]
	switch {
	case h.closed:
		return "restarting", websocket.StatusGoingAway
	case u != nil && u.n >= lim.PerUser:
		return "too_many_sockets", websocket.StatusPolicyViolation
	case h.instances[k.claims.Instance] >= lim.PerInstance:
		return "busy", websocket.StatusTryAgainLater
	}
	if u == nil {
		u = &userSlot{actions: bucket{rate: lim.ActionsPerSecond, burst: float64(lim.ActionBurst)}}
		h.users[k.claims.User] = u
	}
	u.n++
	h.instances[k.claims.Instance]++
	k.user = u
	r := h.rooms[k.viewer.ChannelID]
	if r == nil {
		r = h.newRoom(k.viewer.ChannelID)
		h.rooms[r.channel] = r
	}
	r.sockets[k] = struct{}{}
	k.room = r
	select {
	case r.joins <- k:
	default:
		// The room is behind on reading for new sockets: it reads for
		// every socket at its next turn instead.
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	return "", 0
}

// leave takes a joined socket out of its room and its counts; the last
// one out of a room ends it (and its watch).
func (h *hub) leave(k *socket) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if u := h.users[k.claims.User]; u != nil {
		if u.n--; u.n <= 0 {
			// The slot (and its spent actions) outlives the user's
			// last socket until its bucket is full again: else a page
			// would refill it by closing its socket and opening
			// another with the same session. Actions are spent only
			// through a socket: if the user comes back and spends
			// more, their next last leave arms its own expiry.
			user := k.claims.User
			h.s.afterFunc(u.actions.fullIn(h.s.now()), func() {
				h.mu.Lock()
				defer h.mu.Unlock()
				if h.users[user] == u && u.n <= 0 && u.actions.fullIn(h.s.now()) == 0 {
					delete(h.users, user)
				}
			})
		}
	}
	if h.instances[k.claims.Instance]--; h.instances[k.claims.Instance] <= 0 {
		delete(h.instances, k.claims.Instance)
	}
	r := k.room
	delete(r.sockets, k)
	if len(r.sockets) == 0 && h.rooms[r.channel] == r {
		delete(h.rooms, r.channel)
		r.end()
	}
}

// close closes every socket, telling its page to come back (1001), and
// refuses new ones.
func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	socks := make([]*socket, 0, len(h.all))
	for k := range h.all {
		socks = append(socks, k)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, k := range socks {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			b, _ := json.Marshal(ServerMsg{Type: "error", Code: "restarting", Message: text(k.lang.Load(), "restarting")})
			if k.c.Write(ctx, websocket.MessageText, b) == nil {
				go func() { _ = k.c.Close(websocket.StatusGoingAway, "restarting") }()
				select { // the page answers the close at once, or is cut
				case <-k.ctx.Done():
				case <-ctx.Done():
				}
			}
			k.kill()
		})
	}
	wg.Wait()
}

// joinQueue bounds the sockets waiting for their first state in a room.
const joinQueue = 64

// room is the sockets of one channel on this server.
type room struct {
	h       *hub
	channel string
	sockets map[*socket]struct{} // guarded by h.mu
	joins   chan *socket         // new sockets, to read the state for
	kick    chan struct{}        // read for every socket (cap 1)
	end     context.CancelFunc
}

func (h *hub) newRoom(channel string) *room {
	ctx, cancel := context.WithCancel(context.Background())
	r := &room{
		h:       h,
		channel: channel,
		sockets: map[*socket]struct{}{},
		joins:   make(chan *socket, joinQueue),
		kick:    make(chan struct{}, 1),
		end:     cancel,
	}
	go r.run(ctx)
	return r
}

// run watches the channel and sends states until the room ends. Reads
// for new sockets and for changes are made here, one at a time, so that
// no socket gets an older state after a newer one.
func (r *room) run(ctx context.Context) {
	s := r.h.s
	defer r.detach()
	changes, stop, err := s.cfg.Feed.Watch(ctx, r.channel)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("live board: watching a channel", "channel", r.channel, "err", err)
			r.detach()
			r.closeAll("internal", websocket.StatusInternalError)
		}
		return
	}
	defer stop()
	// A change saved before the watch began was not reported: read
	// once for everybody now.
	r.fanOut(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case k := <-r.joins:
			r.first(ctx, k)
		case <-r.kick:
			r.fanOut(ctx)
		case _, ok := <-changes:
			if !ok {
				if ctx.Err() == nil {
					// The feed ended (its database connection lost):
					// the pages come back, and watch anew.
					r.detach()
					r.closeAll("restarting", websocket.StatusTryAgainLater)
				}
				return
			}
			// A burst of changes is one read: take what is waiting.
			for drained := false; !drained; {
				select {
				case _, ok := <-changes:
					drained = !ok
				default:
					drained = true
				}
			}
			r.fanOut(ctx)
		}
	}
}

// detach takes an ended room out of the hub, so that a socket joining
// later gets a new room (and watch) rather than this one, which reads
// for nobody now.
func (r *room) detach() {
	r.h.mu.Lock()
	if r.h.rooms[r.channel] == r {
		delete(r.h.rooms, r.channel)
	}
	r.h.mu.Unlock()
	r.end()
}

// first sends a new socket its first state.
func (r *room) first(ctx context.Context, k *socket) {
	if k.ctx.Err() != nil || k.stated.Load() {
		return // gone, or given the state already (the room's first fanOut)
	}
	st, err := r.read(ctx, k.viewer)
	if err != nil {
		r.failed(k, err)
		return
	}
	k.sendState(st)
}

// read reads and marshals the state as v sees it.
func (r *room) read(ctx context.Context, v Viewer) ([]byte, error) {
	st, err := r.state(ctx, v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ServerMsg{Type: "state", State: &st})
}

// state reads the state as v sees it, within Limits.StateWithin: a read
// that hangs would hold the room, and every page of the channel, for
// good.
func (r *room) state(ctx context.Context, v Viewer) (State, error) {
	ctx, cancel := context.WithTimeout(ctx, r.h.s.limits.StateWithin)
	defer cancel()
	return r.h.s.cfg.Games.State(ctx, v)
}

func (r *room) failed(k *socket, err error) {
	if k.ctx.Err() != nil {
		return
	}
	r.h.s.log.Warn("live board: reading a channel's game", "channel", r.channel, "err", err)
	k.fail(0, "internal")
}

// fanOut reads the state and sends it to every socket: one read per
// player present and per language of the spectators.
func (r *room) fanOut(ctx context.Context) {
	r.h.mu.Lock()
	socks := make([]*socket, 0, len(r.sockets))
	for k := range r.sockets {
		socks = append(socks, k)
	}
	r.h.mu.Unlock()
	if len(socks) == 0 {
		return
	}
	// The first read says who the players are now.
	first, err := r.state(ctx, socks[0].viewer)
	if err != nil {
		if ctx.Err() == nil {
			for _, k := range socks {
				r.failed(k, err)
			}
		}
		return
	}
	players := map[string]bool{}
	for _, p := range first.Players {
		if p.ID != "" && !p.Bot {
			players[p.ID] = true
		}
	}
	key := func(v Viewer) string {
		if players[v.UserID] {
			return "player " + v.UserID
		}
		return "spectator " + v.Locale
	}
	b, _ := json.Marshal(ServerMsg{Type: "state", State: &first})
	sent := map[string][]byte{key(socks[0].viewer): b}
	for _, k := range socks {
		kk := key(k.viewer)
		b, ok := sent[kk]
		if !ok {
			if b, err = r.read(ctx, k.viewer); err != nil {
				r.failed(k, err)
				continue
			}
			sent[kk] = b
		}
		k.sendState(b)
	}
}

// closeAll refuses every socket of the room with code.
func (r *room) closeAll(code string, status websocket.StatusCode) {
	r.h.mu.Lock()
	socks := make([]*socket, 0, len(r.sockets))
	for k := range r.sockets {
		socks = append(socks, k)
	}
	r.h.mu.Unlock()
	for _, k := range socks {
		go k.refuse(code, status)
	}
}

// bucket is a token bucket: rate tokens a second, at most burst.
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

// fullIn is how long after now the bucket is full again.
func (b *bucket) fullIn(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	tokens := b.at(now)
	if tokens >= b.burst {
		return 0
	}
	return time.Duration(min((b.burst-tokens)/b.rate, 24*3600) * float64(time.Second))
}

// take takes a token at now, if there is one.
func (b *bucket) take(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens, b.last = b.at(now), now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// at is how many tokens b holds at now (b.mu held): full before its first
// take.
func (b *bucket) at(now time.Time) float64 {
	if b.last.IsZero() {
		return b.burst
	}
	if d := now.Sub(b.last); d > 0 {
		return min(b.burst, b.tokens+d.Seconds()*b.rate)
	}
	return b.tokens
}
