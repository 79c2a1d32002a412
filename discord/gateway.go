package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Responder sends an interaction's one answer. Callback is the gateway's.
type Responder interface {
	Respond(ctx context.Context, r *discordgo.InteractionResponse) error
}

// Handler answers one interaction through r.
type Handler func(i *discordgo.Interaction, r Responder)

// Ready is what the gateway's READY says about the bot.
type Ready struct {
	UserID   string
	Username string
	AppID    string
}

// Gateway is this process's gateway connections, one per shard it runs: it
// delivers their INTERACTION_CREATE events to the handler set with Handle.
// Create it with OpenWith; its methods are safe for concurrent
// use.
//
// Each shard is a discordgo session, which reconnects by itself: it
// resumes after a dropped connection, a Reconnect (op 7) or a zombie
// connection (heartbeats not acknowledged), and identifies again after an
// Invalid Session (op 9). The Gateway logs each of these in one line and
// counts them in Options.Counters.
type Gateway struct {
	shards   []*shard
	count    int // the shard count identified with; 0 when unsharded
	ready    Ready
	log      *slog.Logger
	counters *Counters
	closing  atomic.Bool // set by Close: disconnects are expected

	setHandler sync.Once
	handler    Handler       // set once, before handling is closed
	handling   chan struct{} // closed once a handler is set
}

// shard is one gateway connection.
type shard struct {
	id      int
	s       *discordgo.Session
	readies atomic.Uint64 // READY events seen; the first is the start

	latency atomic.Int64 // the last heartbeat latency measured, for when discordgo is busy
}

// ErrTokenRejected is the error of OpenWith and Login when Discord refuses the bot token.
var ErrTokenRejected = errors.New("Discord rejected the token")

// ErrShardingRequired is the error of OpenWith when Discord wants the bot
// sharded (close code 4011): see Options.ShardCount and AutoShards.
var ErrShardingRequired = errors.New("Discord says the bot is in too many servers for one gateway connection")

// ShardRefusedError is the error of OpenWith when Discord refuses a shard
// (close code 4010): Options.ShardID and ShardCount do not fit the bot.
type ShardRefusedError struct{ ID, Count int }

func (e *ShardRefusedError) Error() string {
	return fmt.Sprintf("Discord refused shard %d of %d", e.ID, e.Count)
}

// startingAnswer is the answer, on either transport, to an interaction of
// type typ that arrives before the bot is ready: better than "This
// interaction failed". An autocomplete, which takes no message, gets no
// choices.
func startingAnswer(typ discordgo.InteractionType) *discordgo.InteractionResponse {
	if typ == discordgo.InteractionApplicationCommandAutocomplete {
		return &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}}}
	}
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content: "I'm just starting up. Please try again in a moment.",
			Flags:   discordgo.MessageFlagsEphemeral,
		},
	}
}

// waitHandler bounds how long an interaction that arrives while the bot
// is still starting waits for the handler.
const waitHandler = 2 * time.Second

// DefaultStartInterval is how long Discord wants between two rounds of
// identifies (of session_start_limit.max_concurrency shards each).
const DefaultStartInterval = 5 * time.Second

