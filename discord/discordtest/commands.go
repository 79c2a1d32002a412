package discordtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// commandEntry is a registered command: decoded for lookups, and as the
// JSON the API returns, from which copies are decoded. handler is the
// handler of an entry point command, which discordgo's type lacks.
type commandEntry struct {
	cmd     *discordgo.ApplicationCommand
	raw     json.RawMessage
	handler int
}

// Values of Discord's API that discordgo lacks, as Discord documents them
// (developers/interactions/application-commands and
// receiving-and-responding in github.com/discord/discord-api-docs).
const (
	// commandEntryPoint is the command type PRIMARY_ENTRY_POINT: the
	// command that opens the app's Activity from the App Launcher.
	commandEntryPoint discordgo.ApplicationCommandType = 4
	// The entry point's handlers: APP_HANDLER sends the command to the
	// app; DISCORD_LAUNCH_ACTIVITY launches the Activity without it.
	handlerApp           = 1
	handlerDiscordLaunch = 2
	// callbackLaunchActivity is the callback type LAUNCH_ACTIVITY.
	callbackLaunchActivity discordgo.InteractionResponseType = 12
)

// codeEntryPointRemoved is Discord's error for a bulk overwrite of the
// global commands that leaves out the app's entry point command. Discord
// lists no such code in its documentation; the code is the one bots meet
// (and the issue of the live board names), the message as they report it.
const codeEntryPointRemoved = 50240

// EnableActivities does what switching Activities on in the developer
// portal does: the app may answer with LAUNCH_ACTIVITY, and has an entry
// point command, global, named Launch, with handler (Discord creates it
// with DISCORD_LAUNCH_ACTIVITY, 2; the app's owner may change it to
// APP_HANDLER, 1, so that the app hears it). A bulk overwrite of the
// global commands must keep that command (error 50240). It returns the
// command's id.
func (s *Server) EnableActivities(handler int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.activities = true
	c := &discordgo.ApplicationCommand{
		ID: s.NewID(), ApplicationID: s.AppID, Version: s.NewID(), Type: commandEntryPoint,
		Name: "launch", Description: "Launch an activity",
	}
	for _, e := range s.commands[""] {
		if e.cmd.Type == commandEntryPoint {
			return e.cmd.ID
		}
	}
	e, err := newEntry(c, handler)
	if err != nil {
		panic(err)
	}
	s.commands[""] = append(s.commands[""], e)
	s.broadcastLocked()
	return c.ID
}

// EntryPoint returns the app's entry point command as the API returns it,
// with its handler; ok is false if there is none.
func (s *Server) EntryPoint() (cmd *discordgo.ApplicationCommand, handler int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.commands[""] {
		if e.cmd.Type == commandEntryPoint {
			var c discordgo.ApplicationCommand
			if json.Unmarshal(e.raw, &c) != nil {
				return nil, 0, false
			}
			return &c, e.handler, true
		}
	}
	return nil, 0, false
}

