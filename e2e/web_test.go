package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/web"
)

// The live board's server in the real binary, on both transports: a
// player's page gets a session from the fake Discord's word (the OAuth2
// code, the user, the activity instance in the game's channel), and a
// tap on it is judged as a click would be: the computer answers, and the
// page sees both moves. Someone not in the activity gets no session.
func TestE2ELivePage(t *testing.T) {
	t.Parallel()
	env := map[string]string{"WEB_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": "replaced below"}
	bothTransports(t, env, func(t *testing.T, h *harness) {
		h.vars["DISCORD_CLIENT_SECRET"] = h.srv.ClientSecret() // the fake's, known once it runs
		h.restart()
		addr := h.listening("web")
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
		ch := h.srv.NewID()
		h.slash(alice, ch, "start", discordtest.Str("difficulty", "easy"))
		inst := h.srv.StartActivity(ch, h.guild, alice.User.ID)

		session := func(m discordtest.Member) (int, map[string]any) {
			body, _ := json.Marshal(map[string]string{"code": h.srv.Authorize(m.User, "en-US"), "instance_id": inst})
			resp, err := http.Post("http://"+addr+"/api/session", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&out)
			return resp.StatusCode, out
		}
		if st, out := session(bob); st != 403 || out["error"] != "not_in_instance" {
			t.Errorf("bob, not in the activity: %d %v", st, out)
		}
		st, out := session(alice)
		if st != 200 || out["channel_id"] != ch {
			t.Fatalf("alice's session: %d %v", st, out)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		send := func(m web.ClientMsg) {
			b, _ := json.Marshal(m)
			if err := c.Write(ctx, websocket.MessageText, b); err != nil {
				t.Fatal(err)
			}
		}
		next := func() web.ServerMsg {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("reading the page's socket: %v", err)
			}
			var m web.ServerMsg
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		send(web.ClientMsg{Type: "hello", Session: out["session"].(string)})
		m := next()
		if m.State == nil || !m.State.Running || m.State.You == "" || m.State.Turn != m.State.You {
			t.Fatalf("the first frame: %+v", m)
		}
		st0 := *m.State
		// The first empty cell.
		row, col := 0, 0
		for i, v := range st0.Cells {
			if v == "" {
				row, col = i/st0.Size+1, i%st0.Size+1
				break
			}
		}
		send(web.ClientMsg{Type: "move", Seq: 1, Row: row, Col: col, Version: st0.Version})
		// The result and the states come in either order: the state with
		// both moves may come before the tap's result.
		gotResult, last := false, &st0
		for !gotResult || len(last.Moves) < len(st0.Moves)+2 {
			m = next()
			switch m.Type {
			case "result":
				if !m.OK || m.Seq != 1 {
					t.Fatalf("the tap's result: %+v", m)
				}
				gotResult = true
			case "state":
				if m.State == nil {
					t.Fatalf("a state frame without a state: %+v", m)
				}
				last = m.State
			case "error":
				t.Fatalf("the tap: %+v", m)
			}
		}
		if v := last.Cells[(row-1)*st0.Size+col-1]; v != st0.You {
			t.Errorf("the tapped cell shows %q, want %q", v, st0.You)
		}
	})
}
