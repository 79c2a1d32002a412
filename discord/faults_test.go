package discord_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// After each gateway fault the bot reconnects by itself, logs what happened
// in one line from the loss and one from the recovery, counts one
// reconnect, and answers the next interaction within the 3 s.
func TestGatewayFaults(t *testing.T) {
	tests := []struct {
		name      string
		heartbeat time.Duration // Hello's heartbeat_interval; 0 for the default
		fault     func(*discordtest.Server)
		resumed   bool // else re-identified
		lost      bool // a "connection lost" line
	}{
		{"connection dropped", 0, (*discordtest.Server).DropConnections, true, true},
		{"Reconnect (op 7)", 0, (*discordtest.Server).Reconnect, true, true},
		{"Invalid Session resumable", 0, func(s *discordtest.Server) { s.InvalidateSessions(true) }, false, false},
		{"Invalid Session not resumable", 0, func(s *discordtest.Server) { s.InvalidateSessions(false) }, false, false},
		{"connection dropped, session expired", 0, func(s *discordtest.Server) {
			s.ExpireSessions()
			s.DropConnections()
		}, false, true},
		// discordgo gives up after 5 intervals without an acknowledgement.
		{"heartbeats not acknowledged", 200 * time.Millisecond, (*discordtest.Server).StopHeartbeatACKs, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, func(s *discordtest.Server) {
				if tt.heartbeat > 0 {
					s.HeartbeatInterval = tt.heartbeat
				}
			})
			p := r.start(t, discord.Options{})
			r.answered(t, r.guild)

			tt.fault(r.srv)
			line := "gateway re-identified"
			if tt.resumed {
				line = "gateway resumed"
			}
			p.logs.wait(t, r.ctx, line, "shard=0")
			if tt.lost {
				p.logs.wait(t, r.ctx, "gateway connection lost; reconnecting", "shard=0")
			}
			if err := r.srv.WaitReady(r.ctx); err != nil {
				t.Fatalf("WaitReady() = %v", err)
			}
			r.answered(t, r.guild)

			wantResumes, wantIdentifies := 0, 2
			if tt.resumed {
				wantResumes, wantIdentifies = 1, 1
			}
			if got, ids := r.srv.Resumes(), accepted(r.srv.Identifies()); got != wantResumes || ids != wantIdentifies {
				t.Errorf("Resumes() = %d, accepted identifies = %d; want %d, %d", got, ids, wantResumes, wantIdentifies)
			}
			if got := p.counters.Reconnects.Load(); got != 1 {
				t.Errorf("Counters.Reconnects = %d; want 1", got)
			}
			// One line each, from us; discordgo's own say the same at debug.
			for _, msg := range []string{"gateway connection lost", "gateway resumed", "gateway re-identified"} {
				want := 0
				switch {
				case msg == "gateway connection lost" && tt.lost,
					msg == line:
					want = 1
				}
				if got := p.logs.lines(`msg="` + msg); len(got) != want {
					t.Errorf("log lines %q: %d; want %d:\n%s", msg, len(got), want, p.logs)
				}
			}
			if loud := loudDiscordgo(p.logs); len(loud) > 0 {
				t.Errorf("discordgo logged above debug what our lines say: %q", loud)
			}
			if rej := r.srv.Rejected(); len(rej) > 0 {
				t.Errorf("Rejected() = %v; want none", rej)
			}
		})
	}
}

func accepted(ids []discordtest.Identify) int {
	n := 0
	for _, id := range ids {
		if id.CloseCode == 0 {
			n++
		}
	}
	return n
}

// loudDiscordgo returns discordgo's own log lines that our lines replace
// but that were logged above debug. discordgo has one logger for the whole
// process, which may be another test's: this sees only the lines that came
// here.
func loudDiscordgo(l *logs) []string {
	var out []string
	for _, line := range l.lines("source=discordgo") {
		if strings.Contains(line, "level=DEBUG") {
			continue
		}
		for _, q := range []string{"error reading from gateway", "Expected READY/RESUMED", "error closing session connection"} {
			if strings.Contains(line, q) {
				out = append(out, line)
			}
		}
	}
	return out
}

