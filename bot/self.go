package bot

import "sync/atomic"

// self is the bot's own user id, known once READY arrived. The zero value
// knows nothing yet; it is safe for concurrent use.
type self struct{ p atomic.Pointer[string] }

func (s *self) set(userID string) { s.p.Store(&userID) }

// id is the bot's user id, or "" until it is known.
func (s *self) id() string {
	if p := s.p.Load(); p != nil {
		return *p
	}
	return ""
}

// systemID is who stops a game that the bot itself calls off.
func (s *self) systemID() string {
	if id := s.id(); id != "" {
		return id
	}
	return "0"
}
