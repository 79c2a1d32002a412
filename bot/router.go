package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
)

// Bot answers /ttt interactions. Create it with New; it is safe for
// concurrent use, which transports require: they answer each interaction in
// its own goroutine.
//
// Bot is the router and the handlers; the games through time are tables',
// the messages on Discord after an answer are boards', the background
// work is the runner's, and the commands that only read (stats,
// leaderboard, history, about) are records'.
type Bot struct {
	dc       Discord
	cfg      Config
	log      *slog.Logger
	stores   Stores
	meter    Meter
	routes   routes
	recent   recent // ids of the latest interactions, to act on each once
	seen     *seen  // the ids acted on, by every process, in the store
	starts   *startLimits
	think    *thinking
	self     *self
	settings *settings
	tables   *tables
	boards   *boards
	run      *runner
	records  *records

	catalog    *i18n.Catalog // every text players see (nil if catalogErr)
	catalogErr error         // why the catalog could not be parsed
}

// answerWithin is how long a handler has for its answer. Discord allows 3 s
// from the moment it sent the interaction; the event was already on its way
// for part of that.
const answerWithin = 2500 * time.Millisecond

// Handle answers one interaction through r. Every interaction gets exactly
// one answer within Discord's 3 seconds, whatever the handler does, so no
// user ever sees "This interaction failed". Transports call it in a
// goroutine of its own per interaction.
func (b *Bot) Handle(i *discordgo.Interaction, r Responder) {
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	b.handle(ctx, i, r)
}

func (b *Bot) handle(ctx context.Context, i *discordgo.Interaction, r Responder) {
	if i == nil || r == nil {
		return
	}
	req := &request{Interaction: i, user: invoker(i), responder: r, answered: new(atomic.Bool), arrived: time.Now(), kind: "unknown",
		lang: b.catalog.For(string(i.Locale), guildLocale(i)), activity: b.cfg.Activity}
	if !b.run.admit() {
		if err := req.say(ctx, req.lang.T("error.restarting", nil)); err != nil {
			b.log.Warn("could not answer during shutdown", "err", err)
		}
		return
	}
	// Close waits for this answer; and the answer, once out, for the
	// background work to keep up (releaseAnswered).
	defer b.run.releaseAnswered()
	if isReplayable(r) && i.Type != discordgo.InteractionApplicationCommandAutocomplete && b.seen.store != nil { // suggestions change nothing
		b.serveOnce(ctx, req)
		return
	}
	if !b.recent.add(i.ID) {
		// Acting on it again could, for instance, play a move twice.
		b.log.Warn("an interaction arrived twice; answering the second without acting on it", "channel", i.ChannelID, "interaction", i.ID)
		if err := req.say(ctx, req.lang.T("error.duplicate", nil)); err != nil {
			b.log.Warn("could not answer a duplicate", "err", err)
		}
		b.meter.Interaction(req.kind, "duplicate", req.answerTook)
		return
	}
	b.serve(ctx, req)
}

// serveOnce acts on req, which could be replayed, only if it is the
// first delivery of its id that the store records, and records what
// became of the action. A delivery that finds the id recorded waits for
// the first's action to end (within ctx): one known not done leaves the
// id to this delivery; one done is answered by seen.answer (answerSeen); one whose
// outcome is unknown, or still under way at the deadline, is answered
// so.
func (b *Bot) serveOnce(ctx context.Context, req *request) {
	for {
		first, err := b.seen.see(ctx, req.ID)
		if err != nil {
			b.log.Error("could not record the interaction; answering without acting on it", "channel", req.ChannelID, "interaction", req.ID, "err", err)
			b.answerFailure(ctx, req, err)
			return
		}
		if first {
			b.seen.settle(ctx, req.ID, b.serve(ctx, req))
			return
		}
		state, err := b.seen.settled(ctx, req.ID)
		switch {
		case err != nil:
			b.log.Error("could not read what became of an interaction delivered before", "channel", req.ChannelID, "interaction", req.ID, "err", err)
			b.answerFailure(ctx, req, err)
			return
		case state == store.InteractionNew:
			continue // the first's action was not done: act on this one
		case state == store.InteractionDone:
			b.seen.answer(ctx, req)
			return
		}
		b.log.Warn("an interaction delivered before has an outcome not known", "channel", req.ChannelID, "interaction", req.ID, "state", int(state))
		b.answerFailure(ctx, req, store.ErrOutcomeUnknown)
		return
	}
}

