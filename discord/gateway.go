package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
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

// Gateway is one gateway connection: it delivers INTERACTION_CREATE events
// to the handler set with Handle. Create it with Open.
type Gateway struct {
	s     *discordgo.Session
	ready Ready
	log   *slog.Logger

	mu       sync.Mutex
	handler  Handler
	handling chan struct{} // closed once a handler is set
}

// ErrTokenRejected is Open's error when Discord refuses the bot token.
var ErrTokenRejected = errors.New("Discord rejected the token: check DISCORD_TOKEN (Developer Portal, your application, Bot, Reset Token)")

const startingText = "I'm just starting up. Please try again in a moment."

// waitHandler bounds how long an interaction that arrives while the bot
// is still starting waits for the handler.
const waitHandler = 2 * time.Second

// Open connects to the gateway with token, through apiURL when it is set
// (see NewSession), and waits for READY. It gives up when ctx ends first
// (returning ctx's error), and returns ErrTokenRejected when Discord
// refuses the token. Interactions that arrive before Handle is called wait
// for it briefly.
func Open(ctx context.Context, token, apiURL string, log *slog.Logger) (*Gateway, error) {
	routeLogs(log)
	s, err := NewSession(token, apiURL)
	if err != nil {
		return nil, err
	}
	g := &Gateway{s: s, log: log, handling: make(chan struct{})}
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		if ic.Interaction == nil {
			return
		}
		cb := Callback{REST: REST{s}, Interaction: ic.Interaction}
		h := g.waitForHandler()
		if h == nil {
			// Still starting: say so rather than leave the user with
			// "This interaction failed".
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := cb.Respond(ctx, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: startingText, Flags: discordgo.MessageFlagsEphemeral},
			})
			log.Warn("an interaction arrived before the bot was ready", "channel", ic.ChannelID, "err", err)
			return
		}
		h(ic.Interaction, cb)
	})

	opened := make(chan error, 1)
	go func() { opened <- s.Open() }()
	select {
	case err = <-opened:
	case <-ctx.Done():
		// discordgo's Open cannot be interrupted: close the session once
		// it has given up or connected.
		go func() {
			<-opened
			_ = s.Close()
		}()
		return nil, ctx.Err()
	}
	if err != nil {
		var ce *websocket.CloseError
		if errors.As(err, &ce) && ce.Code == 4004 {
			return nil, ErrTokenRejected
		}
		if TokenRejected(err) {
			return nil, ErrTokenRejected
		}
		return nil, fmt.Errorf("connect to the discord gateway: %w", err)
	}
	s.State.RLock()
	user, app := s.State.User, s.State.Application
	s.State.RUnlock()
	if user == nil {
		_ = s.Close()
		return nil, errors.New("the gateway's READY named no bot user")
	}
	g.ready = Ready{UserID: user.ID, Username: user.Username, AppID: user.ID} // a bot's user id is its application id
	if app != nil && app.ID != "" {
		g.ready.AppID = app.ID
	}
	return g, nil
}

// Ready says who the bot is.
func (g *Gateway) Ready() Ready { return g.ready }

// REST is the session's REST client, for answers and edits.
func (g *Gateway) REST() REST { return REST{g.s} }

// Handle sets the handler of interactions.
func (g *Gateway) Handle(h Handler) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handler == nil {
		g.handler = h
		close(g.handling)
	}
}

func (g *Gateway) waitForHandler() Handler {
	t := time.NewTimer(waitHandler)
	defer t.Stop()
	select {
	case <-g.handling:
	case <-t.C:
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.handler
}

// Close closes the connection.
func (g *Gateway) Close() error { return g.s.Close() }

// TokenRejected reports whether err says Discord refused the bot token
// (a 401 from REST).
func TokenRejected(err error) bool {
	var rerr *discordgo.RESTError
	return errors.As(err, &rerr) && rerr.Response != nil && rerr.Response.StatusCode == 401
}

var logOnce sync.Once

// routeLogs sends discordgo's own log lines to log. discordgo has a single
// package-wide logger, so the first Open's logger gets them.
func routeLogs(log *slog.Logger) {
	logOnce.Do(func() {
		discordgo.Logger = func(msgL, caller int, format string, a ...any) {
			level := slog.LevelDebug
			switch msgL {
			case discordgo.LogError:
				level = slog.LevelError
			case discordgo.LogWarning:
				level = slog.LevelWarn
			case discordgo.LogInformational:
				level = slog.LevelInfo
			}
			log.Log(context.Background(), level, strings.TrimSpace(fmt.Sprintf(format, a...)), "source", "discordgo")
		}
	})
}
