package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/web"
)

// The live board: the channel's game as the page of package web shows it
// (an Activity), and the page's taps, on the same tables, locks,
// versioned saves, refusals and follow-ups as a click in chat.
//
// A tap is a request like an interaction's, whose user is the page's
// session's (never anything the page says), whose one answer (pageAnswer)
// goes nowhere, and which has no token: it goes through the handlers'
// cores (onMove, playOn, resignOn, offerDrawOn, answerDrawOn,
// startRematch), commit and boards.followUp, as a click does. What the
// page sees comes from the store: the change feed (FeedStore) tells the
// page's server that a channel's game was saved, and State reads it. The
// chat board follows each change the page makes where the bot can reach
// it, and otherwise says that the game goes on in the Activity
// (outside.go).

// Live is the bot as the live board sees it: it implements package web's
// Games (State, Act) and Feed (Watch). Get it with Bot.Live, once.
type Live struct {
	b     *Bot
	feed  FeedStore
	users *liveUsers
	reads liveReads
}

var (
	_ web.Games = (*Live)(nil)
	_ web.Feed  = (*Live)(nil)
)

// Live returns the live board's view of b. Each call makes a new one,
// with caches of its own (users' names, the games read): call it once.
func (b *Bot) Live() *Live {
	var users userReader
	if u, ok := b.dc.(userReader); ok {
		users = u
	}
	return &Live{b: b, feed: b.stores.Feed, users: &liveUsers{dc: users, now: b.cfg.Now, known: make(map[string]*liveUser)}}
}

// State returns the channel's game as v sees it: the game running, else
// the last one played there (Running false), else none; in v's language.
// Its slices may be shared with other pages' states: they are read only.
func (l *Live) State(ctx context.Context, v web.Viewer) (web.State, error) {
	m, c, err := l.reads.read(ctx, l.b.stores.Games, v.ChannelID)
	if err != nil {
		return web.State{}, err
	}
	if c == nil {
		return l.state(ctx, v, m), nil
	}
	// Many pages see one game: each state, by language and side, is made
	// once per version read.
	key := stateKey{tag: l.b.catalog.For(v.Locale).Tag()}
	if m != nil {
		key.you = m.Side(v.UserID)
	}
	if st, ok := l.reads.made(c, m, key); ok {
		st.Now = l.b.cfg.Now().UnixMilli()
		st.Labels = maps.Clone(st.Labels)
		return st, nil
	}
	st := l.state(ctx, v, m)
	l.reads.keep(c, m, key, st)
	st.Labels = maps.Clone(st.Labels)
	return st, nil
}

// Act does a for v, as a click in chat would, and returns the refusal in
// v's language when the game refuses it (nothing changed then); err is a
// failure of the bot (or a store whose outcome is unknown), whose text
// for v is Failure's.
func (l *Live) Act(ctx context.Context, v web.Viewer, a web.Action) (refusal string, err error) {
	b := l.b
	// A tap has the time a click has: a busy channel is answered in time.
	ctx, cancel := context.WithTimeout(ctx, answerWithin)
	defer cancel()
	req, ans := l.request(v, a.Type)
	if !b.run.admit() {
		return plainText(req.lang.T("error.restarting", nil), nil), nil
	}
	defer b.run.release()
	if v.UserID == "" || v.ChannelID == "" {
		return plainText(req.lang.T("error.no_user", nil), nil), nil
	}
	switch a.Type {
	case "move":
		err = b.moveLive(ctx, req, a)
	case "resign":
		err = b.resignLive(ctx, req)
	case "offer_draw":
		err = b.offerDrawLive(ctx, req)
	case "answer_draw":
		err = b.answerDrawLive(ctx, req, a.Accept)
	case "rematch":
		err = b.rematchLive(ctx, req)
	default:
		return "", fmt.Errorf("bot: live board: unknown action %q", a.Type)
	}
	l.reads.changed(v.ChannelID) // read again, whatever the feed says when
	var ue userError
	switch {
	case errors.As(err, &ue):
		b.meter.Interaction(req.kind, "refused", time.Since(req.arrived))
		if said := ans.said.Load(); said != nil {
			return l.plain(ctx, *said), nil // it was answered: what it said
		}
		return l.plain(ctx, ue.in(req.lang)), nil
	case err != nil:
		b.meter.Interaction(req.kind, "error", time.Since(req.arrived))
		b.log.Error("live board action failed", "channel", v.ChannelID, "user", v.UserID, "action", a.Type, "err", err)
		return "", err
	}
	if said := ans.said.Load(); said != nil {
		// Refused in words after a save lost the race (commit).
		b.meter.Interaction(req.kind, "refused", time.Since(req.arrived))
		return l.plain(ctx, *said), nil
	}
	b.meter.Interaction(req.kind, "ok", time.Since(req.arrived))
	return "", nil
}

