package discord

import (
	"context"
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// Login is the start of a bot without a gateway connection (one that gets
// its interactions from the HTTP endpoint): it checks the token by asking
// Discord who the bot is (GET /users/@me) and returns the REST client for
// answers, edits and registration. A refused token is ErrTokenRejected.
func Login(ctx context.Context, o Options) (REST, Ready, error) {
	s, err := NewSession(o)
	if err != nil {
		return REST{}, Ready{}, err
	}
	u, err := s.User("@me", discordgo.WithContext(ctx))
	if TokenRejected(err) {
		return REST{}, Ready{}, ErrTokenRejected
	}
	if err != nil {
		return REST{}, Ready{}, fmt.Errorf("ask Discord who the bot is: %w", usedURL(s, err))
	}
	if u == nil || u.ID == "" {
		return REST{}, Ready{}, errors.New("Discord named no bot user for the token")
	}
	// A bot's user id is its application's id.
	return REST{s}, Ready{UserID: u.ID, Username: u.Username, AppID: u.ID}, nil
}
