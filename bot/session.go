package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// NewSession returns a discordgo session for a bot token that asks for no
// gateway intents: the bot only answers interactions, which need none.
//
// If apiURL is not empty, every REST call, and so the gateway lookup, goes
// there instead of discordgo.EndpointAPI. discordgo builds its endpoint
// strings once, at init, so the redirect happens in the HTTP client.
func NewSession(token, apiURL string) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("new discord session: %w", err)
	}
	s.Identify.Intents = discordgo.IntentsNone
	// The bot keeps no cache of guilds, channels or members: it needs none,
	// and memory then does not grow with the number of servers.
	s.StateEnabled = false
	s.LogLevel = discordgo.LogWarning
	if apiURL != "" {
		if err := CheckAPIURL(apiURL); err != nil {
			return nil, err
		}
		s.Client = &http.Client{
			Timeout:   20 * time.Second,
			Transport: redirect{from: discordgo.EndpointAPI, to: strings.TrimSuffix(apiURL, "/") + "/", next: http.DefaultTransport},
		}
	}
	return s, nil
}

// CheckAPIURL says what is wrong with a DISCORD_API_URL, if anything: it
// must be an absolute http(s) URL, such as https://discord.com/api/v9.
func CheckAPIURL(apiURL string) error {
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("DISCORD_API_URL %q is not an http(s) URL such as https://discord.com/api/v9; leave it unset to use Discord", apiURL)
	}
	return nil
}

// redirect sends requests whose URL starts with from to the same path below
// to.
type redirect struct {
	from, to string
	next     http.RoundTripper
}

func (t redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL.String()
	if !strings.HasPrefix(u, t.from) {
		return t.next.RoundTrip(req)
	}
	nu, err := url.Parse(t.to + strings.TrimPrefix(u, t.from))
	if err != nil {
		return nil, fmt.Errorf("redirect %s: %w", req.URL.Path, err)
	}
	r := req.Clone(req.Context())
	r.URL, r.Host = nu, nu.Host
	return t.next.RoundTrip(r)
}

var logOnce sync.Once

// routeLogs sends discordgo's own log lines to log. discordgo has a single
// package-wide logger, so the first Run's logger gets them.
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

// Run connects to Discord with token, registers the commands, and answers
// interactions, keeping games in st, until ctx is done; then it stops
// timers, waits for edits in flight and closes the connection. It logs one
// line when ready.
func Run(ctx context.Context, token, apiURL string, st Store, cfg Config, log *slog.Logger) error {
	routeLogs(log)
	s, err := NewSession(token, apiURL)
	if err != nil {
		return err
	}
	b := New(sessionDiscord{s}, st, cfg, log)
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		if b.selfID() == "" {
			// Open has stored READY in the state, but Run may not have
			// copied the bot's id yet.
			s.State.RLock()
			if s.State.User != nil {
				b.SetSelf(s.State.User.ID)
			}
			s.State.RUnlock()
		}
		b.Handle(s, ic)
	})

	if err := s.Open(); err != nil {
		return fmt.Errorf("connect to the discord gateway: %w", err)
	}
	defer func() {
		b.Close()
		if err := s.Close(); err != nil {
			log.Warn("closing the gateway connection", "err", err)
		}
	}()

	s.State.RLock()
	user, app := s.State.User, s.State.Application
	s.State.RUnlock()
	if user == nil {
		return errors.New("the gateway's READY named no bot user")
	}
	b.SetSelf(user.ID)
	appID := user.ID // a bot's user id is its application id
	if app != nil && app.ID != "" {
		appID = app.ID
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = b.Register(rctx, appID)
	cancel()
	if err != nil {
		return err
	}
	if err := b.Restore(ctx); err != nil {
		return err
	}
	scope := "global"
	if cfg.GuildID != "" {
		scope = "guild " + cfg.GuildID
	}
	log.Info("ready", "user", user.Username, "application", appID, "commands", scope)
	<-ctx.Done()
	log.Info("shutting down")
	return nil
}
