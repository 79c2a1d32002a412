package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store"
)

// A reminder, end to end: a server gives 10 minutes per move, and alice's
// turn is past its half when the bot comes back (her game's stored times
// moved 6 minutes back while it was down): she is reminded once, by a
// message to the channel (the server installed the bot, which reaches it)
// with the turn's nonce, that mentions her alone and says when her time
// runs out, and her move deletes it with the bot's token.
func TestE2EReminder(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		admin, alice, bob := h.manager("admin"), h.srv.NewMember("alice"), h.srv.NewMember("bob")
		wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 600)),
			"• ✏️ Time per move (`turn_timeout`): **10 minutes** (was 5 minutes)")
		ch := h.srv.NewID()
		board := h.challengeAccepted(ch, alice, bob)

		h.stop()
		deadline := movedBack(t, h.vars["DATABASE_URL"], ch, 6*time.Minute)
		h.launch()

		posted := func(r discordtest.Request) bool {
			return r.Method == http.MethodPost && r.Path == "/api/v9/channels/"+ch+"/messages" && r.Status == http.StatusOK
		}
		reqs, err := h.srv.WaitRequests(h.ctx, 1, posted)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			discordgo.MessageSend
			Flags        discordgo.MessageFlags `json:"flags"`
			Nonce        string                 `json:"nonce"`
			EnforceNonce bool                   `json:"enforce_nonce"`
		}
		var m discordgo.Message
		if err := json.Unmarshal(reqs[0].Body, &p); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(reqs[0].Reply, &m); err != nil || m.ID == "" {
			t.Fatalf("the reminder was answered %s: %v", reqs[0].Reply, err)
		}
		want := "⏰ " + mention(alice) + ", it's your move — your time runs out <t:" + deadline + ":R>."
		if p.Content != want || p.Flags&discordgo.MessageFlagsEphemeral != 0 ||
			p.AllowedMentions == nil || !slices.Equal(p.AllowedMentions.Users, []string{alice.User.ID}) || len(p.AllowedMentions.Parse) != 0 {
			t.Errorf("reminder %q (flags %d) allowing %+v; want %q, public, pinging alice alone", p.Content, p.Flags, p.AllowedMentions, want)
		}
		if p.Nonce == "" || !p.EnforceNonce {
			t.Errorf("reminder with nonce %q, enforce_nonce %v; want the turn's nonce, enforced", p.Nonce, p.EnforceNonce)
		}
		if err := h.logs.WaitFor(h.ctx, `msg="ping kept" channel=`+ch); err != nil {
			t.Fatal(err)
		}
		if msgs := h.srv.Messages(ch); !slices.ContainsFunc(msgs, func(x discordtest.Message) bool { return x.ID == m.ID }) {
			t.Errorf("the channel's messages %+v lack the reminder %s", msgs, m.ID)
		}

		wantBoard(t, h.click(alice, ch, board.ID, button(t, board, 1, 1, "")), discordgo.InteractionResponseUpdateMessage, mention(bob)+" to move")
		if _, err := h.srv.WaitRequests(h.ctx, 1, func(r discordtest.Request) bool {
			return r.Method == http.MethodDelete && r.Path == "/api/v9/channels/"+ch+"/messages/"+m.ID && r.Status == http.StatusNoContent
		}); err != nil {
			t.Errorf("the reminder was not deleted after alice's move: %v", err)
		}
		if msgs := h.srv.Messages(ch); len(msgs) != 1 || msgs[0].ID != board.ID {
			t.Errorf("the channel has %d messages after the move; want the board alone", len(msgs))
		}
		var n int
		for _, r := range h.srv.Requests() {
			if posted(r) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d reminders; want 1", n)
		}
	})
}

