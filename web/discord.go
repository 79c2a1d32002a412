package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// What the server asks of Discord to open a session: three calls, each
// with its own credential, none of them anything the page chose except
// the one-time code and the instance id, which Discord checks.

// errDiscordRefused says that Discord answered a call with a 4xx: the
// code, token or instance is not good (the page's fault, or its user's).
type errDiscordRefused struct {
	call   string
	status int
}

func (e *errDiscordRefused) Error() string {
	return fmt.Sprintf("web: Discord refused %s: %d", e.call, e.status)
}

// errOurCredentials says that Discord refused the app's own credentials
// (401 or 403 to the client secret or the bot token): the server is
// misconfigured, and the page's user can do nothing about it.
type errOurCredentials struct{ refused *errDiscordRefused }

func (e *errOurCredentials) Error() string {
	return e.refused.Error() + " (the application's own credentials: check DISCORD_CLIENT_SECRET and the bot token)"
}

// ours makes a refusal of the app's own credentials an errOurCredentials.
func ours(err error) error {
	var r *errDiscordRefused
	if errors.As(err, &r) && (r.status == http.StatusUnauthorized || r.status == http.StatusForbidden) {
		return &errOurCredentials{refused: r}
	}
	return err
}

// discordUser is the part of /users/@me the server reads.
type discordUser struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
	Avatar     string `json:"avatar"`
	Locale     string `json:"locale"`
}

func (u discordUser) name() string {
	if u.GlobalName != "" {
		return u.GlobalName
	}
	return u.Username
}

// avatarURL is the user's avatar as the page loads it (AvatarPath), or
// "" for none.
func (u discordUser) avatarURL() string { return AvatarPath(u.ID, u.Avatar, 64) }

// activityInstance is Discord's Activity Instance object
// (GET /applications/{app}/activity-instances/{instance}).
type activityInstance struct {
	ApplicationID string `json:"application_id"`
	InstanceID    string `json:"instance_id"`
	LaunchID      string `json:"launch_id"`
	Location      *struct {
		ID        string  `json:"id"`
		Kind      string  `json:"kind"` // "gc": a guild channel; "pc": a DM or group DM
		ChannelID string  `json:"channel_id"`
		GuildID   *string `json:"guild_id"`
	} `json:"location"`
	Users []string `json:"users"`
}

// maxDiscordReply bounds what the server reads of one of Discord's
// answers.
const maxDiscordReply = 64 << 10

// exchange trades the page's OAuth2 code for the user's access token.
// Embedded activities authorize without a redirect, so none is sent.
func (s *Server) exchange(ctx context.Context, code string) (string, error) {
	form := url.Values{
		"client_id":     {s.cfg.ClientID},
		"client_secret": {s.cfg.ClientSecret},
		"grant_type":    {"authorization_code"},
		"code":          {code},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.api+"/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := s.call(req, "the OAuth2 code", &tok); err != nil {
		return "", ours(err)
	}
	if tok.AccessToken == "" {
		return "", errors.New("web: Discord's token answer has no access_token")
	}
	return tok.AccessToken, nil
}

// me reads the user whose access token it is.
func (s *Server) me(ctx context.Context, accessToken string) (discordUser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.api+"/users/@me", nil)
	if err != nil {
		return discordUser{}, err
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	var u discordUser
	if err := s.call(req, "the access token", &u); err != nil {
		return discordUser{}, err
	}
	if u.ID == "" {
		return discordUser{}, errors.New("web: Discord's /users/@me has no id")
	}
	return u, nil
}

// instance reads an activity instance of the application, with the bot's
// token.
func (s *Server) instance(ctx context.Context, id string) (activityInstance, error) {
	u := s.api + "/applications/" + url.PathEscape(s.cfg.ClientID) + "/activity-instances/" + url.PathEscape(id)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return activityInstance{}, err
	}
	req.Header.Set("Authorization", "Bot "+s.cfg.BotToken)
	var in activityInstance
	err = s.call(req, "the activity instance", &in)
	return in, ours(err)
}

// call does req and decodes a 2xx JSON answer into out.
func (s *Server) call(req *http.Request, what string, out any) error {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "DiscordBot (https://github.com/tttbot/tttbot, 1) tttbot-web")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("web: asking Discord about %s: %w", what, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscordReply))
	if err != nil {
		return fmt.Errorf("web: reading Discord's answer about %s: %w", what, err)
	}
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
		return &errDiscordRefused{call: what, status: resp.StatusCode}
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("web: Discord answered %d about %s", resp.StatusCode, what)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("web: Discord's answer about %s: %w", what, err)
	}
	return nil
}

// isSnowflakeish says whether s is all digits, 1 to 20 of them.
func isSnowflakeish(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
