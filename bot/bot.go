// Package bot is tttbot's face on Discord: the /ttt command schema, the
// router that answers every interaction, the handlers, and the renderer of
// boards, challenges and stats. The rules of a channel's game live in
// package table, the judge in package game, and games are kept by a Store.
// Every text comes from package i18n's catalog, in the language of whoever
// sees it (locale.go).
//
// One move, end to end: a transport (the gateway, or later the HTTP
// endpoint) hands the interaction and a Responder to Bot.Handle → the
// router picks the handler by subcommand or custom_id route (router.go) →
// the handler (handlers.go) locks the channel (registry.go) with its game,
// from the store or, for a move, from memory (store.go) → table.Match.Play checks the move and the
// judge plays it → Bot.commit (commit.go) saves it (a versioned save,
// durable before anyone is answered) and answers with the board drawn by
// render.go, all under the channel's lock, so two clicks on one board
// apply exactly one move, in order. In a server that wants pictures, a
// board bigger than 8×8 then becomes a picture by an edit in the
// background (picture.go).
package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/table"
)

// A Responder sends an interaction's one answer: the gateway transport posts
// it to Discord's callback endpoint; an HTTP endpoint writes it as the
// response body. Handlers never know which.
type Responder interface {
	Respond(ctx context.Context, r *discordgo.InteractionResponse) error
}