// A correspondence game's reminder whose answer Discord loses, end to
// end: the server gives a day per move, and alice's turn is a minute past
// its half when the bot comes back. Discord creates the reminder but
// answers its request with a 500; the bot tries again with the turn's
// nonce and enforce_nonce, and Discord answers with the message it made:
// alice is reminded once, and the reminder replaces her turn's ping as
// the one message of her turn.
func TestE2ECorrespondenceReminderOfALostAnswer(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	admin, alice, bob := h.manager("admin"), h.srv.NewMember("alice"), h.srv.NewMember("bob")
	wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 86400)),
		"• ✏️ Time per move (`turn_timeout`): **24 hours** (was 5 minutes)")
	ch := h.srv.NewID()
	h.challengeAccepted(ch, alice, bob)
	if err := h.logs.WaitFor(h.ctx, `msg="ping kept" channel=`+ch); err != nil {
		t.Fatal(err)
	}
	ping := h.srv.Messages(ch)[1]

	h.stop()
	st, err := store.OpenSQLite(h.vars["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.Current(h.ctx, ch)
	if err != nil || g == nil {
		t.Fatalf("Current(%s) = %v, %v", ch, g, err)
	}
	shiftBack(g, g.StartedAt.Sub(time.Now().Add(-12*time.Hour-time.Minute)))
	if err := st.Save(h.ctx, g); err != nil {
		t.Fatal(err)
	}
	st.Close()
	h.srv.LoseNextAnswer(http.MethodPost, "/channels/"+ch+"/messages", http.StatusInternalServerError)
	h.launch()

	if err := h.logs.WaitFor(h.ctx, `msg="a reminder of unknown outcome was tried again with its nonce" channel=`+ch); err != nil {
		t.Fatal(err)
	}
	var reminders []discordtest.Message
	for _, m := range h.srv.History(ch) {
		if strings.HasPrefix(m.Content, "⏰ ") {
			reminders = append(reminders, m)
		}
	}
	if len(reminders) != 1 || reminders[0].Deleted || reminders[0].Nonce == "" || !strings.Contains(reminders[0].Content, mention(alice)+", it's your move") {
		t.Fatalf("the channel got %d reminders %+v; want one for alice, with a nonce, kept", len(reminders), reminders)
	}
	if err := h.logs.WaitFor(h.ctx, `msg="ping kept" channel=`+ch+" ping="+reminders[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.srv.WaitRequests(h.ctx, 1, deleted(ch, ping.ID)); err != nil {
		t.Errorf("alice's ping was not deleted once her reminder was kept: %v", err)
	}
	var posts []discordtest.Request
	for _, r := range h.srv.Requests() {
		if r.Method == http.MethodPost && r.Path == "/api/v9/channels/"+ch+"/messages" {
			posts = append(posts, r)
		}
	}
	var p struct {
		Nonce        string
		EnforceNonce bool `json:"enforce_nonce"`
	}
	if len(posts) != 3 || !posts[1].Lost || json.Unmarshal(posts[2].Body, &p) != nil || p.Nonce != reminders[0].Nonce || !p.EnforceNonce {
		t.Errorf("posts to the channel %v; want the ping, the reminder whose answer was lost, and its second try with the same nonce, enforced", posts)
	}
}

// movedBack moves every time of the channel's game back by d, as if d
// had passed, and returns its deadline as a Unix time.
func movedBack(t *testing.T, dbPath, channel string, d time.Duration) string {
	t.Helper()
	st, err := store.OpenSQLite(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	g, err := st.Current(ctx, channel)
	if err != nil || g == nil || !g.Running() {
		t.Fatalf("Current(%s) = %+v, %v; want a running game", channel, g, err)
	}
	shiftBack(g, d)
	if err := st.Save(ctx, g); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(g.Deadline.Unix(), 10)
}

// Reminders under a busy Discord, the experiment of issue 25 in small
// form: N games (TTT_REMINDER_STORM=N; skipped without it) whose
// reminders fall due within 5 s of the bot's start, their turns ending
// about 30 s later, while Discord answers 30% of writes with a 429
// (retry_after 1 s, from the seed TTT_REMINDER_SEED, default 1). With
// TTT_REMINDER_FAULT=500, 30% 500s instead, answered without carrying
// the request out; with TTT_REMINDER_FAULT=lost, 30% of creates answered
// with a 500 after they were carried out (the answer lost); with
// TTT_REMINDER_FAULT=latency,
// every write answered after 500 ms.
//
// The games have one-minute turns; with TTT_REMINDER_ROUTE=channel, they
// are correspondence games (a day per move, moved so that their
// reminders are due at the start and their turns end 40 to 45 s later).
// Either way the server installed the bot, which reaches the channels:
// the reminders go to them with the turn's nonce (a follow-up, which
// takes no nonce and so goes at most once under 5xx, is only for where
// the bot cannot reach the channel, which this test does not drive).
//
// Every timed-out board is updated, no request ignores a rate limit, no
// player is reminded twice, and every reminder goes once and is deleted
// when its turn times out. Counted at the fake Discord, from every
// message each channel got.
func TestE2ERemindersUnderRateLimits(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TTT_REMINDER_STORM"))
	if n <= 0 {
		t.Skip("set TTT_REMINDER_STORM=N to run N reminders through 30% 429s")
	}
	seed, _ := strconv.ParseInt(os.Getenv("TTT_REMINDER_SEED"), 10, 64)
	if seed == 0 {
		seed = 1
	}
	inChannel := os.Getenv("TTT_REMINDER_ROUTE") == "channel"
	h := startBot(t, map[string]string{"LOG_LEVEL": "info"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	h.ctx = ctx
	admin := h.manager("admin")
	if inChannel {
		wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 86400)),
			"• ✏️ Time per move (`turn_timeout`): **24 hours** (was 5 minutes)")
	} else {
		wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 60)),
			"• ✏️ Time per move (`turn_timeout`): **1 minute** (was 5 minutes)")
	}
	channels := make([]string, n)
	boards := map[string]string{} // channel → board message
	for i := range channels {
		channels[i] = h.srv.NewID()
		boards[channels[i]] = h.challengeAccepted(channels[i], h.srv.NewMember("a"), h.srv.NewMember("b")).ID
	}
	if inChannel {
		for _, ch := range channels { // the turn's ping, which the reminder replaces
			if _, err := h.srv.WaitMessages(ctx, ch, 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	h.stop()

	// One-minute turns: each started 30 s less up to 5 s ago, so that its
	// reminder is due within 5 s, its deadline 30 s later. A day's: each
	// ends 40 to 45 s from now, its reminder due since half a day.
	st, err := store.OpenSQLite(h.vars["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, ch := range channels {
		g, err := st.Current(ctx, ch)
		if err != nil || g == nil {
			t.Fatalf("Current(%s) = %v, %v", ch, g, err)
		}
		spread := time.Duration(i) * 5 * time.Second / time.Duration(n)
		if inChannel {
			shiftBack(g, g.Deadline.Sub(now.Add(40*time.Second+spread)))
		} else {
			shiftBack(g, g.StartedAt.Sub(now.Add(-30*time.Second+spread)))
		}
		if err := st.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	faults := discordtest.Faults{Method: "WRITE", Seed: seed, RateLimited: 0.3, RetryAfter: time.Second}
	switch os.Getenv("TTT_REMINDER_FAULT") {
	case "500":
		faults = discordtest.Faults{Method: "WRITE", Seed: seed, ServerErrors: 0.3}
	case "lost":
		// Of creates alone: a lost DELETE's retry meets Unknown Message,
		// which the bot takes for done, but the fake counts as rejected.
		faults = discordtest.Faults{Method: http.MethodPost, Seed: seed, LostAnswers: 0.3}
	case "latency":
		faults = discordtest.Faults{Method: "WRITE", Latency: 500 * time.Millisecond}
	}
	h.srv.InjectFaults(faults)
	launched := time.Now()
	h.launch()

	// Waits until every game timed out and the bot has been quiet on
	// Discord for 5 s (its retries done).
	type tally struct{ sent, reminders, deleted, boards, dup, limited, ignored, server int }
	count := func() (tl tally, last time.Time) {
		for _, r := range h.srv.Requests() {
			if r.Time.Before(launched) {
				continue
			}
			if r.Time.After(last) {
				last = r.Time
			}
			switch {
			case r.Status == http.StatusTooManyRequests && r.Injected:
				tl.limited++
			case r.Status >= 500 && r.Injected:
				tl.server++
			}
		}
		for _, ch := range channels {
			k := 0
			for _, m := range h.srv.History(ch) {
				if !strings.HasPrefix(m.Content, "⏰ ") {
					continue
				}
				k++
				if m.Deleted {
					tl.deleted++
				}
			}
			tl.reminders += k
			if k > 0 {
				tl.sent++
				tl.dup += k - 1
			}
			if b, ok := h.srv.Message(ch, boards[ch]); ok && strings.Contains(b.Content, "did not move in time") {
				tl.boards++
			}
		}
		for _, r := range h.srv.RateLimitsIgnored() { // not those sent before the 429 was written
			if !r.Time.Before(launched) {
				tl.ignored++
			}
		}
		return tl, last
	}
	var tl tally
	for {
		var last time.Time
		tl, last = count()
		if tl.boards == n && tl.deleted == tl.reminders && time.Since(last) > 5*time.Second || ctx.Err() != nil {
			break
		}
		if time.Since(launched) > 3*time.Minute && time.Since(last) > 15*time.Second {
			break // nothing more is coming
		}
		time.Sleep(time.Second)
	}
	route := "one-minute turns' channel messages with nonces"
	if inChannel {
		route = "correspondence games' channel messages with nonces"
	}
	t.Logf("%d reminders as %s (%+v): %d players reminded (%d twice or more), %d lost; %d of %d reminders deleted; %d timed-out boards updated; %d injected 429s, %d injected 5xx; %d requests ignored a rate limit",
		n, route, faults, tl.sent, tl.dup, n-tl.sent, tl.deleted, tl.reminders, tl.boards, tl.limited, tl.server, tl.ignored)
	if tl.dup != 0 || tl.boards != n || tl.ignored != 0 {
		var stale []string
		for _, ch := range channels {
			if b, ok := h.srv.Message(ch, boards[ch]); !ok || !strings.Contains(b.Content, "did not move in time") {
				stale = append(stale, ch+"/"+boards[ch])
			}
		}
		t.Errorf("want no player reminded twice, all %d boards updated (not: %v), no rate limit ignored", n, stale)
	}
	if tl.sent != n || tl.deleted != n {
		t.Errorf("want all %d reminders sent once and deleted", n)
	}
}