// Failure is what v is told of err, a failure Act returned: whether
// anything changed, in v's language (as chat says it).
func (l *Live) Failure(err error, locale string) string {
	return l.b.catalog.For(locale).T(failureKey(err), nil)
}

// Watch tells of every saved change of channelID's game, by this process
// or another sharing the database, from now on: a Change of Version 0
// says that changes may have been missed (read everything again). The
// watch ends when stop is called or ctx ends; the channel is then
// closed. A reader that falls behind loses the older changes it has not
// read, never the newest.
func (l *Live) Watch(ctx context.Context, channelID string) (<-chan web.Change, func(), error) {
	if l.feed == nil {
		return nil, nil, errors.New("bot: live board: the store tells of no changes")
	}
	w := &liveWatch{c: make(chan web.Change, watchBuffer)}
	l.reads.watch(channelID, +1)
	stopFeed, err := l.feed.Watch(ctx, channelID, func(c store.Change) {
		l.reads.changed(c.ChannelID)
		w.send(web.Change{ChannelID: c.ChannelID, GameID: c.GameID, Version: c.Version})
	})
	if err != nil {
		l.reads.watch(channelID, -1)
		return nil, nil, err
	}
	// A read made while the watch was being set up (the channel counted
	// as watched, the feed not yet telling) may have missed a save that
	// the feed will never tell of: the next read reads the store.
	l.reads.changed(channelID)
	var once sync.Once
	end := func() {
		once.Do(func() {
			stopFeed()
			l.reads.watch(channelID, -1)
			w.close()
		})
	}
	unregister := context.AfterFunc(ctx, end)
	return w.c, func() { unregister(); end() }, nil
}

// watchBuffer is how many changes a watch holds for a reader that falls
// behind; each says only "read again", so the newest is what counts.
const watchBuffer = 16

// liveWatch is one Watch's channel.
type liveWatch struct {
	mu     sync.Mutex
	c      chan web.Change
	closed bool
}

// send queues c, dropping the oldest change queued if the reader is
// behind: it never blocks the feed.
func (w *liveWatch) send(c web.Change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	select {
	case w.c <- c:
		return
	default:
	}
	select {
	case <-w.c:
	default:
	}
	select {
	case w.c <- c:
	default:
	}
}

func (w *liveWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		close(w.c)
	}
}

// The taps of the page, each through the core of its chat handler.

// pageAnswer is the one answer of a tap: the page learns of the change
// from the feed, so an answer that shows a board goes nowhere; what a
// handler says to the user alone (ephemeral) is kept, its first line, for
// the page to show.
type pageAnswer struct{ said atomic.Pointer[string] }

// Respond keeps what is said to the user alone.
func (a *pageAnswer) Respond(_ context.Context, r *discordgo.InteractionResponse) error {
	if r.Data != nil && r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		first, _, _ := strings.Cut(r.Data.Content, "\n")
		a.said.Store(&first)
	}
	return nil
}

// request is a tap of v's as the handlers take it: an interaction of v's
// user in v's channel, in v's language, without a token, answered by a
// pageAnswer.
func (l *Live) request(v web.Viewer, action string) (*request, *pageAnswer) {
	user := &discordgo.User{ID: v.UserID, Username: v.Name}
	ans := &pageAnswer{}
	return &request{
		Interaction: &discordgo.Interaction{ChannelID: v.ChannelID, GuildID: v.GuildID, Locale: discordgo.Locale(v.Locale), User: user},
		user:        user, lang: l.b.catalog.For(v.Locale), responder: ans, answered: new(atomic.Bool),
		arrived: time.Now(), kind: "live_" + action,
	}, ans
}

