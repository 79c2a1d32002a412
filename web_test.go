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
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
	"github.com/tttbot/tttbot/web"
)

// TestLiveBoard: with WEB_ADDR and DISCORD_CLIENT_SECRET the bot serves
// the live board once ready: a page gets a session from Discord's word
// (the fake's) and a socket, which is told to come back at SIGTERM.
// The bot's live board, the store's key and the page are the real ones.
func TestLiveBoard(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer("web-token")
	defer srv.Close()
	cfg := testConfig(t, map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL,
		"WEB_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": srv.ClientSecret()})
	b := serveReady(t, cfg)
	addr := logtest.ReadyAddr(t, b.logs.String(), "web")
	if code, body := get(t, "http://"+addr+"/"); code != 200 || !strings.Contains(body, "<html") {
		t.Errorf("GET /: %d %.80q", code, body)
	}

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
