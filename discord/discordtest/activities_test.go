package discordtest

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// The constants the fake names for what discordgo lacks are Discord's
// documented values: PRIMARY_ENTRY_POINT 4, APP_HANDLER 1,
// DISCORD_LAUNCH_ACTIVITY 2 (developers/interactions/
// application-commands.mdx), LAUNCH_ACTIVITY 12 (developers/interactions/
// receiving-and-responding.mdx), in github.com/discord/discord-api-docs.
func TestActivityValuesAreDiscords(t *testing.T) {
	if commandEntryPoint != 4 || handlerApp != 1 || handlerDiscordLaunch != 2 || callbackLaunchActivity != 12 {
		t.Errorf("PRIMARY_ENTRY_POINT %d, APP_HANDLER %d, DISCORD_LAUNCH_ACTIVITY %d, LAUNCH_ACTIVITY %d; want 4, 1, 2, 12",
			commandEntryPoint, handlerApp, handlerDiscordLaunch, callbackLaunchActivity)
	}
}

// putGlobal bulk-overwrites the global commands with cmds, JSON objects
// (discordgo's type lacks the entry point's handler).
func putGlobal(s *discordgo.Session, srv *Server, cmds ...map[string]any) error {
	u := discordgo.EndpointApplicationGlobalCommands(srv.AppID)
	if cmds == nil {
		cmds = []map[string]any{}
	}
	_, err := s.RequestWithBucketID(http.MethodPut, u, cmds, u)
	return err
}