// REST faults on the interaction callback: the bot answers when Discord
// lets it within the 3 s, gives up at once when it cannot, logs one line
// per fault, counts it, and answers the next interaction.
func TestRESTFaults(t *testing.T) {
	tests := []struct {
		name     string
		fault    func(*discordtest.Server)
		answered bool     // the faulty interaction gets its answer, else the bot logs a failure
		line     []string // in our log line
		limited  uint64   // Counters.RateLimited
		server   uint64   // Counters.ServerErrors
	}{
		{"429 global, short", func(s *discordtest.Server) {
			s.FailNextGlobal("POST", "/interactions/", 100*time.Millisecond)
		}, true, []string{`msg="REST rate limited"`, "global=true", "retry_after=100ms", "route=/interactions/:id/:token/callback"}, 1, 0},
		{"429 per route, short", func(s *discordtest.Server) {
			s.FailNext("POST", "/interactions/", http.StatusTooManyRequests, "", 200*time.Millisecond)
		}, true, []string{`msg="REST rate limited"`, "global=false", "scope=user", "retry_after=200ms"}, 1, 0},
		{"429 per route, too long", func(s *discordtest.Server) {
			s.FailNext("POST", "/interactions/", http.StatusTooManyRequests, "", time.Minute)
		}, false, []string{`msg="REST rate limited"`, "global=false", "retry_after=1m0s", "route=/interactions/:id/:token/callback"}, 1, 0},
		{"500, once", func(s *discordtest.Server) {
			s.FailNext("POST", "/interactions/", http.StatusInternalServerError, "", 0)
		}, true, []string{`msg="REST server error"`, "status=500", "route=/interactions/:id/:token/callback"}, 0, 1},
		{"503, once", func(s *discordtest.Server) {
			s.FailNext("POST", "/interactions/", http.StatusServiceUnavailable, "", 0)
		}, true, []string{`msg="REST server error"`, "status=503"}, 0, 1},
		{"503, twice", func(s *discordtest.Server) {
			s.FailNext("POST", "/interactions/", http.StatusServiceUnavailable, "", 0)
			s.FailNext("POST", "/interactions/", http.StatusServiceUnavailable, "", 0)
		}, false, []string{`msg="REST server error"`, "status=503"}, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil)
			p := r.start(t, discord.Options{})
			tt.fault(r.srv)
			in := r.help(t, r.guild)
			// The handler must be done before Discord's deadline: a
			// handler that sleeps out a long retry_after answers too late.
			select {
			case id := <-p.handled:
				if id != in.ID {
					t.Fatalf("handled %s; want %s", id, in.ID)
				}
			case <-time.After(discordtest.DefaultAckDeadline):
				t.Fatal("the bot was still handling the interaction at Discord's deadline")
			}
			_, err := in.Response(r.ctx)
			if tt.answered && err != nil {
				t.Errorf("Response() = %v; want the answer, retried", err)
			}
			if !tt.answered && err != nil && !errors.Is(err, discordtest.ErrInteractionFailed) {
				// The bot may try again to say something went wrong.
				t.Errorf("Response() = %v; want an answer or ErrInteractionFailed", err)
			}
			// One line per faulty response.
			if got, want := len(p.logs.lines(tt.line...)), int(tt.limited+tt.server); got != want {
				t.Errorf("log lines with %q: %d; want %d:\n%s", tt.line, got, want, p.logs)
			}
			if !tt.answered && len(p.logs.lines(`msg="interaction failed"`)) != 1 {
				t.Errorf("the bot did not log that the interaction failed:\n%s", p.logs)
			}
			if strings.Contains(p.logs.String(), in.Token) {
				t.Errorf("the log holds the interaction token:\n%s", p.logs)
			}
			if got, want := [2]uint64{p.counters.RateLimited.Load(), p.counters.ServerErrors.Load()}, [2]uint64{tt.limited, tt.server}; got != want {
				t.Errorf("Counters RateLimited, ServerErrors = %v; want %v", got, want)
			}
			r.answered(t, r.guild)
			if rej := r.srv.Rejected(); len(rej) > 0 {
				t.Errorf("Rejected() = %v; want none", rej)
			}
		})
	}
}

// discordgo's own calls go through the same HTTP client: their 5xx and
// 429 are counted too, and discordgo retries them.
func TestCountersSeeDiscordgoCalls(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	p := r.start(t, discord.Options{})
	r.srv.FailNext("PUT", "/applications/", http.StatusBadGateway, "", 0)
	r.srv.FailNext("PUT", "/applications/", http.StatusTooManyRequests, "", 10*time.Millisecond)
	if err := p.bot.Register(r.ctx, p.gw.Ready().AppID); err != nil {
		t.Fatalf("Register() after a 502 and a 429 = %v; want discordgo's retries to succeed", err)
	}
	if got, want := [2]uint64{p.counters.RateLimited.Load(), p.counters.ServerErrors.Load()}, [2]uint64{1, 1}; got != want {
		t.Errorf("Counters RateLimited, ServerErrors = %v; want %v", got, want)
	}
	if got := p.logs.lines(`msg="REST server error"`, "route=/applications/:id/commands", "status=502"); len(got) != 1 {
		t.Errorf("log lines for the 502: %q; want 1:\n%s", got, p.logs)
	}
}
