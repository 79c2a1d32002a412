// Package metrics is tttbot's window for operators: the Prometheus metrics
// of the bot, its store and its connection to Discord, and the HTTP server
// on METRICS_ADDR that serves them with /healthz and /readyz.
//
// Metrics counts as the bot's Meter (see bot.Meter); what it cannot count
// itself (active games, the gateway's state, REST faults) it reads from the
// Sources at scrape time.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Sources are what Metrics reads when it is scraped. Any may be nil.
type Sources struct {
	// ActiveGames counts the games not yet ended (store.CountRunning).
	ActiveGames func(ctx context.Context) (int, error)
	// Gateway is the gateway connection, when the bot has one (see also
	// WatchGateway).
	Gateway Gateway
	// Reconnects, RateLimited and ServerErrors count gateway reconnections
	// and REST answers 429 and 5xx (discord.Counters).
	Reconnects, RateLimited, ServerErrors func() uint64
	// Ready says whether the bot can answer: nil, or why not.
	Ready func(ctx context.Context) error
}

// Gateway is what Metrics reads of a gateway connection.
type Gateway interface {
	Connected() bool
	HeartbeatLatency() time.Duration
}

// Metrics holds the bot's metrics. Create it with New; it is safe for
// concurrent use, and each count costs a few atomic operations.
type Metrics struct {
	reg   *prometheus.Registry
	ready func(ctx context.Context) error

	interactions *prometheus.CounterVec
	answer       prometheus.Histogram
	moves        prometheus.Counter
	started      prometheus.Counter
	ended        *prometheus.CounterVec
	storeTime    *prometheus.HistogramVec
	storeErrors  *prometheus.CounterVec
}

// scrapeWithin bounds the store query behind tttbot_active_games.
const scrapeWithin = time.Second

// New returns metrics registered, with Go's and the process's own, in a
// registry of their own.
func New(src Sources) *Metrics {
	reg := prometheus.NewRegistry()
	f := factory{reg}
	m := &Metrics{
		reg:   reg,
		ready: src.Ready,
		interactions: f.counterVec("tttbot_interactions_total",
			"Interactions answered, by kind (subcommand or button) and outcome (ok, refused, error, duplicate).", "kind", "outcome"),
		answer: f.histogram("tttbot_answer_seconds",
			"Time from an interaction's arrival to its answer going out.",
			[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}),
		moves:   f.counter("tttbot_moves_total", "Moves played, by players and by the computer."),
		started: f.counter("tttbot_games_started_total", "Games started."),
		ended:   f.counterVec("tttbot_games_ended_total", "Games ended, by result (won, draw, decided, resigned, timeout, stopped).", "result"),
		storeTime: f.histogramVec("tttbot_store_seconds", "Time of store calls, by method.",
			[]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .5}, "method"),
		storeErrors: f.counterVec("tttbot_store_errors_total", "Store calls that failed, by method (lost races excluded).", "method"),
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if src.ActiveGames != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tttbot_active_games", Help: "Games not yet ended, in the whole database (-1 if it did not answer).",
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), scrapeWithin)
			defer cancel()
			n, err := src.ActiveGames(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	}
	if src.Gateway != nil {
		m.WatchGateway(src.Gateway)
	}
	for _, c := range []struct {
		name, help string
		get        func() uint64
	}{
		{"tttbot_gateway_reconnects_total", "Gateway connections re-established (resumed or identified again).", src.Reconnects},
		{"tttbot_rest_rate_limited_total", "REST answers 429 Too Many Requests.", src.RateLimited},
		{"tttbot_rest_server_errors_total", "REST answers 5xx.", src.ServerErrors},
	} {
		if c.get != nil {
			get := c.get
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: c.name, Help: c.help}, func() float64 { return float64(get()) }))
		}
	}
	return m
}

// WatchGateway adds the metrics of a gateway connection opened after New:
// whether it is connected and its heartbeat latency. Call it once.
func (m *Metrics) WatchGateway(g Gateway) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tttbot_gateway_connected", Help: "1 when every gateway shard of this process is connected."},
			func() float64 { return b2f(g.Connected()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tttbot_gateway_heartbeat_seconds", Help: "Gateway heartbeat latency, the worst of this process's shards."},
			func() float64 { return g.HeartbeatLatency().Seconds() }))
}

// Interaction counts one interaction (bot.Meter).
func (m *Metrics) Interaction(kind, outcome string, answer time.Duration) {
	m.interactions.WithLabelValues(kind, outcome).Inc()
	if answer > 0 {
		m.answer.Observe(answer.Seconds())
	}
}

// Moves counts moves played (bot.Meter).
func (m *Metrics) Moves(n int) { m.moves.Add(float64(n)) }

// GameStarted counts a game started (bot.Meter).
func (m *Metrics) GameStarted() { m.started.Inc() }

// GameEnded counts a game ended (bot.Meter).
func (m *Metrics) GameEnded(how string) { m.ended.WithLabelValues(how).Inc() }

// StoreCall counts one store call (a store.Observer).
func (m *Metrics) StoreCall(method string, took time.Duration, err error) {
	m.storeTime.WithLabelValues(method).Observe(took.Seconds())
	if err != nil {
		m.storeErrors.WithLabelValues(method).Inc()
	}
}

// Handler serves /healthz (the process answers: 200), /readyz (200 when
// Sources.Ready says so, else 503 with the reason) and /metrics.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		err := errors.New("not started")
		if m.ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), scrapeWithin)
			err = m.ready(ctx)
			cancel()
		}
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready: " + err.Error() + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	return mux
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// factory registers what it makes in reg.
type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

func (f factory) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}