// OpenWith connects the gateway shards o asks for (see Options) and waits
// for the READY of each. It gives up when ctx ends first (returning ctx's
// error), returns ErrTokenRejected when Discord refuses the token, and
// the error of Options.CheckShards when the shard options make no sense. Interactions that arrive before Handle is called wait for it
// briefly.
//
// With AutoShards, the shards identify in rounds: at most
// session_start_limit.max_concurrency per round (shards whose ids differ
// modulo max_concurrency identify together, as Discord allows), and a
// round starts StartInterval after the one before it is ready.
func OpenWith(ctx context.Context, o Options) (*Gateway, error) {
	if err := o.CheckShards(); err != nil {
		return nil, err
	}
	o.Log = orDiscard(o.Log)
	o.Counters = orNewCounters(o.Counters)
	routeLogs(o.Log)
	first, err := NewSession(o)
	if err != nil {
		return nil, err
	}
	ids, count, perRound := []int{o.ShardID}, o.ShardCount, 1
	if o.AutoShards {
		if ids, perRound, err = autoShards(ctx, first); err != nil {
			return nil, err
		}
		count = len(ids)
	}
	g := &Gateway{count: count, log: o.Log, counters: o.Counters, handling: make(chan struct{})}
	for i, id := range ids {
		s := first
		if i > 0 {
			if s, err = NewSession(o); err != nil {
				return nil, err
			}
		}
		s.ShardID, s.ShardCount = id, count
		sh := &shard{id: id, s: s}
		g.shards = append(g.shards, sh)
		g.addHandlers(sh)
	}

	interval := o.StartInterval
	if interval <= 0 {
		interval = DefaultStartInterval
	}
	var started []*opening
	for k, round := range startRounds(g.shards, perRound) {
		if k > 0 {
			t := time.NewTimer(interval)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				err = ctx.Err()
			}
		}
		if err == nil {
			var opened []*opening
			opened, err = openRound(ctx, round)
			started = append(started, opened...)
		}
		if err != nil {
			g.closing.Store(true)
			closeOpenings(started, openingGrace)
			return nil, err
		}
	}

	s := g.shards[0].s
	s.State.RLock()
	user, app := s.State.User, s.State.Application
	s.State.RUnlock()
	if user == nil {
		_ = g.Close()
		return nil, errors.New("the gateway's READY named no bot user")
	}
	g.ready = Ready{UserID: user.ID, Username: user.Username, AppID: user.ID} // a bot's user id is its application id
	if app != nil && app.ID != "" {
		g.ready.AppID = app.ID
	}
	return g, nil
}

// The errors of Options.CheckShards, which OpenWith returns wrapped with
// the values at fault.
var (
	// ErrAutoShards: AutoShards with a ShardID or a ShardCount.
	ErrAutoShards = errors.New("AutoShards runs every shard in this process: leave ShardID and ShardCount 0")
	// ErrShardCount: a negative ShardCount.
	ErrShardCount = errors.New("ShardCount must be 0 (one unsharded connection) or a positive number of shards")
	// ErrShardID: a ShardID outside 0 to ShardCount-1 (only 0 when
	// ShardCount is 0).
	ErrShardID = errors.New("ShardID must run from 0 to ShardCount-1, and be 0 when ShardCount is 0")
)

// CheckShards says what is wrong with o's shard options, if anything: an
// error wrapping ErrAutoShards, ErrShardCount or ErrShardID.
func (o Options) CheckShards() error {
	switch {
	case o.AutoShards && (o.ShardCount != 0 || o.ShardID != 0):
		return fmt.Errorf("ShardID %d and ShardCount %d with AutoShards: %w", o.ShardID, o.ShardCount, ErrAutoShards)
	case o.ShardCount < 0:
		return fmt.Errorf("ShardCount %d: %w", o.ShardCount, ErrShardCount)
	case o.ShardID < 0 || o.ShardCount == 0 && o.ShardID != 0 || o.ShardCount > 0 && o.ShardID >= o.ShardCount:
		return fmt.Errorf("ShardID %d with ShardCount %d: %w", o.ShardID, o.ShardCount, ErrShardID)
	}
	return nil
}

// autoShards asks Discord how many shards to run and how many may
// identify at once.
func autoShards(ctx context.Context, s *discordgo.Session) (ids []int, perRound int, err error) {
	gb, err := s.GatewayBot(discordgo.WithContext(ctx))
	if err != nil {
		if TokenRejected(err) {
			return nil, 0, ErrTokenRejected
		}
		return nil, 0, fmt.Errorf("ask Discord for the shard count (SHARD_COUNT=auto): %w", usedURL(s, err))
	}
	n := max(gb.Shards, 1)
	limit := gb.SessionStartLimit
	if limit.Total > 0 && limit.Remaining < n {
		// Discord resets the token of a bot that starts too many sessions.
		return nil, 0, fmt.Errorf("Discord allows %d more session starts for now and %d shards need one each; they reset in %v",
			limit.Remaining, n, time.Duration(limit.ResetAfter)*time.Millisecond)
	}
	ids = make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids, max(limit.MaxConcurrency, 1), nil
}

