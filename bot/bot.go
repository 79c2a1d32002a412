// Package bot is everything that touches Discord: the /ttt command schema,
// the router that answers every interaction, the handlers, the renderer of
// boards and challenges, and the per-channel registry of games with its
// timers. The rules themselves live in package game.
//
// One move, end to end: discordgo delivers an INTERACTION_CREATE
// (Bot.Handle) → the router picks the handler by subcommand or custom_id
// route (router.go) → the handler locks the channel's table (registry.go)
// and plays the move on a clone of the match with the judge (game.Game.Play)
// → the board is rendered (render.go) → Bot.commit saves the match (Store)
// and answers with the board, all under that lock, so that two clicks on one
// board apply exactly one move, in order.
package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// Discord is the part of *discordgo.Session the bot uses. Everything the bot
// shows goes through interaction responses and their webhook edits, so these
// three calls are all it needs.
type Discord interface {
	InteractionRespond(i *discordgo.Interaction, r *discordgo.InteractionResponse, opts ...discordgo.RequestOption) error
	InteractionResponseEdit(i *discordgo.Interaction, e *discordgo.WebhookEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	ApplicationCommandBulkOverwrite(appID, guildID string, cmds []*discordgo.ApplicationCommand, opts ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error)
}

// Config holds the bot's settings. The zero value is not useful: use
// DefaultConfig and change what you need.
type Config struct {
	// GuildID, when set, registers the commands in that guild only (they
	// appear at once) instead of globally.
	GuildID string
	// ChallengeTimeout is how long a challenge waits for an answer.
	ChallengeTimeout time.Duration
	// TurnTimeout is how long a player has for a move before losing.
	TurnTimeout time.Duration
	// Seed seeds the computer player's randomness: its choice depends only
	// on Seed, the game's id and the position, so games replay exactly.
	Seed uint64
}

// Limits on the timeouts. A timer edits the board through the token of the
// last interaction that drew it, and Discord keeps such a token for 15
// minutes, so a timeout may not be longer than that, with a margin.
const (
	MinTimeout = time.Second
	MaxTimeout = 14 * time.Minute
)

// DefaultConfig returns the defaults: challenges wait 60 s, turns 5 min.
func DefaultConfig() Config {
	return Config{ChallengeTimeout: time.Minute, TurnTimeout: 5 * time.Minute}
}

// answerWithin is how long a handler has for its answer. Discord allows 3 s
// from the moment it sent the interaction; the event was already on its way
// for part of that.
const answerWithin = 2500 * time.Millisecond

// editWithin bounds background edits (timers, stale boards).
const editWithin = 10 * time.Second

// Bot answers /ttt interactions. Create it with New; it is safe for
// concurrent use, which discordgo requires: it runs each event handler in its
// own goroutine.
type Bot struct {
	dc    Discord
	cfg   Config
	log   *slog.Logger
	store Store
	games registry

	self atomic.Pointer[string] // the bot's user id, known once READY arrived

	bgMu     sync.Mutex
	closed   bool           // set by Close: no new interactions or timer callbacks
	finished bool           // set when Close is done: nothing runs any more
	handlers sync.WaitGroup // interactions being answered
	bg       sync.WaitGroup // background edits and timer callbacks in flight

	commands map[string]handler // by subcommand name
	buttons  map[string]handler // by route action
}

// New returns a bot that talks to Discord through dc and keeps its games in
// st.
func New(dc Discord, st Store, cfg Config, log *slog.Logger) *Bot {
	b := &Bot{
		dc:    dc,
		cfg:   cfg,
		log:   log,
		store: st,
		games: registry{store: st, log: log},
	}
	b.commands = map[string]handler{
		"start":  b.start,
		"move":   b.moveCommand,
		"board":  b.boardCommand,
		"resign": b.resign,
		"stop":   b.stop,
		"help":   b.help,
	}
	b.buttons = map[string]handler{
		actMove:    b.moveButton,
		actAccept:  b.accept,
		actDecline: b.decline,
		actRematch: b.rematch,
	}
	return b
}

// SetSelf records the bot's own user id, from READY. Until it is known the
// bot cannot tell "play against me" from a challenge, so it is set before
// the gateway delivers any interaction.
func (b *Bot) SetSelf(userID string) { b.self.Store(&userID) }

func (b *Bot) selfID() string {
	if p := b.self.Load(); p != nil {
		return *p
	}
	return ""
}

// Register overwrites the application's commands with Commands(), in
// cfg.GuildID when set, else globally.
func (b *Bot) Register(ctx context.Context, appID string) error {
	_, err := b.dc.ApplicationCommandBulkOverwrite(appID, b.cfg.GuildID, Commands(), discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("register commands: %w", err)
	}
	return nil
}

// Close stops every timer, waits for interactions and background edits in
// flight, and closes open challenges. Games stay in the store. Interactions
// that arrive during Close are told the bot is restarting.
func (b *Bot) Close() {
	b.bgMu.Lock()
	b.closed = true
	b.bgMu.Unlock()
	// Answers in flight finish first (their edits may still start), so
	// that no challenge is opened after the sweep below.
	b.handlers.Wait()
	// Open challenges are not stored: say so on their messages, in the
	// background, while their tokens are good.
	b.games.each(func(t *table) {
		if c := t.challenge; c != nil {
			c.timer.Stop()
			t.challenge = nil
			b.editLater(c.msg, renderChallenge(c, challengeRestart, b.cfg.ChallengeTimeout), "")
		}
		if t.turnTimer != nil {
			t.turnTimer.Stop()
		}
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

// computerMove asks the computer for its move. Each move gets its own
// generator, seeded from Seed, the game and the move number, so channels
// never wait for each other's computer and a game replays exactly.
func (b *Bot) computerMove(m *match) (game.Cell, error) {
	h := fnv.New64a()
	h.Write([]byte(m.id))
	r := mrand.New(mrand.NewPCG(b.cfg.Seed, h.Sum64()+uint64(m.judge.Len())))
	return game.ComputerMove(m.judge, m.level, r)
}

// respond answers ic. It is the only way handlers answer, so the router can
// tell whether a handler answered.
func (b *Bot) respond(ctx context.Context, ic *discordgo.InteractionCreate, typ discordgo.InteractionResponseType, v view, ephemeral bool) error {
	data := &discordgo.InteractionResponseData{
		Content:         v.content,
		Components:      v.components,
		AllowedMentions: allowed(v.ping),
	}
	if data.Components == nil {
		data.Components = []discordgo.MessageComponent{}
	}
	if ephemeral {
		data.Flags = discordgo.MessageFlagsEphemeral
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("respond to interaction: %w: %w", errNotSent, err)
	}
	err := b.dc.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{Type: typ, Data: data},
		discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if !rejected(err) || acknowledged(err) {
		// Delivered, perhaps delivered (a timeout, a lost reply), or
		// answered before: another answer would be refused or would
		// double what the user sees.
		markAnswered(ctx)
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
	if errors.Is(err, errNotSent) {
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

// say answers ic with an ephemeral message in plain words.
func (b *Bot) say(ctx context.Context, ic *discordgo.InteractionCreate, text string) error {
	return b.respond(ctx, ic, discordgo.InteractionResponseChannelMessageWithSource, view{content: text}, true)
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
	comps := v.components
	if comps == nil {
		comps = []discordgo.MessageComponent{}
	}
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
	b.background(func() {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		if err := b.edit(ctx, ref, v); err != nil {
			b.log.Warn("could not update an old message", "channel", channelID, "err", err)
		}
	})
}

// editBoard edits, in the background, a board message drawn through ref at
// the time at, unless Discord no longer accepts ref's token: then the old
// message keeps its buttons, whose clicks are refused as out of date.
func (b *Bot) editBoard(ref *discordgo.Interaction, at time.Time, v view, channelID string) {
	if ref == nil {
		return
	}
	if time.Since(at) > tokenLife {
		b.log.Debug("not updating an old board: its interaction token has expired", "channel", channelID)
		return
	}
	b.editLater(ref, v, channelID)
}

// background runs f in a goroutine that Close waits for. While Close
// drains, work started by what is draining still runs (an edit after a
// timeout); once Close is done, nothing does.
func (b *Bot) background(f func()) { b.spawn(f, &b.finished) }

// afterFunc runs f after d in the background, unless Close has begun by
// then; Close waits for a running f.
func (b *Bot) afterFunc(d time.Duration, f func()) *time.Timer {
	return time.AfterFunc(d, func() { b.spawn(f, &b.closed) })
}

// spawn runs f in a goroutine counted in b.bg, unless *refused (read under
// bgMu) is set.
func (b *Bot) spawn(f func(), refused *bool) {
	b.bgMu.Lock()
	defer b.bgMu.Unlock()
	if *refused {
		return
	}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		f()
	}()
}
