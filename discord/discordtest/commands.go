package discordtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// commandEntry is a registered command: decoded for lookups, and as the
// JSON the API returns, from which copies are decoded.
type commandEntry struct {
	cmd *discordgo.ApplicationCommand
	raw json.RawMessage
}

// putCommands answers the bulk overwrite of
// /applications/{app}/commands and /applications/{app}/guilds/{guild}/commands.
func (s *Server) putCommands(r *http.Request, body []byte) reply {
	if r.PathValue("app") != s.AppID {
		return errReply(http.StatusNotFound, codeUnknownApplication, "Unknown Application")
	}
	scope := r.PathValue("guild")
	var cmds []*discordgo.ApplicationCommand
	if err := json.Unmarshal(body, &cmds); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return badJSON
		}
		return formReply([]fieldError{{"", "BASE_TYPE_ARRAY", "Must be an array of application commands."}})
	}
	if errs := validateCommands(cmds); len(errs) > 0 {
		return formReply(errs)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	old := map[string]string{} // type/name → ID
	for _, e := range s.commands[scope] {
		old[commandKey(e.cmd)] = e.cmd.ID
	}
	entries := make([]commandEntry, 0, len(cmds))
	out := make([]json.RawMessage, 0, len(cmds))
	for _, c := range cmds {
		if c.Type == 0 {
			c.Type = discordgo.ChatApplicationCommand
		}
		c.ID = old[commandKey(c)]
		if c.ID == "" {
			c.ID = s.NewID()
		}
		c.ApplicationID = s.AppID
		c.GuildID = scope
		c.Version = s.NewID()
		raw, err := json.Marshal(c)
		if err != nil {
			return errReply(http.StatusInternalServerError, codeGeneral, "discordtest: "+err.Error())
		}
		entries = append(entries, commandEntry{cmd: c, raw: raw})
		out = append(out, raw)
	}
	s.commands[scope] = entries
	s.written[scope] = true
	s.broadcastLocked()
	return okReply(out)
}

func commandKey(c *discordgo.ApplicationCommand) string {
	t := c.Type
	if t == 0 {
		t = discordgo.ChatApplicationCommand
	}
	return fmt.Sprint(t, "/", c.Name)
}

// getCommands answers GET of the commands of a scope.
func (s *Server) getCommands(r *http.Request, _ []byte) reply {
	if r.PathValue("app") != s.AppID {
		return errReply(http.StatusNotFound, codeUnknownApplication, "Unknown Application")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []json.RawMessage{}
	for _, e := range s.commands[r.PathValue("guild")] {
		out = append(out, e.raw)
	}
	return okReply(out)
}

// findCommandLocked returns the chat input command named name in the scope.
func (s *Server) findCommandLocked(scope, name string) *discordgo.ApplicationCommand {
	for _, e := range s.commands[scope] {
		if e.cmd.Name == name && e.cmd.Type == discordgo.ChatApplicationCommand {
			return e.cmd
		}
	}
	return nil
}

// Commands returns copies of the commands registered in the guild, or
// globally for guildID "", as the API returned them.
func (s *Server) Commands(guildID string) []*discordgo.ApplicationCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commandsLocked(guildID)
}

func (s *Server) commandsLocked(guildID string) []*discordgo.ApplicationCommand {
	out := make([]*discordgo.ApplicationCommand, 0, len(s.commands[guildID]))
	for _, e := range s.commands[guildID] {
		var c discordgo.ApplicationCommand
		if json.Unmarshal(e.raw, &c) == nil {
			out = append(out, &c)
		}
	}
	return out
}

// WaitCommands blocks until the bot has bulk-overwritten the commands of
// the guild (or the global ones, for guildID "") at least once, and
// returns them.
func (s *Server) WaitCommands(ctx context.Context, guildID string) ([]*discordgo.ApplicationCommand, error) {
	var out []*discordgo.ApplicationCommand
	err := s.waitUntil(ctx, func() (bool, error) {
		if !s.written[guildID] {
			return false, nil
		}
		out = s.commandsLocked(guildID)
		return true, nil
	})
	return out, err
}