// Discord is what the bot does through Discord's REST API besides
// answering: reading, editing and deleting messages it drew through an
// interaction token, registering its commands, and, in correspondence
// games only (correspondence.go), editing and deleting its boards and
// pinging players with its own bot token through the channel's message
// endpoints.
type Discord interface {
	InteractionResponse(i *discordgo.Interaction, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	InteractionResponseEdit(i *discordgo.Interaction, e *discordgo.WebhookEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	InteractionResponseDelete(i *discordgo.Interaction, opts ...discordgo.RequestOption) error
	ApplicationCommandBulkOverwrite(appID, guildID string, cmds []*discordgo.ApplicationCommand, opts ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error)
	ChannelMessageSendComplex(channelID string, m *discordgo.MessageSend, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	ChannelMessageEditComplex(m *discordgo.MessageEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	ChannelMessageDelete(channelID, messageID string, opts ...discordgo.RequestOption) error
}

// Config holds the bot's settings. The zero value is not useful: use
// DefaultConfig and change what you need.
type Config struct {
	// GuildID, when set, registers the commands in that guild only (they
	// appear at once) instead of globally.
	GuildID string
	// Table holds the game rules that are not the judge's: timeouts and
	// the computer's seed.
	Table table.Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Meter counts interactions, moves, games and store calls; nil counts
	// nothing.
	Meter Meter
	// About is what /ttt about tells beyond the store's counts.
	About About
}

// About is what /ttt about says of the running program; a nil func means
// unknown.
type About struct {
	Version string
	// Latency is the gateway's heartbeat latency; nil or zero: no gateway.
	Latency func() time.Duration
	// Servers is how many servers have the app, as Discord estimates it.
	Servers func(ctx context.Context) (int, error)
}

// Limits on the timeouts. A timer edits a message through the token of
// the interaction that drew it while Discord accepts that token, for 15
// minutes (tokenLife). MaxTimeout keeps within it whatever is timed on a
// message that only a token can reach: challenges, the bot's own defaults
// (which apply in DMs too), and turns in a channel the bot cannot reach
// with its own token (an app installed by a user, not by the server).
// MaxTurnTimeout is the longest turn a server may set with /ttt config:
// correspondence games, whose boards the bot reaches through the channel
// once their token has expired (correspondence.go).
const (
	MinTimeout     = time.Second
	MaxTimeout     = 14 * time.Minute
	MaxTurnTimeout = 24 * time.Hour
)

// MinRated is how many rated games a player needs to be on the leaderboard.
const MinRated = 5

// DefaultConfig returns the defaults: challenges wait 60 s, turns 5 min.
func DefaultConfig() Config {
	return Config{Table: table.DefaultConfig()}
}

// answerWithin is how long a handler has for its answer. Discord allows 3 s
// from the moment it sent the interaction; the event was already on its way
// for part of that.
const answerWithin = 2500 * time.Millisecond

// editWithin bounds background edits (timers, stale boards).
const editWithin = 10 * time.Second

// Bot answers /ttt interactions. Create it with New; it is safe for
// concurrent use, which transports require: they answer each interaction in
// its own goroutine.
type Bot struct {
	dc       Discord
	cfg      Config
	log      *slog.Logger
	store    Store
	meter    Meter
	channels registry
	recent   recent // ids of the latest interactions, to act on each once
	starts   startLimits

	settingsCache settingsCache // guilds' /ttt config, read on every move
	boardEdits    boardEdits    // the order of background edits of big boards (picture.go)

	texts    *i18n.Catalog // every text players see (nil if textsErr)
	textsErr error         // why the catalog could not be parsed

	self    atomic.Pointer[string] // the bot's user id, known once READY arrived
	started time.Time              // for /ttt about

	bgMu     sync.Mutex
	closed   bool           // set by Close: no new interactions or timer callbacks
	finished bool           // set when Close is done: nothing runs any more
	handlers sync.WaitGroup // interactions being answered
	bg       sync.WaitGroup // background edits and timer callbacks queued or running
	edits    runner         // runs background edits (editWorkers at once)
	timers   runner         // runs timer callbacks (timerWorkers at once)

	commands map[string]handler // by subcommand name
	buttons  map[string]handler // by route action
}

// New returns a bot that edits and registers through dc and keeps its games
// in st.
func New(dc Discord, st Store, cfg Config, log *slog.Logger) *Bot {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bot{dc: dc, cfg: cfg, log: log, store: st, meter: noMeter{}, started: cfg.Now(),
		edits: runner{max: editWorkers}, timers: runner{max: timerWorkers}}
	b.texts, b.textsErr = catalog()
	if cfg.Meter != nil {
		b.meter = cfg.Meter
		b.store = meteredStore{st: st, meter: cfg.Meter}
	}
	b.commands = map[string]handler{
		"start":       b.start,
		"move":        b.moveCommand,
		"board":       b.boardCommand,
		"resign":      b.resign,
		"stop":        b.stop,
		"help":        b.help,
		"draw":        b.offerDraw,
		"about":       b.about,
		"stats":       b.stats,
		"leaderboard": b.leaderboard,
		"history":     b.history,
		"config":      b.config,
	}
	b.buttons = map[string]handler{
		actMove:    b.moveButton,
		actAccept:  b.accept,
		actDecline: b.decline,
		actRematch: b.rematch,
		actDrawYes: func(ctx context.Context, req *request) error { return b.answerDraw(ctx, req, true) },
		actDrawNo:  func(ctx context.Context, req *request) error { return b.answerDraw(ctx, req, false) },
	}
	return b
}

func (b *Bot) now() time.Time { return b.cfg.Now() }

// SetSelf records the bot's own user id, from READY. Until it is known the
// bot cannot tell "play against me" from a challenge.
func (b *Bot) SetSelf(userID string) { b.self.Store(&userID) }

func (b *Bot) selfID() string {
	if p := b.self.Load(); p != nil {
		return *p
	}
	return ""
}

// Register overwrites the application's commands with Commands(), in
// cfg.GuildID when set, else globally. Registering globally also empties
// the guilds that got a copy of their own from an earlier run with a guild
// set (the store remembers them), so that nobody sees every command twice.
// It fails, registering nothing, if the message catalog could not be
// parsed: the bot must not start then.
func (b *Bot) Register(ctx context.Context, appID string) error {
	if b.textsErr != nil {
		return fmt.Errorf("register commands: %w", b.textsErr)
	}
	guild := b.cfg.GuildID
	if _, err := b.dc.ApplicationCommandBulkOverwrite(appID, guild, Commands(), discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("register commands: %w", err)
	}
	if guild != "" {
		if err := b.store.SetCommandGuild(ctx, guild, true); err != nil {
			return fmt.Errorf("register commands: %w", err)
		}
		return nil
	}
	old, err := b.store.CommandGuilds(ctx)
	if err != nil {
		return fmt.Errorf("register commands: %w", err)
	}
	for _, g := range old {
		if _, err := b.dc.ApplicationCommandBulkOverwrite(appID, g, []*discordgo.ApplicationCommand{}, discordgo.WithContext(ctx)); err != nil {
			return fmt.Errorf("remove the commands of guild %s, registered there before: %w", g, err)
		}
		if err := b.store.SetCommandGuild(ctx, g, false); err != nil {
			return fmt.Errorf("register commands: %w", err)
		}
		b.log.Info("removed the guild's own copy of the commands, now registered globally", "guild", g)
	}
	return nil
}

// Close stops every timer and waits for interactions and background edits
// in flight. Games and open challenges stay in the store, deadlines with
// them. Interactions that arrive during Close are told the bot is
// restarting.
func (b *Bot) Close() {
	b.bgMu.Lock()
	b.closed = true
	b.bgMu.Unlock()
	// Answers in flight finish first (their edits may still start), so
	// that no challenge is opened after the sweep below.
	b.handlers.Wait()
	// Challenges and games stay in the store, with their deadlines: only
	// this process's timers stop.
	b.channels.each(func(ch *channel) {
		if ch.challenge != nil {
			ch.clearChallenge()
		}
		ch.stopTurnTimer()
	})
	b.bg.Wait()
	b.bgMu.Lock()
	b.finished = true
	b.bgMu.Unlock()
}

// newID returns a fresh random id for a match or a challenge, short enough
// for custom_ids.
func newID() string {
	var buf [6]byte
	_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(buf[:])
}

// respond answers req. It is the only way handlers answer, so the router can
// tell whether a handler answered.
func (b *Bot) respond(ctx context.Context, req *request, typ discordgo.InteractionResponseType, v view, ephemeral bool) error {
	data := &discordgo.InteractionResponseData{
		Content:         v.content,
		Components:      v.buttons(),
		Embeds:          v.embeds,
		AllowedMentions: allowed(v.ping),
	}
	if ephemeral {
		data.Flags = discordgo.MessageFlagsEphemeral
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("respond to interaction: %w: %w", errNotSent, err)
	}
	err := req.responder.Respond(ctx, &discordgo.InteractionResponse{Type: typ, Data: data})
	if !rejected(err) || acknowledged(err) {
		// Delivered, perhaps delivered (a timeout, a lost reply), or
		// answered before: another answer would be refused or would
		// double what the user sees.
		req.answered.Store(true)
		req.answerTook = time.Since(req.arrived)
	}
	if err != nil {
		return fmt.Errorf("respond to interaction: %w", err)
	}
	return nil
}

// errNotSent marks a request that certainly never reached Discord.
var errNotSent = errors.New("bot: request not sent")

// rejected says whether err means the request certainly did not take
// effect: Discord refused it (a 4xx), or it was never sent. Then any change
// made for it can be undone. Timeouts and lost replies are not definite:
// the request may have been carried out.
func rejected(err error) bool {
	var ns interface{ NotSent() bool }
	if errors.Is(err, errNotSent) || errors.As(err, &ns) && ns.NotSent() {
		return true
	}
	var rerr *discordgo.RESTError
	if !errors.As(err, &rerr) || rerr.Response == nil {
		return false
	}
	return rerr.Response.StatusCode >= 400 && rerr.Response.StatusCode < 500
}

// acknowledged says whether Discord refused an answer because the
// interaction already has one (a duplicate delivery): nothing this answer
// would have changed may be kept, and no other answer may be sent.
func acknowledged(err error) bool {
	var rerr *discordgo.RESTError
	return errors.As(err, &rerr) && rerr.Message != nil &&
		rerr.Message.Code == discordgo.ErrCodeInteractionHasAlreadyBeenAcknowledged
}

// say answers req with an ephemeral message in plain words.
func (b *Bot) say(ctx context.Context, req *request, text string) error {
	return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, view{content: text}, true)
}

func allowed(ping string) *discordgo.MessageAllowedMentions {
	am := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	if ping != "" {
		am.Users = []string{ping}
	}
	return am
}

// edit replaces the message that ref's @original points at with v.
func (b *Bot) edit(ctx context.Context, ref *discordgo.Interaction, v view) error {
	comps := v.buttons()
	_, err := b.dc.InteractionResponseEdit(ref, &discordgo.WebhookEdit{
		Content:         &v.content,
		Components:      &comps,
		AllowedMentions: allowed(""),
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("edit message: %w", err)
	}
	return nil
}

// editLater edits in the background, for changes nobody waits for (a board
// that a newer message replaced). Errors are logged.
func (b *Bot) editLater(ref *discordgo.Interaction, v view, channelID string) {
	if ref == nil {
		return
	}
	b.background(func(ctx context.Context) {
		if err := b.edit(ctx, ref, v); err != nil {
			b.log.Warn("could not update an old message", "channel", channelID, "err", err)
		}
	})
}

// deleteBoard deletes, in the background, the board message of m, which a
// newer message of the same game replaced: a game has one board message.
// It goes through the board's token while Discord accepts it, and after
// that through the channel when the bot knows the message (a
// correspondence game's board). Otherwise the old message stays, and its
// clicks are refused as out of date.
func (b *Bot) deleteBoard(m *match) {
	bd := m.Board
	switch {
	case bd.Token != "" && b.tokenGood(bd):
		ref := &discordgo.Interaction{AppID: bd.AppID, Token: bd.Token}
		b.boardEdits.drop(ref.Token) // a picture on its way has nowhere to go
		b.background(func(ctx context.Context) {
			if err := b.dc.InteractionResponseDelete(ref, discordgo.WithContext(ctx)); err != nil {
				b.log.Warn("could not delete a replaced board", "channel", m.ChannelID, "err", err)
			}
		})
	case bd.MessageID != "":
		b.background(func(ctx context.Context) {
			if err := b.dc.ChannelMessageDelete(bd.ChannelID, bd.MessageID, discordgo.WithContext(ctx)); err != nil {
				b.log.Warn("could not delete a replaced board through its channel", "channel", m.ChannelID, "err", err)
			}
		})
	}
}

// editBoard edits, in the background, the board message of m with v:
// through its token while Discord accepts it (a board bigger than
// pictureAbove may then be a picture: editBigBoard), and after that
// through the channel when the bot knows the message (a correspondence
// game's board). Otherwise the old message keeps its buttons, whose clicks
// are refused as out of date.
func (b *Bot) editBoard(m *match, v view) {
	bd := m.Board
	switch ref := b.boardRef(m); {
	case ref != nil && m.Judge.Size() > pictureAbove:
		b.editBigBoard(ref, m, v)
	case ref != nil:
		b.editLater(ref, v, m.ChannelID)
	case bd.MessageID != "":
		b.background(func(ctx context.Context) {
			if err := b.editInChannel(ctx, bd, v); err != nil {
				b.log.Warn("could not update an old board through its channel", "channel", m.ChannelID, "err", err)
			}
		})
	case bd.Token != "":
		b.log.Debug("not updating an old board: its interaction token has expired", "channel", m.ChannelID)
	}
}

// boardRef returns the interaction whose @original is m's board message,
// or nil if it has none or Discord no longer accepts its token.
func (b *Bot) boardRef(m *match) *discordgo.Interaction {
	if m.Board.Token == "" || !b.tokenGood(m.Board) {
		return nil
	}
	return &discordgo.Interaction{AppID: m.Board.AppID, Token: m.Board.Token}
}

// tokenLife is how long the bot uses an interaction token for edits:
// Discord accepts it for 15 minutes from the interaction; the bot counts
// from when it received the interaction, with a margin. It exceeds
// MaxTimeout, so the turn timer of a game with short turns finds its
// board's token good; a correspondence game's turn outlives it, and its
// timer reaches the board through the channel instead (correspondence.go).
const tokenLife = 15*time.Minute - 30*time.Second

// tokenGood says whether the bot still edits bd through its token.
func (b *Bot) tokenGood(bd table.Board) bool { return b.now().Sub(bd.At) <= tokenLife }

// background runs f on one of the edit workers, which Close waits for.
// While Close drains, work started by what is draining still runs (an
// edit after a timeout); once Close is done, nothing does. f's ctx ends
// editWithin after f was queued, not after it started: a queue behind a
// stalled Discord drains within editWithin, as the edits would if each
// had a goroutine of its own.
func (b *Bot) background(f func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	if !b.spawn(func() { defer cancel(); f(ctx) }, &b.finished, &b.edits) {
		cancel()
	}
}

// afterFunc runs f after d on one of the timer workers, unless Close has
// begun by then; Close waits for f once it is queued.
func (b *Bot) afterFunc(d time.Duration, f func()) *time.Timer {
	return time.AfterFunc(d, func() { b.spawn(f, &b.closed, &b.timers) })
}

// spawn runs f on r, counted in b.bg, unless *refused (read under bgMu)
// is set; it says whether f will run.
func (b *Bot) spawn(f func(), refused *bool, r *runner) bool {
	b.bgMu.Lock()
	defer b.bgMu.Unlock()
	if *refused {
		return false
	}
	b.bg.Add(1)
	r.run(func() {
		defer b.bg.Done()
		f()
	})
	return true
}