func tttJSON(t *testing.T) map[string]any {
	t.Helper()
	b, err := json.Marshal(tttCommands()[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// An app with Activities enabled has an entry point command, global,
// with Discord's default handler. A bulk overwrite of the global commands
// that leaves it out is refused with 50240 and changes nothing; one that
// keeps it (by id, or by type and name) keeps its id and takes its
// handler, Discord's default if left out. An entry point in a guild, two
// of them, one without Activities, or a handler on a chat input command
// are refused.
func TestEntryPointKeptByBulkOverwrite(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, "Bot "+testToken)
	entry := func(extra map[string]any) map[string]any {
		m := map[string]any{"type": 4, "name": "launch", "description": "Launch an activity"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	wantAPIError(t, putGlobal(s, srv, tttJSON(t), entry(nil)), http.StatusBadRequest, codeInvalidFormBody)
	if err := putGlobal(s, srv, tttJSON(t)); err != nil {
		t.Fatalf("overwrite without Activities = %v", err)
	}

	id := srv.EnableActivities(handlerDiscordLaunch)
	if c, h, ok := srv.EntryPoint(); !ok || c.ID != id || c.Type != commandEntryPoint || c.Name != "launch" || h != handlerDiscordLaunch {
		t.Fatalf("EntryPoint() = %+v, %d, %v; want launch (type 4, handler 2) with id %s", c, h, ok, id)
	}
	if n := len(srv.Commands("")); n != 2 {
		t.Fatalf("%d global commands; want /ttt and the entry point", n)
	}

	wantAPIError(t, putGlobal(s, srv, tttJSON(t)), http.StatusBadRequest, codeEntryPointRemoved)
	wantAPIError(t, putGlobal(s, srv), http.StatusBadRequest, codeEntryPointRemoved)
	if _, _, ok := srv.EntryPoint(); !ok || len(srv.Commands("")) != 2 {
		t.Fatalf("a refused overwrite changed the commands: %v", srv.Commands(""))
	}

	// Kept by id, renamed, with APP_HANDLER.
	if err := putGlobal(s, srv, tttJSON(t), entry(map[string]any{"id": id, "name": "board", "handler": handlerApp})); err != nil {
		t.Fatalf("overwrite keeping the entry point = %v", err)
	}
	if c, h, ok := srv.EntryPoint(); !ok || c.ID != id || c.Name != "board" || h != handlerApp {
		t.Errorf("EntryPoint() = %+v, %d, %v; want board, id %s, handler 1", c, h, ok, id)
	}
	// Kept by type and name, its handler left out: Discord's default.
	if err := putGlobal(s, srv, entry(map[string]any{"name": "board"}), tttJSON(t)); err != nil {
		t.Fatalf("overwrite keeping the entry point without its handler = %v", err)
	}
	if c, h, ok := srv.EntryPoint(); !ok || c.ID != id || h != handlerDiscordLaunch {
		t.Errorf("EntryPoint() = %+v, %d, %v; want id %s, handler 2", c, h, ok, id)
	}

	guild := srv.NewID()
	u := discordgo.EndpointApplicationGuildCommands(srv.AppID, guild)
	_, err := s.RequestWithBucketID(http.MethodPut, u, []map[string]any{entry(nil)}, u)
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	wantAPIError(t, putGlobal(s, srv, entry(nil), entry(map[string]any{"name": "other"})), http.StatusBadRequest, codeInvalidFormBody)
	wantAPIError(t, putGlobal(s, srv, entry(map[string]any{"handler": 3})), http.StatusBadRequest, codeInvalidFormBody)
	wantAPIError(t, putGlobal(s, srv, entry(map[string]any{"options": []any{map[string]any{"type": 1, "name": "x", "description": "x"}}})),
		http.StatusBadRequest, codeInvalidFormBody)
	ttt := tttJSON(t)
	ttt["handler"] = handlerApp
	wantAPIError(t, putGlobal(s, srv, ttt, entry(nil)), http.StatusBadRequest, codeInvalidFormBody)

	// The commands read back carry the entry point's handler.
	body, err := s.RequestWithBucketID(http.MethodGet, discordgo.EndpointApplicationGlobalCommands(srv.AppID), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var read []struct {
		Type    int  `json:"type"`
		Handler *int `json:"handler"`
	}
	if err := json.Unmarshal(body, &read); err != nil {
		t.Fatal(err)
	}
	for _, c := range read {
		if (c.Type == 4) != (c.Handler != nil) {
			t.Errorf("GET commands: type %d with handler %v; want a handler on the entry point alone", c.Type, c.Handler)
		}
	}
}

// LAUNCH_ACTIVITY answers a click and the entry point command of an app
// with Activities, without data; it is refused without Activities, with
// data, and for an autocomplete. The entry point command reaches the app
// only with APP_HANDLER.
func TestLaunchActivityCallback(t *testing.T) {
	t.Parallel()
	launch := func(b *bot, i *discordgo.InteractionCreate) error {
		return b.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{Type: callbackLaunchActivity})
	}

	g := newGame(t, func(s *Server) { s.EnableActivities(handlerApp) })
	msg := g.start(t)
	click := g.srv.Click(g.guild, g.channel, g.bob, msg.ID, "cell/1/1")
	i := g.send(t, click)
	if err := g.bot.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{Type: callbackLaunchActivity,
		Data: &discordgo.InteractionResponseData{Content: "hello"}}); err == nil {
		t.Error("LAUNCH_ACTIVITY with data was taken")
	}
	if err := launch(g.bot, i); err != nil {
		t.Fatalf("LAUNCH_ACTIVITY for a click = %v", err)
	}
	if r, err := click.Response(g.ctx); err != nil || r.Type != callbackLaunchActivity || r.Message.ID != "" {
		t.Errorf("Response() = %+v, %v; want LAUNCH_ACTIVITY and no message", r, err)
	}

	entry := g.srv.EntryPointCommand(g.guild, g.channel, g.alice)
	i = g.send(t, entry)
	if d := i.ApplicationCommandData(); d.CommandType != commandEntryPoint || d.Name != "launch" || d.ID == "" {
		t.Errorf("entry point command data %+v; want the command launch of type 4", d)
	}
	if err := launch(g.bot, i); err != nil {
		t.Fatalf("LAUNCH_ACTIVITY for the entry point = %v", err)
	}
	if r, err := entry.Response(g.ctx); err != nil || r.Type != callbackLaunchActivity {
		t.Errorf("Response() = %+v, %v; want LAUNCH_ACTIVITY", r, err)
	}

	plain := newGame(t, nil)
	msg = plain.start(t)
	i = plain.send(t, plain.srv.Click(plain.guild, plain.channel, plain.bob, msg.ID, "cell/1/1"))
	wantAPIError(t, launch(plain.bot, i), http.StatusBadRequest, codeInvalidFormBody)
	if err := plain.srv.Send(plain.ctx, plain.srv.EntryPointCommand(plain.guild, plain.channel, plain.alice)); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("Send(entry point) without Activities = %v; want ErrUnknownCommand", err)
	}

	byDiscord := newGame(t, func(s *Server) { s.EnableActivities(handlerDiscordLaunch) })
	if err := byDiscord.srv.Send(byDiscord.ctx, byDiscord.srv.EntryPointCommand(byDiscord.guild, byDiscord.channel, byDiscord.alice)); !errors.Is(err, ErrDiscordLaunches) {
		t.Errorf("Send(entry point) with DISCORD_LAUNCH_ACTIVITY = %v; want ErrDiscordLaunches", err)
	}
}