// startRounds splits shards into rounds of identifies: Discord lets one
// shard of each rate-limit key (shard id % maxConcurrency) identify per
// round.
func startRounds(shards []*shard, maxConcurrency int) [][]*shard {
	var rounds [][]*shard
	seen := map[int]int{} // key → shards of that key placed so far
	for _, sh := range shards {
		key := sh.id % maxConcurrency
		k := seen[key]
		seen[key]++
		if k == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[k] = append(rounds[k], sh)
	}
	return rounds
}

// opening is a shard's Open in progress; done receives its result.
type opening struct {
	sh   *shard
	done chan error
}

// openRound opens the shards together and waits for every READY.
func openRound(ctx context.Context, round []*shard) ([]*opening, error) {
	ops := make([]*opening, len(round))
	for i, sh := range round {
		op := &opening{sh: sh, done: make(chan error, 1)}
		ops[i] = op
		go func() {
			err := sh.s.Open()
			op.done <- err
			close(op.done)
		}()
	}
	var errs []error
	for _, op := range ops {
		select {
		case err, ok := <-op.done:
			if ok && err != nil {
				errs = append(errs, openError(op.sh, err))
			}
		case <-ctx.Done():
			return ops, ctx.Err()
		}
	}
	return ops, errors.Join(errs...)
}

// openingGrace is how long OpenWith, giving up, waits for a shard's Open
// in progress to end before it leaves the session to close on its own.
const openingGrace = 10 * time.Second

// closeOpenings closes the sessions of ops, each once its Open has given up
// or connected: discordgo's Open cannot be interrupted. It waits up to grace
// for them, so that no session is still connecting when OpenWith returns: one
// that connected afterwards would go on by itself, reconnecting when its
// server goes away, after its caller had shut down. An Open still running
// after grace (a server that never says Hello) is closed once it ends.
func closeOpenings(ops []*opening, grace time.Duration) {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	late := false
	for _, op := range ops {
		if !late {
			select {
			case <-op.done:
				_ = op.sh.s.Close()
				continue
			case <-deadline.C:
				late = true
			}
		}
		go func() {
			<-op.done
			_ = op.sh.s.Close()
		}()
	}
}

// openError explains why a shard could not connect.
func openError(sh *shard, err error) error {
	err = usedURL(sh.s, err)
	if TokenRejected(err) {
		return ErrTokenRejected
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		switch ce.Code {
		case 4004:
			return ErrTokenRejected
		case 4010:
			return &ShardRefusedError{ID: sh.s.ShardID, Count: sh.s.ShardCount}
		case 4011:
			return ErrShardingRequired
		}
	}
	if sh.s.ShardCount > 0 {
		return fmt.Errorf("connect shard %d to the discord gateway: %w", sh.id, err)
	}
	return fmt.Errorf("connect to the discord gateway: %w", err)
}

