// Package discord holds tttbot's transports to Discord: the gateway session
// that delivers interactions, and the REST calls that answer and edit. The
// bot package answers through the small interfaces it declares; this
// package provides them over discordgo.
package discord

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
