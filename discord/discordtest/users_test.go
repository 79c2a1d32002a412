package discordtest

import (
	"net/http"
	"testing"
)

// GET /users/{user} with the bot token reads the members NewMember made
// and the bot; other ids are Unknown User, and a wrong token is refused.
func TestGetUser(t *testing.T) {
	srv := NewServer("users-test-token")
	t.Cleanup(srv.Close)
	s := newSession(t, srv, "Bot "+srv.Token)
	alice := srv.NewMember("alice")
	u, err := s.User(alice.User.ID)
	if err != nil || u.ID != alice.User.ID || u.Username != "alice" || u.GlobalName != "alice" {
		t.Fatalf("User(alice) = %+v, %v; want alice", u, err)
	}
	if u, err := s.User(srv.BotUser.ID); err != nil || !u.Bot || u.Username != srv.BotUser.Username {
		t.Errorf("User(bot) = %+v, %v; want the bot", u, err)
	}
	_, err = s.User(srv.NewID())
	wantAPIError(t, err, http.StatusNotFound, codeUnknownUser)
	other := newSession(t, srv, "Bot wrong")
	_, err = other.User(alice.User.ID)
	wantAPIError(t, err, http.StatusUnauthorized, codeGeneral)
}