// reaches marks req as showing the bot able to reach m's channel when m
// shows it did at its last change (reachesChannel): the guild's longest
// turns then apply to a tap too, as to a click.
func reaches(req *request, m *match) {
	if !reachesChannel(m) || req.GuildID == "" {
		return
	}
	req.AuthorizingIntegrationOwners = map[discordgo.ApplicationIntegrationType]string{discordgo.ApplicationIntegrationGuildInstall: req.GuildID}
	req.AppPermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionReadMessageHistory
}

// moveLive plays a tap on a cell: refused if the page showed another
// version of the game than the one stored (a stale page, or the replay of
// an old tap), else as a click on the cell.
func (b *Bot) moveLive(ctx context.Context, req *request, a web.Action) error {
	return b.onMove(ctx, req, func(ch *channel) (followUps, error) {
		m := ch.match
		switch {
		case m == nil:
			return followUps{}, noGame(ch)
		case m.Over():
			return followUps{}, refuse("move.game_over", nil)
		case m.Side(req.user.ID) != game.None && staleTap(m, a):
			return followUps{}, refuse("page.stale", nil)
		}
		reaches(req, m)
		tc, _, err := b.settings.rulesFor(ctx, req)
		if err != nil {
			return followUps{}, err
		}
		next, err := b.playOn(ctx, req, m, tc, a.Row, a.Col)
		if err != nil {
			return followUps{}, err
		}
		newPicker(m, next)
		return b.commitLive(ctx, req, ch, next, nil, true)
	})
}

// staleTap says whether a tap was made on another game or position than
// m's: by the game and move count the page showed where it sends them,
// else by the stored version (a save that touched only the board message
// then refuses it too).
func staleTap(m *match, a web.Action) bool {
	if a.GameID != "" {
		return a.GameID != m.ID || a.Ply != m.Judge.Len()
	}
	return a.Version != m.Version
}

// onLive runs decide on ch's game under the channel's lock (read from
// the store, not the cache, as chat's resign and draw handlers do) and
// sends what follows: the one frame of resignLive, offerDrawLive and
// answerDrawLive.
func (b *Bot) onLive(ctx context.Context, req *request, decide func(ch *channel) (followUps, error)) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	return b.boards.followUp(decide(ch))
}

// resignLive resigns the tapper from the channel's game.
func (b *Bot) resignLive(ctx context.Context, req *request) error {
	return b.onLive(ctx, req, func(ch *channel) (followUps, error) {
		next, err := b.resignOn(req, ch)
		if err != nil {
			return followUps{}, err
		}
		return b.commitLive(ctx, req, ch, next, nil, true)
	})
}

// offerDrawLive offers the opponent a draw, which the page shows them,
// and chat too where the bot can post there (boards.offerInChat).
func (b *Bot) offerDrawLive(ctx context.Context, req *request) error {
	return b.onLive(ctx, req, func(ch *channel) (followUps, error) {
		next, err := b.offerDrawOn(req, ch)
		if err != nil {
			return followUps{}, err
		}
		fu, err := b.commitLive(ctx, req, ch, next, nil, false)
		fu.offer = fu.shown != nil
		return fu, err
	})
}

// answerDrawLive accepts or declines the draw offered in the channel's
// game.
func (b *Bot) answerDrawLive(ctx context.Context, req *request, accept bool) error {
	return b.onLive(ctx, req, func(ch *channel) (followUps, error) {
		var id string
		if ch.match != nil {
			id = ch.match.ID
		}
		next, err := b.answerDrawOn(req, ch.match, id, accept)
		if err != nil {
			return followUps{}, err
		}
		return b.commitLive(ctx, req, ch, next, nil, accept)
	})
}

