package discordtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// call does one request on the fake's API: path is relative to APIURL.
func call(t *testing.T, srv *Server, method, path, auth string, form url.Values) (int, map[string]any) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, srv.APIURL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s %s: %d %s: not JSON", method, path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, out
}

func tokenForm(srv *Server, code string) url.Values {
	return url.Values{"client_id": {srv.AppID}, "client_secret": {srv.ClientSecret()}, "grant_type": {"authorization_code"}, "code": {code}}
}

// TestOAuth2Code: a code the SDK gave is traded once, with the app's
// secret and no redirect, for a token that reads its user.
func TestOAuth2Code(t *testing.T) {
	srv := newServer(t)
	alice := srv.NewMember("alice").User
	code := srv.Authorize(alice, "de")

	bad := tokenForm(srv, code)
	bad.Set("client_secret", "nope")
	if st, out := call(t, srv, "POST", "/oauth2/token", "", bad); st != 401 || out["error"] != "invalid_client" {
		t.Errorf("wrong secret: %d %v, want 401 invalid_client", st, out)
	}
	redirect := tokenForm(srv, code)
	redirect.Set("redirect_uri", "https://example.com/cb")
	if st, out := call(t, srv, "POST", "/oauth2/token", "", redirect); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("with a redirect_uri: %d %v, want 400 invalid_grant", st, out)
	}
	st, out := call(t, srv, "POST", "/oauth2/token", "", tokenForm(srv, code))
	token, _ := out["access_token"].(string)
	if st != 200 || token == "" || out["token_type"] != "Bearer" {
		t.Fatalf("exchange: %d %v", st, out)
	}
	if st, out := call(t, srv, "POST", "/oauth2/token", "", tokenForm(srv, code)); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("a code used twice: %d %v, want 400 invalid_grant", st, out)
	}

	st, me := call(t, srv, "GET", "/users/@me", "Bearer "+token, nil)
	if st != 200 || me["id"] != alice.ID || me["username"] != "alice" || me["locale"] != "de" {
		t.Errorf("/users/@me with the token: %d %v", st, me)
	}
	if st, _ := call(t, srv, "GET", "/users/@me", "Bearer forged", nil); st != 401 {
		t.Errorf("/users/@me with a forged token: %d, want 401", st)
	}
	if st, me := call(t, srv, "GET", "/users/@me", "Bot "+testToken, nil); st != 200 || me["id"] != srv.BotUser.ID {
		t.Errorf("/users/@me with the bot's token: %d %v, want the bot", st, me)
	}
}

// TestActivityInstance: the instance says where it runs and who is in
// it, to the application's bot only.
func TestActivityInstance(t *testing.T) {
	srv := newServer(t)
	guild, channel, a, b := srv.NewID(), srv.NewID(), srv.NewID(), srv.NewID()
	id := srv.StartActivity(channel, guild, a)
	srv.JoinActivity(id, b)
	srv.LeaveActivity(id, a)

	path := "/applications/" + srv.AppID + "/activity-instances/" + url.PathEscape(id)
	st, out := call(t, srv, "GET", path, "Bot "+testToken, nil)
	loc, _ := out["location"].(map[string]any)
	users, _ := out["users"].([]any)
	if st != 200 || out["application_id"] != srv.AppID || out["instance_id"] != id || out["launch_id"] == "" ||
		loc["channel_id"] != channel || loc["guild_id"] != guild || loc["kind"] != "gc" ||
		!slices.Equal(users, []any{b}) {
		t.Errorf("instance: %d %v", st, out)
	}
	if st, _ := call(t, srv, "GET", path, "Bearer x", nil); st != 401 {
		t.Errorf("with a user's token: %d, want 401", st)
	}
	if st, _ := call(t, srv, "GET", "/applications/"+srv.AppID+"/activity-instances/i-nope", "Bot "+testToken, nil); st != 404 {
		t.Errorf("an unknown instance: %d, want 404", st)
	}
	if st, _ := call(t, srv, "GET", "/applications/"+srv.NewID()+"/activity-instances/"+url.PathEscape(id), "Bot "+testToken, nil); st != 404 {
		t.Errorf("another application's: %d, want 404", st)
	}

	dm := srv.StartActivity(srv.NewID(), "", a, b)
	st, out = call(t, srv, "GET", "/applications/"+srv.AppID+"/activity-instances/"+url.PathEscape(dm), "Bot "+testToken, nil)
	loc, _ = out["location"].(map[string]any)
	if g, ok := loc["guild_id"]; st != 200 || loc["kind"] != "pc" || !ok || g != nil {
		t.Errorf("a DM's instance: %d %v, want kind pc and guild_id null", st, out)
	}
}
