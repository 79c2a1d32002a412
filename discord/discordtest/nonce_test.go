package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postBody sends body as a message to channel as the bot and returns the
// answer's status and the message it names (its id "" if none).
func postBody(t *testing.T, srv *Server, channel, body string) (int, Message) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.APIURL+"/channels/"+channel+"/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+srv.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m Message
	if resp.StatusCode == http.StatusOK {
		var n struct{ Nonce string }
		if err := json.Unmarshal(raw, &m.Message); err != nil || json.Unmarshal(raw, &n) != nil {
			t.Fatalf("answer %s: %v", raw, err)
		}
		m.Nonce = n.Nonce
	}
	return resp.StatusCode, m
}

// A message sent with a nonce and enforce_nonce is created once within
// the window: a repeat, in any channel, is answered with it, as it is
// now, and records nothing new; a repeat after it was deleted gets
// Unknown Message; without enforce_nonce, or after the window, or with
// another nonce, a repeat makes a new message. A nonce longer than 25
// characters is refused.
func TestEnforceNonce(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	send := func(channel, nonce string, enforce bool) (int, Message) {
		t.Helper()
		return postBody(t, srv, channel, fmt.Sprintf(`{"content":"reminder","nonce":%q,"enforce_nonce":%v}`, nonce, enforce))
	}
	status, first := send("1", "r1", true)
	if status != http.StatusOK || first.Nonce != "r1" {
		t.Fatalf("the first send = %d, nonce %q; want 200 and the message with its nonce", status, first.Nonce)
	}
	for _, ch := range []string{"1", "2"} {
		if status, again := send(ch, "r1", true); status != http.StatusOK || again.ID != first.ID || again.ChannelID != "1" {
			t.Errorf("a repeat in channel %s = %d, message %s in %s; want the first, %s in 1", ch, status, again.ID, again.ChannelID, first.ID)
		}
	}
	if n, h := len(srv.Messages("1")), len(srv.History("2")); n != 1 || h != 0 {
		t.Errorf("channel 1 has %d messages, channel 2 %d; want 1 and none", n, h)
	}
	if _, other := send("1", "r2", true); other.ID == "" || other.ID == first.ID {
		t.Errorf("another nonce made message %q; want a new one", other.ID)
	}
	if _, loose := send("1", "r1", false); loose.ID == "" || loose.ID == first.ID {
		t.Errorf("a repeat without enforce_nonce made message %q; want a new one", loose.ID)
	}

	// An edit shows in the repeat's answer; a deletion refuses it.
	req, _ := http.NewRequest(http.MethodDelete, srv.APIURL+"/channels/1/messages/"+first.ID, nil)
	req.Header.Set("Authorization", "Bot "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE = %v, %v", resp, err)
	}
	resp.Body.Close()
	if status, _ := send("1", "r1", true); status != http.StatusNotFound {
		t.Errorf("a repeat after the deletion = %d; want 404 Unknown Message", status)
	}
	hist := srv.History("1")
	if len(hist) != 3 || !hist[0].Deleted || hist[0].ID != first.ID || hist[1].Deleted {
		t.Errorf("the history of channel 1 has %d messages (the first %s deleted %v); want the deleted first message, %s, then two more", len(hist), hist[0].ID, hist[0].Deleted, first.ID)
	}

	if status, _ := send("1", strings.Repeat("n", 26), true); status != http.StatusBadRequest {
		t.Errorf("a nonce of 26 characters = %d; want 400", status)
	}
	if status, m := postBody(t, srv, "3", `{"content":"x","nonce":1234567890,"enforce_nonce":true}`); status != http.StatusOK || m.Nonce != "1234567890" {
		t.Errorf("an integer nonce = %d, %q; want it taken as its digits", status, m.Nonce)
	}

	t.Run("window", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t)
		srv.NonceWindow = time.Nanosecond
		body := `{"content":"reminder","nonce":"r1","enforce_nonce":true}`
		_, a := postBody(t, srv, "1", body)
		_, b := postBody(t, srv, "1", body)
		if a.ID == "" || b.ID == "" || a.ID == b.ID {
			t.Errorf("two sends a window apart made %q and %q; want two messages", a.ID, b.ID)
		}
	})
}

// A lost answer: the request is carried out, and answered with a 5xx all
// the same, recorded as injected and lost. Repeated with its nonce, it
// gets the message it made.
func TestLoseNextAnswer(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.LoseNextAnswer(http.MethodPost, "/channels/", http.StatusInternalServerError)
	body := `{"content":"reminder","nonce":"r1","enforce_nonce":true}`
	if status, _ := postBody(t, srv, "1", body); status != http.StatusInternalServerError {
		t.Fatalf("the send whose answer is lost = %d; want 500", status)
	}
	msgs := srv.Messages("1")
	if len(msgs) != 1 {
		t.Fatalf("%d messages after a lost answer; want the one it made", len(msgs))
	}
	status, again := postBody(t, srv, "1", body)
	if status != http.StatusOK || again.ID != msgs[0].ID || len(srv.Messages("1")) != 1 {
		t.Errorf("the repeat = %d, %s; want the message made before, %s, and no other", status, again.ID, msgs[0].ID)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !reqs[0].Injected || !reqs[0].Lost || reqs[1].Injected {
		t.Errorf("requests %v; want the lost one injected and lost, the repeat not", reqs)
	}
	if got := srv.Rejected(); len(got) != 0 {
		t.Errorf("Rejected() = %v; want none", got)
	}

	// From a seed, a share of requests: each failed one made its message.
	srv.InjectFaults(Faults{Method: "POST", Seed: 3, LostAnswers: 0.5})
	failed := 0
	for i := range 40 {
		if status, _ := postBody(t, srv, "2", fmt.Sprintf(`{"content":"m%d"}`, i)); status == http.StatusInternalServerError {
			failed++
		}
	}
	if n := len(srv.Messages("2")); failed < 10 || failed > 30 || n != 40 {
		t.Errorf("%d of 40 answers lost, %d messages made; want about half lost, all 40 made", failed, n)
	}
}