// rematchLive starts the rematch of the channel's finished game, shown on
// the page. A tap has no token to post a new board with: while the
// finished game's board's token is good, that message becomes the new
// game's board (as a challenge's message becomes its game's), so that
// players in chat play on; otherwise the finished board only loses its
// Rematch button, and the page shows the new game.
func (b *Bot) rematchLive(ctx context.Context, req *request) error {
	return b.startRematch(ctx, req, "", func(ch *channel, next *match, _ store.Settings) (followUps, error) {
		old := ch.match
		next.Serial = old.Serial + 1
		if old.Board.Token != "" && b.boards.tokenGood(old.Board) {
			next.Board = old.Board
			next.Board.Stale = false
			return b.commitLive(ctx, req, ch, next, nil, true)
		}
		return b.commitLive(ctx, req, ch, next, old, false)
	})
}

// commitLive makes next, decided on ch's game for a tap, the channel's
// game, as commit does for a click: saved, versioned, before anything
// follows. next is marked played on the live board; draws says it changes
// what the chat board shows, which follows where the bot can reach it,
// and is marked stale where it cannot; retire is the game whose board
// next's replaces, if any.
func (b *Bot) commitLive(ctx context.Context, req *request, ch *channel, next, retire *match, draws bool) (followUps, error) {
	next.Board.Outside = true
	reachable := reachesChannel(ch.match) || next.Board.Token != "" && b.boards.tokenGood(next.Board)
	if draws {
		next.Board.Stale = !reachable
	}
	kept, err := b.commit(ctx, req, ch, next, discordgo.InteractionResponseUpdateMessage, view{})
	if !kept {
		return followUps{}, err
	}
	return followUps{shown: next, retire: retire, pingFor: req.user.ID, redraw: draws && reachable}, err
}

// What the page draws.

// state is m, the channel's game (nil: none), as v sees it.
func (l *Live) state(ctx context.Context, v web.Viewer, m *match) web.State {
	lang := l.b.catalog.For(v.Locale)
	st := web.State{ChannelID: v.ChannelID, Now: l.b.cfg.Now().UnixMilli(), Cells: []string{}, Moves: []web.Move{}, Labels: liveLabels(lang)}
	if m == nil {
		st.Status = plainText(lang.T("board.no_game", nil), nil)
		return st
	}
	g := m.Judge
	n := g.Size()
	st.GameID, st.Version, st.Running, st.Size, st.Win = m.ID, m.Version, !m.Over(), n, g.WinLength()
	st.Cells = make([]string, 0, n*n)
	for r := range n {
		for c := range n {
			st.Cells = append(st.Cells, sideName(g.At(r, c)))
		}
	}
	ids := []string{m.Players[game.X], m.Players[game.O]}
	if m.StoppedBy != "" {
		ids = append(ids, m.StoppedBy) // named in the status line
	}
	names := l.users.names(ctx, ids)
	for i, side := range []game.Player{game.X, game.O} {
		id := m.Players[side]
		u := web.User{ID: id, Name: names[id], Mark: sideName(side), Avatar: l.users.avatar(id), Bot: side == m.Computer}
		if u.Bot && u.Name == id {
			u.Name = lang.T("page.computer", nil)
		}
		names[id] = u.Name
		st.Players[i] = u
	}
	for _, mv := range g.History() {
		st.Moves = append(st.Moves, web.Move{Row: mv.Row + 1, Col: mv.Col + 1, Mark: sideName(mv.Player)})
	}
	if m.End == game.EndWon {
		w := sideName(g.Winner())
		for _, c := range g.WinLine() {
			st.WinLine = append(st.WinLine, web.Move{Row: c.Row + 1, Col: c.Col + 1, Mark: w})
		}
	}
	st.You = sideName(m.Side(v.UserID))
	if st.Running {
		st.Turn = sideName(g.Turn())
		if !m.Deadline.IsZero() {
			st.Deadline = m.Deadline.UnixMilli()
		}
		st.DrawOffer = sideName(m.DrawOffer)
	}
	switch {
	case st.Running && st.You != "" && st.You == st.Turn:
		st.Status = lang.T("page.status.your_move", nil)
	case st.Running:
		p := g.Turn()
		st.Status = plainText(lang.T("status.turn_computer", map[string]any{"Mark": mark(p), "Player": mention(m.Players[p])}), names)
	default:
		st.Status = plainText(statusLine(lang, m.Match, true), names)
	}
	if st.DrawOffer != "" {
		by := m.Players[m.DrawOffer]
		st.Labels["draw_offered"] = lang.T("page.draw_offered", map[string]any{"Player": names[by]})
	}
	return st
}

