package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/coder/websocket"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
	"github.com/tttbot/tttbot/web"
)

// stillGames is a channel with no game, for the wiring of the live
// board; package web's tests play games.
type stillGames struct{}

func (stillGames) State(_ context.Context, v web.Viewer) (web.State, error) {
	return web.State{ChannelID: v.ChannelID, Status: "no game"}, nil
}

func (stillGames) Act(context.Context, web.Viewer, web.Action) (string, error) {
	return "no game", nil
}

func (stillGames) Watch(ctx context.Context, _ string) (<-chan web.Change, func(), error) {
	return make(chan web.Change), func() {}, nil
}

// TestLiveBoard: with WEB_ADDR and DISCORD_CLIENT_SECRET the bot serves
// the live board once ready: a page gets a session from Discord's word
// (the fake's) and a socket, which is told to come back at SIGTERM.
// (The bot's games and the store's key are the seams of web.go, set here
// to the test's.)
func TestLiveBoard(t *testing.T) {
	games, key := webGames, webKey
	t.Cleanup(func() { webGames, webKey = games, key })
	webGames = func(*bot.Bot) (liveGames, bool) { return stillGames{}, true }
	webKey = func(context.Context, any) ([]byte, error) { return bytes.Repeat([]byte{7}, 32), nil }

	srv := discordtest.NewServer("web-token")
	defer srv.Close()
	cfg := testConfig(t, map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL,
		"WEB_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": srv.ClientSecret()})
	b := serveReady(t, cfg)
	addr := logtest.ReadyAddr(t, b.logs.String(), "web")

	ann := &discordgo.User{ID: srv.NewID(), Username: "ann"}
	channel := srv.NewID()
	body, _ := json.Marshal(map[string]string{"code": srv.Authorize(ann, "en-US"), "instance_id": srv.StartActivity(channel, srv.NewID(), ann.ID)})
	resp, err := http.Post("http://"+addr+"/api/session", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var session struct {
		Session   string `json:"session"`
		ChannelID string `json:"channel_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&session)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || session.ChannelID != channel {
		t.Fatalf("POST /api/session: %d %+v %v", resp.StatusCode, session, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	hello, _ := json.Marshal(web.ClientMsg{Type: "hello", Session: session.Session})
	if err := c.Write(ctx, websocket.MessageText, hello); err != nil {
		t.Fatal(err)
	}
	if _, m, err := c.Read(ctx); err != nil || !strings.Contains(string(m), `"channel_id":"`+channel+`"`) {
		t.Fatalf("the first frame: %s, %v", m, err)
	}

	b.stop() // SIGTERM
	var last []byte
	for {
		_, m, err := c.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusGoingAway || !strings.Contains(string(last), "restarting") {
				t.Errorf("at SIGTERM the page got %s, then %v; want restarting and 1001", last, err)
			}
			break
		}
		last = m
	}
	if err := <-b.done; err != nil {
		t.Errorf("serve = %v", err)
	}
}