// answerReserve is the time kept for answering a handler that ran out of
// its own: answerWithin plus this stays within Discord's 3 s.
const answerReserve = 300 * time.Millisecond

// serve runs req's handler and answers its error, if any. It returns the
// error the interaction ended with: nil if its handler answered it.
func (b *Bot) serve(ctx context.Context, req *request) (err error) {
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		if req.user.ID == "" {
			// Discord names who sent every interaction; one that does
			// not would play for nobody.
			err = refuse("error.no_user", nil)
			return
		}
		err = b.routes.serve(ctx, req)
	}()

	var ue userError
	switch {
	case err == nil && req.answered.Load():
		b.meter.Interaction(req.kind, "ok", req.answerTook)
		return nil
	case err == nil:
		err = errors.New("handler returned without answering")
	case errors.As(err, &ue):
		ctx, cancel := reserve(ctx)
		defer cancel()
		if !req.answered.Load() {
			if rerr := req.say(ctx, ue.in(req.lang)); rerr != nil {
				b.reqLog(req).Error("could not answer", "err", rerr)
			}
		}
		b.meter.Interaction(req.kind, "refused", req.answerTook)
		return err
	}
	b.reqLog(req).Error("interaction failed", "type", req.Type.String(), "err", err)
	b.answerFailure(ctx, req, err)
	return err
}

// reqLog is the bot's logger with req's guild, channel and user: made
// only when there is something to log, as it costs a dozen allocations.
func (b *Bot) reqLog(req *request) *slog.Logger {
	return b.log.With("guild", req.GuildID, "channel", req.ChannelID, "user", req.user.ID)
}

// reserve returns ctx, or, if ctx has ended, a context of answerReserve
// for the answer: the handler may have used all of its own time (a save
// stuck behind other writers).
func reserve(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), answerReserve)
}

// answerFailure answers req, unanswered yet, with what became of it
// after err (failureKey), within the reserve if ctx has ended.
func (b *Bot) answerFailure(ctx context.Context, req *request, err error) {
	ctx, cancel := reserve(ctx)
	defer cancel()
	defer func() { b.meter.Interaction(req.kind, "error", req.answerTook) }()
	if !req.answered.Load() {
		if rerr := req.say(ctx, req.lang.T(failureKey(err), nil)); rerr != nil {
			b.log.Error("could not answer", "channel", req.ChannelID, "interaction", req.ID, "err", rerr)
		}
	}
}

// failureKey is the text that tells a user what became of their
// interaction when it failed on our side: the store's own errors say
// whether anything changed; any other error changed nothing.
func failureKey(err error) string {
	switch {
	case errors.Is(err, store.ErrOutcomeUnknown):
		return "error.outcome_unknown"
	case errors.Is(err, store.ErrUnavailable):
		return "error.store_unavailable"
	}
	return "error.internal"
}

// routes is the one registration table (commands.go): a handler per /ttt
// subcommand, one per button action, which gets the button's route (a
// select menu is a button here), one per modal, which gets the route of
// its custom_id, and one per subcommand whose options autocomplete.
type routes struct {
	commands map[string]handler
	buttons  map[string]clickHandler
	modals   map[string]clickHandler
	suggest  map[string]handler
	// entryPoint answers the app's entry point command, whatever its
	// name (Discord names it Launch; the app's owner may rename it).
	entryPoint handler
}

// A clickHandler answers a click on a button whose custom_id says r.
type clickHandler func(ctx context.Context, req *request, r route) error