// addHandlers makes sh deliver interactions and report its reconnections.
func (g *Gateway) addHandlers(sh *shard) {
	s := sh.s
	deliver := func(s *discordgo.Session, i *discordgo.Interaction) {
		if g.count > 1 {
			if owner := ShardOf(i.GuildID, g.count); owner != sh.id {
				// Discord decides where an interaction goes; answer it
				// anyway, but a mismatch means SHARD_COUNT differs between
				// processes or from what Discord thinks.
				g.log.Debug("an interaction arrived on a shard that does not own its guild",
					"shard", sh.id, "owner", owner, "guild", i.GuildID, "channel", i.ChannelID)
			}
		}
		g.interaction(s, i)
	}
	// Every interaction is decoded from the event's bytes, once, as the
	// endpoint decodes it (DecodeInteraction), and not taken from
	// discordgo's InteractionCreate: when discordgo v0.29.0 cannot decode
	// part of one (a component type it does not know, as a Label in a
	// modal submit, or a newer one in a clicked message), it hands on a
	// struct filled only up to that part, and says so only in its log.
	s.AddHandler(func(s *discordgo.Session, e *discordgo.Event) {
		if e.Type != "INTERACTION_CREATE" {
			return
		}
		i, err := DecodeInteraction(e.RawData)
		if err != nil {
			g.log.Warn("an interaction that cannot be decoded was dropped", "shard", sh.id, "err", err)
			return
		}
		deliver(s, i)
	})
	// One line per fault: the loss (warn), then how it came back (info).
	// discordgo's own lines about the same things are demoted to debug by
	// routeLogs.
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Disconnect) {
		if g.closing.Load() {
			return
		}
		g.log.Warn("gateway connection lost; reconnecting", "shard", sh.id)
	})
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Resumed) {
		g.counters.Reconnects.Add(1)
		g.log.Info("gateway resumed", "shard", sh.id)
	})
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Ready) {
		if sh.readies.Add(1) == 1 {
			return // the start
		}
		g.counters.Reconnects.Add(1)
		g.log.Info("gateway re-identified: the session could not be resumed", "shard", sh.id)
	})
}

// interaction hands one interaction to the handler.
func (g *Gateway) interaction(s *discordgo.Session, i *discordgo.Interaction) {
	cb := Callback{REST: REST{s}, Interaction: i}
	h := g.waitForHandler()
	if h == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := cb.Respond(ctx, startingAnswer(i.Type))
		g.log.Warn("an interaction arrived before the bot was ready", "channel", i.ChannelID, "err", err)
		return
	}
	h(i, cb)
}

// ShardOf returns the shard that gets the events of guildID among count
// shards: (guild_id >> 22) % count, as Discord routes them. Direct
// messages (no guild) and IDs that are not snowflakes go to shard 0, as
// does everything when count < 2.
func ShardOf(guildID string, count int) int {
	if guildID == "" || count < 2 {
		return 0
	}
	id, err := strconv.ParseUint(guildID, 10, 64)
	if err != nil {
		return 0
	}
	return int((id >> 22) % uint64(count))
}

// Ready says who the bot is.
func (g *Gateway) Ready() Ready { return g.ready }

// REST is a REST client over the first shard's session, for answers and
// edits. REST calls do not depend on the gateway connection.
func (g *Gateway) REST() REST { return REST{g.shards[0].s} }

// Shards returns the ids of the shards this process runs, in order.
// An unsharded gateway runs shard 0.
func (g *Gateway) Shards() []int {
	ids := make([]int, len(g.shards))
	for i, sh := range g.shards {
		ids[i] = sh.id
	}
	return ids
}

// Handle sets the handler of interactions.
// Only the first call counts.
func (g *Gateway) Handle(h Handler) {
	g.setHandler.Do(func() {
		g.handler = h
		close(g.handling)
	})
}

// waitForHandler returns the handler, waiting up to waitHandler for it
// while the bot starts; nil if it is not set by then. Once it is set, no
// timer is made.
func (g *Gateway) waitForHandler() Handler {
	select {
	case <-g.handling:
		return g.handler
	default:
	}
	t := time.NewTimer(waitHandler)
	defer t.Stop()
	select {
	case <-g.handling:
		return g.handler
	case <-t.C:
		return nil
	}
}

// Close closes every shard's connection. discordgo takes a second for
// each; the shards close together.
func (g *Gateway) Close() error {
	g.closing.Store(true)
	errs := make([]error, len(g.shards))
	var wg sync.WaitGroup
	for i, sh := range g.shards {
		wg.Go(func() { errs[i] = sh.s.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TokenRejected reports whether err says Discord refused the bot token
// (a 401 from REST).
func TokenRejected(err error) bool {
	var rerr *discordgo.RESTError
	return errors.As(err, &rerr) && rerr.Response != nil && rerr.Response.StatusCode == 401
}