// sideName is p as the page names it: "X", "O" or "".
func sideName(p game.Player) string {
	switch p {
	case game.X:
		return "X"
	case game.O:
		return "O"
	}
	return ""
}

// liveLabels are the captions the page shows, in lang, by key.
func liveLabels(lang *i18n.Language) map[string]string {
	return map[string]string{
		"resign":       lang.T("page.resign", nil),
		"offer_draw":   lang.T("page.offer_draw", nil),
		"accept_draw":  lang.T("button.accept_draw", nil),
		"decline_draw": lang.T("button.decline", nil),
		"rematch":      lang.T("button.rematch", nil),
		"watching":     lang.T("page.watching", nil),
		"moves":        lang.T("page.moves", nil),
		"start":        plainText(lang.T("page.start", nil), nil),
	}
}

// mentionPattern finds Discord's mentions and timestamps in a catalog
// text; backticks mark commands.
var mentionPattern = regexp.MustCompile("<@!?([0-9]+)>|<t:(-?[0-9]+)(?::[a-zA-Z])?>|`")

// plainText is a text written for Discord as the page shows it: mentions
// as the names in names (by user id; the id when unknown), timestamps as
// a time in UTC, commands without their backticks.
func plainText(s string, names map[string]string) string {
	return mentionPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := mentionPattern.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			return cmp.Or(names[sub[1]], sub[1])
		case sub[2] != "":
			sec, err := strconv.ParseInt(sub[2], 10, 64)
			if err != nil {
				return m
			}
			return time.Unix(sec, 0).UTC().Format("2006-01-02 15:04 UTC")
		}
		return ""
	})
}

// plain is plainText of s with the names of the users it mentions, read
// from Discord if not known.
func (l *Live) plain(ctx context.Context, s string) string {
	var ids []string
	for _, m := range mentionPattern.FindAllStringSubmatch(s, -1) {
		if m[1] != "" {
			ids = append(ids, m[1])
		}
	}
	return plainText(s, l.users.names(ctx, ids))
}

// liveReads keeps the last game read of each channel that a page
// watches through this Live, until the feed tells of a change: a change
// seen by many pages is read once, not once per page. Channels nobody
// watches here are read each time. The zero value is ready; it is safe
// for concurrent use.
type liveReads struct {
	mu       sync.Mutex
	channels map[string]*liveRead
}

// liveRead is one channel's.
type liveRead struct {
	watchers int
	gen      uint64 // changes heard
	reading  sync.Mutex
	m        *match // as read at readGen
	readGen  uint64
	read     bool
	// states made of m, by language and side; guarded by liveReads.mu.
	states map[stateKey]web.State
	of     *match // the m they are of
}

// stateKey names one way a game is shown: in a language, to a side
// (game.None: a spectator).
type stateKey struct {
	tag string
	you game.Player
}

// made returns the state made of m for key, if any.
func (r *liveReads) made(c *liveRead, m *match, key stateKey) (web.State, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.of != m || c.states == nil {
		return web.State{}, false
	}
	st, ok := c.states[key]
	return st, ok
}

// keep keeps st, made of m for key.
func (r *liveReads) keep(c *liveRead, m *match, key stateKey, st web.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.of != m || c.states == nil {
		c.of, c.states = m, make(map[stateKey]web.State)
	}
	if len(c.states) < maxStates {
		c.states[key] = st
	}
}

// maxStates bounds the states kept of one version of a game.
const maxStates = 64

// watch counts a watcher of channelID more (+1) or less (-1).
func (r *liveReads) watch(channelID string, d int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.channels == nil {
		r.channels = make(map[string]*liveRead)
	}
	c := r.channels[channelID]
	if c == nil {
		c = new(liveRead)
		r.channels[channelID] = c
	}
	c.watchers += d
	if c.watchers <= 0 {
		delete(r.channels, channelID)
	}
}

