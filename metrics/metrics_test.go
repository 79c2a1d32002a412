package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type fakeGateway struct{ up bool }

func (g fakeGateway) Connected() bool                 { return g.up }
func (g fakeGateway) HeartbeatLatency() time.Duration { return 42 * time.Millisecond }

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

// /readyz says why the bot is not ready; /healthz only that it runs.
func TestReadyz(t *testing.T) {
	var why error = errors.New("the gateway is not connected")
	m := New(Sources{Ready: func(context.Context) error { return why }})
	h := m.Handler()
	if code, body := get(t, h, "/readyz"); code != 503 || !strings.Contains(body, "the gateway is not connected") {
		t.Errorf("/readyz = %d %q; want 503 and the reason", code, body)
	}
	if code, _ := get(t, h, "/healthz"); code != 200 {
		t.Errorf("/healthz = %d; want 200", code)
	}
	why = nil
	if code, body := get(t, h, "/readyz"); code != 200 {
		t.Errorf("/readyz when ready = %d %q; want 200", code, body)
	}
	if code, _ := get(t, New(Sources{}).Handler(), "/readyz"); code != 503 {
		t.Errorf("/readyz with no Ready = %d; want 503", code)
	}
}

// What the sources say is read at each scrape; what the bot counts adds
// up.
func TestMetricsExposition(t *testing.T) {
	active, activeErr := 3, error(nil)
	var rateLimited uint64 = 2
	m := New(Sources{
		ActiveGames:  func(context.Context) (int, error) { return active, activeErr },
		Gateway:      fakeGateway{up: true},
		RateLimited:  func() uint64 { return rateLimited },
		Reconnects:   func() uint64 { return 1 },
		ServerErrors: func() uint64 { return 0 },
	})
	m.Interaction("move", "ok", 3*time.Millisecond)
	m.Interaction("move", "ok", 0) // no answer went out: not in the histogram
	m.Interaction("start", "refused", time.Millisecond)
	m.Moves(2)
	m.GameStarted()
	m.GameEnded("won")
	m.StoreCall("save", time.Millisecond, nil)
	m.StoreCall("save", time.Millisecond, errors.New("disk full"))
	_, body := get(t, m.Handler(), "/metrics")
	for _, want := range []string{
		`tttbot_interactions_total{kind="move",outcome="ok"} 2`,
		`tttbot_interactions_total{kind="start",outcome="refused"} 1`,
		`tttbot_answer_seconds_count 2`,
		`tttbot_moves_total 2`,
		`tttbot_games_started_total 1`,
		`tttbot_games_ended_total{result="won"} 1`,
		`tttbot_store_seconds_count{method="save"} 2`,
		`tttbot_store_errors_total{method="save"} 1`,
		`tttbot_active_games 3`,
		`tttbot_gateway_connected 1`,
		`tttbot_gateway_heartbeat_seconds 0.042`,
		`tttbot_gateway_reconnects_total 1`,
		`tttbot_rest_rate_limited_total 2`,
		`tttbot_rest_server_errors_total 0`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics has no line %q", want)
		}
	}
	active, activeErr, rateLimited = 0, errors.New("database down"), 5
	_, body = get(t, m.Handler(), "/metrics")
	for _, want := range []string{`tttbot_active_games -1`, `tttbot_rest_rate_limited_total 5`} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics after a change has no line %q", want)
		}
	}
}
