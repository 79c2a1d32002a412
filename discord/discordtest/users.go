package discordtest

import (
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// Users: GET /users/{user} with the bot token answers the bot's user and
// every member's that NewMember made, as Discord does for any user; any
// other id is Unknown User (10013).

// knowUser remembers u for GET /users/{user}.
func (s *Server) knowUser(u *discordgo.User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == nil {
		s.users = make(map[string]*discordgo.User)
	}
	c := *u
	s.users[u.ID] = &c
}

func (s *Server) getUser(r *http.Request, _ []byte) reply {
	id := r.PathValue("user")
	if id == s.BotUser.ID {
		return okReply(renderUser(s.BotUser))
	}
	s.mu.Lock()
	u := s.users[id]
	s.mu.Unlock()
	if u == nil {
		return errReply(http.StatusNotFound, codeUnknownUser, "Unknown User")
	}
	return okReply(renderUser(u))
}

// SetAvatar gives the known user userID the avatar hash, as
// GET /users/{user} then reads it (m.User of a Member from NewMember
// is a copy: set its Avatar too for the interactions it sends).
func (s *Server) SetAvatar(userID, hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.users[userID]; u != nil {
		u.Avatar = hash
	}
}