// changed says channelID's game may have changed: the next read reads it.
func (r *liveReads) changed(channelID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.channels[channelID]; c != nil {
		c.gen++
	}
}

// read returns channelID's game: as read before if no change was heard
// since, else from games; and the channel's liveRead if it is watched.
func (r *liveReads) read(ctx context.Context, games GameStore, channelID string) (*match, *liveRead, error) {
	r.mu.Lock()
	c := r.channels[channelID]
	r.mu.Unlock()
	if c == nil {
		m, err := readMatch(ctx, games, channelID)
		return m, nil, err
	}
	c.reading.Lock()
	defer c.reading.Unlock()
	r.mu.Lock()
	gen := c.gen
	r.mu.Unlock()
	if c.read && c.readGen == gen {
		return c.m, c, nil
	}
	m, err := readMatch(ctx, games, channelID)
	if err != nil {
		return nil, nil, err
	}
	c.m, c.readGen, c.read = m, gen, true
	return m, c, nil
}

// readMatch reads channelID's game from games: nil if it has none, or
// one the bot cannot play (tables stops it).
func readMatch(ctx context.Context, games GameStore, channelID string) (*match, error) {
	g, err := games.Current(ctx, channelID)
	if err != nil || g == nil {
		return nil, err
	}
	m, err := fromStored(g)
	if err != nil {
		return nil, nil
	}
	return m, nil
}

// userReader reads a user from Discord with the bot's token
// (discordgo.Session's User).
type userReader interface {
	User(userID string, options ...discordgo.RequestOption) (*discordgo.User, error)
}

// liveUsers are the names and avatars of the players the page shows, read
// from Discord once per userFor (a failed read is tried again after
// userRetry; meanwhile the user id stands for the name). At most maxUsers
// are kept. It is safe for concurrent use.
type liveUsers struct {
	dc    userReader // nil: names are ids
	now   func() time.Time
	mu    sync.Mutex
	known map[string]*liveUser
}

type liveUser struct {
	name, avatar string
	until        time.Time
	ready        chan struct{} // closed once read (or failed)
}

const (
	userFor    = time.Hour
	userRetry  = time.Minute
	userWithin = 2 * time.Second // a read longer than this gives the id
	maxUsers   = 10_000
)

// names returns the names of ids, reading those not known from Discord;
// a user who cannot be read is named by their id.
func (u *liveUsers) names(ctx context.Context, ids []string) map[string]string {
	for _, id := range ids {
		u.get(ctx, id)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id] = id
		if k := u.known[id]; k != nil {
			select {
			case <-k.ready:
				out[id] = cmp.Or(k.name, id)
			default:
			}
		}
	}
	return out
}

// avatar returns the avatar URL of id, if known.
func (u *liveUsers) avatar(id string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if k := u.known[id]; k != nil {
		select {
		case <-k.ready:
			return k.avatar
		default:
		}
	}
	return ""
}

// get makes id known, reading it from Discord if it is not (one read at a
// time per user, however many pages ask).
func (u *liveUsers) get(ctx context.Context, id string) {
	if u.dc == nil || id == "" {
		return
	}
	now := u.now()
	u.mu.Lock()
	k := u.known[id]
	if k != nil {
		select {
		case <-k.ready:
			if now.After(k.until) {
				k = nil // read again
			}
		default:
		}
	}
	if k != nil {
		u.mu.Unlock()
		select {
		case <-k.ready:
		case <-ctx.Done():
		}
		return
	}
	if len(u.known) >= maxUsers {
		clear(u.known)
	}
	k = &liveUser{ready: make(chan struct{})}
	u.known[id] = k
	u.mu.Unlock()

	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), userWithin)
	defer cancel()
	du, err := u.dc.User(id, discordgo.WithContext(rctx), discordgo.WithRestRetries(0))
	if err != nil || du == nil {
		k.until = now.Add(userRetry)
	} else {
		k.name, k.until = cmp.Or(du.GlobalName, du.Username), now.Add(userFor)
		// Through the activity's mapping of Discord's CDN: the page
		// loads nothing from anywhere but its own origin.
		k.avatar = web.AvatarPath(du.ID, du.Avatar, 64)
	}
	close(k.ready)
}