// serve finds the handler, by subcommand for /ttt and its autocomplete,
// by command type for the entry point command, or by custom_id action
// for buttons and modals (the custom_id parsed here, once), and runs it.
func (rs routes) serve(ctx context.Context, req *request) error {
	switch req.Type {
	case discordgo.InteractionApplicationCommand:
		data, ok := req.Data.(discordgo.ApplicationCommandInteractionData)
		if !ok {
			return refuse("route.unreadable_command", nil)
		}
		if data.CommandType == PrimaryEntryPointCommand && rs.entryPoint != nil {
			req.kind = actLaunch
			return rs.entryPoint(ctx, req)
		}
		if data.Name != "ttt" {
			return refuse("route.unknown_command", map[string]any{"Command": data.Name})
		}
		sub, err := subcommand(data)
		if err != nil {
			return err
		}
		h, ok := rs.commands[sub.Name]
		if !ok {
			return refuse("route.unknown_subcommand", map[string]any{"Subcommand": sub.Name})
		}
		req.kind = sub.Name
		return h(ctx, req)
	case discordgo.InteractionMessageComponent:
		data, ok := req.Data.(discordgo.MessageComponentInteractionData)
		if !ok {
			return refuse("route.unreadable_click", nil)
		}
		r, err := parseRoute(data.CustomID)
		if err != nil {
			return refuse("route.unknown_button", nil)
		}
		h, ok := rs.buttons[r.action]
		if !ok || r.action == actTyped {
			return refuse("route.unknown_button", nil)
		}
		req.kind = r.action
		return h(ctx, req, r)
	case discordgo.InteractionModalSubmit:
		data, ok := req.Data.(discordgo.ModalSubmitInteractionData)
		if !ok {
			return refuse("route.unreadable_click", nil)
		}
		r, err := parseRoute(data.CustomID)
		h, known := rs.modals[r.action]
		if err != nil || !known {
			return refuse("route.unknown_button", nil)
		}
		req.kind = r.action
		return h(ctx, req, r)
	case discordgo.InteractionApplicationCommandAutocomplete:
		data, ok := req.Data.(discordgo.ApplicationCommandInteractionData)
		if !ok || data.Name != "ttt" {
			return req.suggest(ctx, nil)
		}
		sub, err := subcommand(data)
		if err != nil {
			return req.suggest(ctx, nil)
		}
		h, ok := rs.suggest[sub.Name]
		if !ok {
			return req.suggest(ctx, nil)
		}
		req.kind = "suggest_" + sub.Name
		return h(ctx, req)
	}
	return refuse("route.unknown_interaction", nil)
}

// recent remembers the ids of the latest interactions, so that one
// delivered twice (a retry by a proxy, a replayed event) to this process
// is told at once. It holds at most recentSize ids, the newest; memory
// stays bounded however long the bot runs. Interactions that could be
// replayed (signed, over HTTP) are not kept here when the bot has a
// store: the store's record (serveOnce) says what became of them. The
// zero value is ready to use.
type recent struct {
	mu   sync.Mutex
	ids  map[uint64]struct{}
	ring []uint64
	next int
	size int // recentSize, or a test's smaller one; 0: recentSize
}

// recentSize is how many ids recent keeps: a duplicate comes within
// seconds, and this covers more than ten seconds at 5,000 interactions a
// second, in about 2 MB once full. recent grows to it as ids come, so a
// quiet bot does not hold it all from its first interaction.
const recentSize = 1 << 16

// add remembers id and reports whether it is seen for the first time.
// An id that is not a snowflake is always new.
func (r *recent) add(id string) bool {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.ids[n]; ok {
		return false
	}
	if r.ids == nil {
		r.ids = make(map[uint64]struct{})
	}
	size := r.size
	if size == 0 {
		size = recentSize
	}
	if len(r.ring) < size {
		r.ring = append(r.ring, n)
	} else {
		delete(r.ids, r.ring[r.next])
		r.ring[r.next] = n
		r.next = (r.next + 1) % size
	}
	r.ids[n] = struct{}{}
	return true
}
