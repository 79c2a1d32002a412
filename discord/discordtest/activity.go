package discordtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/bwmarrin/discordgo"
)

// Activities: what Discord does for an Activity's server, the live board.
// A page inside Discord gets a one-time OAuth2 code from the Embedded App
// SDK (authorize); the app's server trades it at POST /oauth2/token for
// the user's access token (client id and secret, grant_type
// authorization_code, no redirect_uri in the embedded flow), reads the
// user at GET /users/@me with it (Bearer), and asks where the activity
// runs and who is in it at GET /applications/{app}/activity-instances/
// {instance} with the bot's token.
//
// A test plays the Discord client: [Server.Authorize] gives the code the
// SDK would give a user, and [Server.StartActivity] an instance in a
// channel with the users in it. The fake checks what Discord checks: the
// code is the application's and used once, the secret is
// [Server.ClientSecret], the bearer token is one it gave, the instance
// is the application's.

// activities is the Activity side of a Server.
type activities struct {
	mu        sync.Mutex
	secret    string
	codes     map[string]oauthUser // one-time codes
	tokens    map[string]oauthUser // access tokens
	instances map[string]*activityInstance
}

// oauthUser is who authorized, and in what language their client is.
type oauthUser struct {
	user   *discordgo.User
	locale string
}

// activityInstance is an instance of the application's activity.
type activityInstance struct {
	id, launchID       string
	channelID, guildID string
	users              []string
}

// activityState returns s's activities, made ready on first use.
func (s *Server) activityState() *activities {
	a := &s.act
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.secret == "" {
		a.secret = randomString(24)
		a.codes = map[string]oauthUser{}
		a.tokens = map[string]oauthUser{}
		a.instances = map[string]*activityInstance{}
	}
	return a
}

// ClientSecret is the application's OAuth2 client secret (the value for
// DISCORD_CLIENT_SECRET); the client id is [Server.AppID].
func (s *Server) ClientSecret() string { return s.activityState().secret }

// Authorize returns a new one-time OAuth2 code for u, as the Embedded App
// SDK's authorize command gives a page of the application; locale is the
// user's Discord language, which /users/@me tells (e.g. "de", "en-US").
func (s *Server) Authorize(u *discordgo.User, locale string) string {
	a := s.activityState()
	a.mu.Lock()
	defer a.mu.Unlock()
	code := randomString(18)
	a.codes[code] = oauthUser{user: u, locale: locale}
	return code
}

// StartActivity starts an instance of the application's activity in a
// channel (guildID "" for a DM or group DM) with the users of userIDs in
// it, and returns its instance id.
func (s *Server) StartActivity(channelID, guildID string, userIDs ...string) string {
	a := s.activityState()
	a.mu.Lock()
	defer a.mu.Unlock()
	id := "i-" + s.NewID() + "-gc-" + guildID + "-" + channelID
	a.instances[id] = &activityInstance{id: id, launchID: s.NewID(), channelID: channelID, guildID: guildID, users: slices.Clone(userIDs)}
	return id
}

// JoinActivity adds a user to an instance; LeaveActivity takes one out.
// Either does nothing for an unknown instance.
func (s *Server) JoinActivity(instanceID, userID string) {
	s.changeActivity(instanceID, func(in *activityInstance) {
		if !slices.Contains(in.users, userID) {
			in.users = append(in.users, userID)
		}
	})
}

// LeaveActivity takes a user out of an instance.
func (s *Server) LeaveActivity(instanceID, userID string) {
	s.changeActivity(instanceID, func(in *activityInstance) {
		in.users = slices.DeleteFunc(in.users, func(u string) bool { return u == userID })
	})
}

func (s *Server) changeActivity(id string, f func(*activityInstance)) {
	a := s.activityState()
	a.mu.Lock()
	defer a.mu.Unlock()
	if in := a.instances[id]; in != nil {
		f(in)
	}
}

// activityRoutes adds the routes of activities.
func (s *Server) activityRoutes(handle func(string, func(*http.Request, []byte) reply)) {
	handle("POST /oauth2/token", s.postToken)
	handle("GET /applications/{app}/activity-instances/{instance}", s.bot(s.getActivityInstance))
}

// oauthError is the body of OAuth2's errors (RFC 6749, 5.2).
func oauthError(status int, code, description string) reply {
	return reply{status: status, body: map[string]string{"error": code, "error_description": description}}
}

// postToken trades a code for an access token.
func (s *Server) postToken(r *http.Request, body []byte) reply {
	if mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(mt) != "application/x-www-form-urlencoded" {
		return oauthError(http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return oauthError(http.StatusBadRequest, "invalid_request", "unreadable form")
	}
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, secret = u, p
	}
	a := s.activityState()
	if id != s.AppID || secret != a.secret {
		return oauthError(http.StatusUnauthorized, "invalid_client", "Invalid client")
	}
	switch {
	case form.Get("grant_type") != "authorization_code":
		return oauthError(http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant type")
	case form.Has("redirect_uri"):
		// The embedded authorize flow has no redirect: a redirect_uri
		// here does not match the one of the authorization (none).
		return oauthError(http.StatusBadRequest, "invalid_grant", `Invalid "redirect_uri" in request.`)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	code := form.Get("code")
	who, ok := a.codes[code]
	if !ok {
		return oauthError(http.StatusBadRequest, "invalid_grant", `Invalid "code" in request.`)
	}
	delete(a.codes, code) // used once
	token := randomString(24)
	a.tokens[token] = who
	return okReply(map[string]any{
		"token_type":    "Bearer",
		"access_token":  token,
		"expires_in":    604800,
		"refresh_token": randomString(24),
		"scope":         "identify applications.commands",
	})
}

// usersMe answers GET /users/@me: the bot's user for the bot's token,
// an authorized user for their access token.
func (s *Server) usersMe(r *http.Request, body []byte) reply {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return s.bot(s.getMe)(r, body)
	}
	a := s.activityState()
	a.mu.Lock()
	who, ok := a.tokens[bearer]
	a.mu.Unlock()
	if !ok {
		return unauthorized
	}
	u := renderUser(who.user)
	u["locale"] = who.locale
	u["mfa_enabled"] = false
	u["flags"] = 0
	return okReply(u)
}

// getActivityInstance answers GET
// /applications/{app}/activity-instances/{instance}.
func (s *Server) getActivityInstance(r *http.Request, _ []byte) reply {
	if r.PathValue("app") != s.AppID {
		return errReply(http.StatusNotFound, codeUnknownApplication, "Unknown Application")
	}
	a := s.activityState()
	a.mu.Lock()
	defer a.mu.Unlock()
	in := a.instances[r.PathValue("instance")]
	if in == nil {
		return errReply(http.StatusNotFound, codeGeneral, "404: Not Found")
	}
	kind, guild := "gc", any(in.guildID)
	if in.guildID == "" {
		kind, guild = "pc", nil
	}
	out, _ := json.Marshal(map[string]any{
		"application_id": s.AppID,
		"instance_id":    in.id,
		"launch_id":      in.launchID,
		"location": map[string]any{
			"id":         kind + "-" + in.channelID,
			"kind":       kind,
			"channel_id": in.channelID,
			"guild_id":   guild,
		},
		"users": append([]string{}, in.users...),
	})
	return reply{status: http.StatusOK, raw: out}
}