// newEntry makes the entry of c as the API returns it, with the handler
// of an entry point command.
func newEntry(c *discordgo.ApplicationCommand, handler int) (commandEntry, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return commandEntry{}, err
	}
	if c.Type == commandEntryPoint {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return commandEntry{}, err
		}
		delete(m, "options") // only chat input commands have them
		m["handler"] = handler
		if raw, err = json.Marshal(m); err != nil {
			return commandEntry{}, err
		}
	}
	return commandEntry{cmd: c, raw: raw, handler: handler}, nil
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
	// The handler of an entry point command, which discordgo's type
	// lacks; the array decoded above, so this one decodes too.
	var handlers []struct {
		Handler *int `json:"handler"`
	}
	if err := json.Unmarshal(body, &handlers); err != nil || len(handlers) != len(cmds) {
		return badJSON
	}
	errs := validateCommands(cmds)
	s.mu.Lock()
	defer s.mu.Unlock()
	entryPoints := 0
	for i, c := range cmds {
		if c == nil {
			continue
		}
		p := strconv.Itoa(i)
		switch h := handlers[i].Handler; {
		case c.Type != commandEntryPoint:
			if h != nil {
				errs = append(errs, fieldError{p + ".handler", "APPLICATION_COMMAND_HANDLER_INVALID", "handler can only be set for PRIMARY_ENTRY_POINT commands"})
			}
			continue
		case h != nil && *h != handlerApp && *h != handlerDiscordLaunch:
			errs = append(errs, fieldError{p + ".handler", "BASE_TYPE_CHOICES", "Value must be one of {1, 2}."})
		}
		entryPoints++
		switch {
		case !s.activities:
			errs = append(errs, fieldError{p + ".type", "APPLICATION_COMMAND_TYPE_INVALID", "PRIMARY_ENTRY_POINT commands need Activities enabled"})
		case scope != "":
			errs = append(errs, fieldError{p + ".type", "APPLICATION_COMMAND_TYPE_INVALID", "PRIMARY_ENTRY_POINT commands can only be global"})
		case entryPoints > 1:
			errs = append(errs, fieldError{p + ".type", "APPLICATION_COMMAND_TOO_MANY_ENTRY_POINTS", "An application can only have one PRIMARY_ENTRY_POINT command"})
		}
	}
	if len(errs) > 0 {
		return formReply(errs)
	}
	if entryPoints == 0 {
		for _, e := range s.commands[scope] {
			if e.cmd.Type == commandEntryPoint {
				return errReply(http.StatusBadRequest, codeEntryPointRemoved,
					"You cannot remove this app's Entry Point command in a bulk update operation. Please include the Entry Point command in your update request or delete it separately.")
			}
		}
	}

	old := map[string]string{} // type/name → ID
	ids := map[string]bool{}
	for _, e := range s.commands[scope] {
		old[commandKey(e.cmd)] = e.cmd.ID
		ids[e.cmd.ID] = true
	}
	entries := make([]commandEntry, 0, len(cmds))
	out := make([]json.RawMessage, 0, len(cmds))
	for i, c := range cmds {
		if c.Type == 0 {
			c.Type = discordgo.ChatApplicationCommand
		}
		// An id of the scope names the command to update (it may be
		// renamed); else the type and name do.
		if !ids[c.ID] {
			c.ID = old[commandKey(c)]
		}
		if c.ID == "" {
			c.ID = s.NewID()
		}
		c.ApplicationID = s.AppID
		c.GuildID = scope
		c.Version = s.NewID()
		// An entry point sent without its handler gets Discord's
		// default, whatever it had: the bot must send back what it read.
		handler := 0
		if c.Type == commandEntryPoint {
			handler = handlerDiscordLaunch
			if h := handlers[i].Handler; h != nil {
				handler = *h
			}
		}
		e, err := newEntry(c, handler)
		if err != nil {
			return errReply(http.StatusInternalServerError, codeGeneral, "discordtest: "+err.Error())
		}
		entries = append(entries, e)
		out = append(out, e.raw)
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

// ErrDiscordLaunches means Send was given the entry point command of an
// app whose entry point has the handler DISCORD_LAUNCH_ACTIVITY: Discord
// launches the Activity itself, and the app hears nothing.
var ErrDiscordLaunches = errors.New("discordtest: the entry point's handler is DISCORD_LAUNCH_ACTIVITY; the app is not sent it")

// EntryPointCommand builds the interaction of member using the app's entry
// point command (PRIMARY_ENTRY_POINT) in the channel, from the App
// Launcher. Send checks that the app has one (EnableActivities), offered
// where the interaction takes place, and with the handler APP_HANDLER:
// only then does Discord send it to the app.
func (s *Server) EntryPointCommand(guildID, channelID string, member Member) *Interaction {
	in := s.SlashCommand(guildID, channelID, member, "")
	in.entryPoint = true
	return in
}

// entryPointDataLocked returns the data of the entry point command's
// interaction.
func (s *Server) entryPointDataLocked(in *Interaction) (map[string]any, error) {
	var e *commandEntry
	for i := range s.commands[""] {
		if s.commands[""][i].cmd.Type == commandEntryPoint {
			e = &s.commands[""][i]
		}
	}
	switch {
	case e == nil:
		return nil, fmt.Errorf("%w: the app has no entry point command", ErrUnknownCommand)
	case e.handler != handlerApp && !in.unchecked:
		return nil, ErrDiscordLaunches
	}
	if !in.unchecked {
		if err := usableIn(e.cmd, "", in); err != nil {
			return nil, err
		}
	}
	in.Name = e.cmd.Name
	return map[string]any{"id": e.cmd.ID, "name": e.cmd.Name, "type": int(commandEntryPoint)}, nil
}

// launchLocked takes a LAUNCH_ACTIVITY callback to st, with data: it
// opens the app's Activity for the user where the interaction happened,
// if the app has Activities enabled. It answers an application command,
// a component or a modal submit, and carries no data.
func (s *Server) launchLocked(st *interactionState, data json.RawMessage) reply {
	switch {
	case !s.activities:
		return formReply([]fieldError{{"type", "INTERACTION_CALLBACK_TYPE_INVALID",
			"Interaction callback type 12 is only available for applications with Activities enabled"}})
	case st.kind != discordgo.InteractionApplicationCommand && st.kind != discordgo.InteractionMessageComponent &&
		st.kind != discordgo.InteractionModalSubmit:
		return formReply([]fieldError{{"type", "INTERACTION_CALLBACK_TYPE_INVALID",
			fmt.Sprintf("Interaction callback type %d is not valid for interaction type %d", callbackLaunchActivity, st.kind)}})
	case len(data) > 0 && string(data) != "null":
		return formReply([]fieldError{{"data", "INTERACTION_CALLBACK_DATA_INVALID", "LAUNCH_ACTIVITY takes no data"}})
	}
	return noContent
}
