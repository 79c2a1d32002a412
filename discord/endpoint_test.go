package discord

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

var endpointNow = time.Unix(1_767_225_600, 0)

func newTestEndpoint(t testing.TB) (*Endpoint, ed25519.PrivateKey, *httptest.Server) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEndpoint(hex.EncodeToString(pub), slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return endpointNow })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return e, priv, srv
}

func post(t *testing.T, url string, body []byte, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const slashBody = `{"id":"1100000000000000001","application_id":"1","type":2,"token":"tok","version":1,
	"channel_id":"2","guild_id":"3","member":{"user":{"id":"4","username":"a"}},
	"data":{"id":"5","name":"ttt","type":1,"options":[{"type":1,"name":"help"}]}}`

// Every request that Discord did not sign, or signed too long ago, is 401
// before anything else happens; a body too large is 413, a GET 405.
func TestEndpointRefusesUnsignedRequests(t *testing.T) {
	e, key, srv := newTestEndpoint(t)
	handled := make(chan struct{}, 10)
	e.Handle(func(i *discordgo.Interaction, r Responder) { handled <- struct{}{} })
	body := []byte(slashBody)
	good := Sign(key, body, endpointNow)
	_, otherKey, _ := ed25519.GenerateKey(nil)
	with := func(k, v string) http.Header {
		h := good.Clone()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	for _, tt := range []struct {
		name   string
		body   []byte
		header http.Header
		want   int
	}{
		{"no signature", body, with("X-Signature-Ed25519", ""), 401},
		{"no timestamp", body, with("X-Signature-Timestamp", ""), 401},
		{"signature not hex", body, with("X-Signature-Ed25519", "zz"+good.Get("X-Signature-Ed25519")[2:]), 401},
		{"signature too short", body, with("X-Signature-Ed25519", good.Get("X-Signature-Ed25519")[:64]), 401},
		{"timestamp not a number", body, with("X-Signature-Timestamp", "yesterday"), 401},
		{"other key", body, Sign(otherKey, body, endpointNow), 401},
		{"body changed", append([]byte(" "), body...), good, 401},
		{"timestamp changed", body, with("X-Signature-Timestamp", "1767225601"), 401},
		{"signed 6 minutes ago", body, Sign(key, body, endpointNow.Add(-6*time.Minute)), 401},
		{"signed 6 minutes ahead", body, Sign(key, body, endpointNow.Add(6*time.Minute)), 401},
		{"too large", bytes.Repeat([]byte("x"), MaxBody+1), Sign(key, bytes.Repeat([]byte("x"), MaxBody+1), endpointNow), 413},
		{"signed, not JSON", []byte("{"), Sign(key, []byte("{"), endpointNow), 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, body := post(t, srv.URL, tt.body, tt.header); got != tt.want {
				t.Errorf("status %d (%s); want %d", got, body, tt.want)
			}
		})
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: status %d, Allow %q; want 405, POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if len(handled) != 0 {
		t.Errorf("%d refused requests reached the handler", len(handled))
	}
	// Within five minutes either way is fine.
	if got, body := post(t, srv.URL, body, Sign(key, body, endpointNow.Add(-4*time.Minute))); got != 500 && got != 200 {
		t.Errorf("signed 4 minutes ago: status %d (%s); want it handled", got, body)
	}
}

// A PING is answered {"type":1}; an interaction with its handler's answer.
func TestEndpointAnswers(t *testing.T) {
	e, key, srv := newTestEndpoint(t)
	ping := []byte(`{"id":"1","application_id":"1","type":1,"token":"t","version":1}`)
	if got, body := post(t, srv.URL, ping, Sign(key, ping, endpointNow)); got != 200 || body != `{"type":1}` {
		t.Errorf("PING: %d %s; want 200 {\"type\":1}", got, body)
	}

	body := []byte(slashBody)
	// Before the bot is ready: a plain answer, not a failure.
	if got, resp := post(t, srv.URL, body, Sign(key, body, endpointNow)); got != 200 || !strings.Contains(resp, "starting up") {
		t.Errorf("before Handle: %d %s; want 200 and a starting-up answer", got, resp)
	}
	// An autocomplete takes no message: no choices.
	auto := []byte(strings.Replace(slashBody, `"type":2`, `"type":4`, 1))
	if got, resp := post(t, srv.URL, auto, Sign(key, auto, endpointNow)); got != 200 || resp != `{"type":8,"data":{"choices":[]}}` {
		t.Errorf("an autocomplete before Handle: %d %s; want 200 and no choices", got, resp)
	}

	after := make(chan error, 1)
	e.Handle(func(i *discordgo.Interaction, r Responder) {
		if i.ApplicationCommandData().Name != "ttt" {
			t.Errorf("handler got %+v", i)
		}
		err := r.Respond(context.Background(), &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "<@4> to move"},
		})
		if err != nil {
			t.Errorf("Respond = %v", err)
		}
		// A second answer cannot go out, and says so.
		after <- r.Respond(context.Background(), &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource})
	})
	got, resp := post(t, srv.URL, body, Sign(key, body, endpointNow))
	var answer discordgo.InteractionResponse
	if got != 200 || json.Unmarshal([]byte(resp), &answer) != nil || answer.Data == nil || answer.Data.Content != "<@4> to move" {
		t.Errorf("interaction: %d %s; want 200 and the handler's answer", got, resp)
	}
	var ns interface{ NotSent() bool }
	if err := <-after; !errors.As(err, &ns) {
		t.Errorf("second Respond = %v; want a not-sent error", err)
	}

	// A handler that returns without answering: 500, not a hang.
	e.Handle(func(*discordgo.Interaction, Responder) {})
	if got, _ := post(t, srv.URL, body, Sign(key, body, endpointNow)); got != 500 {
		t.Errorf("unanswered: status %d; want 500", got)
	}
}

// FuzzEndpoint posts arbitrary bodies, signed or not, at any clock skew:
// the answer is 401 unless the signature and the time are right, then 400
// for what is not an interaction and 200 for the rest; the handler sees
// only signed interactions and nothing panics.
func FuzzEndpoint(f *testing.F) {
	f.Add([]byte(slashBody), true, int64(0))
	f.Add([]byte(`{"type":1}`), true, int64(-299))
	f.Add([]byte(`{"type":1}`), false, int64(0))
	f.Add([]byte(`{"type":3,"data":{"custom_id":"move/a/1/1/1"}}`), true, int64(301))
	f.Add([]byte(`{"type":"two","data":[]}`), true, int64(0))
	f.Add([]byte(`null`), true, int64(0))
	f.Add([]byte{}, true, int64(0))
	e, key, _ := newTestEndpoint(f)
	e.Handle(func(i *discordgo.Interaction, r Responder) {
		if i.Type == discordgo.InteractionPing {
			f.Error("the handler got a PING")
		}
		_ = r.Respond(context.Background(), &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "ok", Flags: discordgo.MessageFlagsEphemeral},
		})
	})
	f.Fuzz(func(t *testing.T, body []byte, signed bool, skewSeconds int64) {
		skewSeconds %= 1 << 32
		at := endpointNow.Add(time.Duration(skewSeconds) * time.Second)
		h := Sign(key, body, at)
		if !signed {
			h.Set("X-Signature-Ed25519", hex.EncodeToString(make([]byte, ed25519.SignatureSize)))
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/interactions", bytes.NewReader(body))
		req.Header = h
		e.ServeHTTP(rec, req)
		valid := signed && skewSeconds <= 300 && skewSeconds >= -300 && len(body) <= MaxBody
		i, err := DecodeInteraction(body) // FuzzDecodeInteraction holds it to discordgo's decoder
		decodes := err == nil
		want := map[bool]int{false: 401, true: 400}[valid]
		if valid && decodes {
			want = 200
		}
		if rec.Code != want {
			t.Fatalf("status %d; want %d (signed %v, skew %ds, decodes %v)", rec.Code, want, signed, skewSeconds, decodes)
		}
		if want == 200 && i.Type == discordgo.InteractionPing && rec.Body.String() != `{"type":1}` {
			t.Fatalf("PING answered %s", rec.Body.String())
		}
	})
}

// When Discord has hung up before the answer, nothing is written and the
// handler learns that its answer certainly went nowhere, so it can take
// back what it changed.
func TestEndpointAnswerAfterDiscordHungUp(t *testing.T) {
	e, key, _ := newTestEndpoint(t)
	got := make(chan error, 1)
	e.Handle(func(_ *discordgo.Interaction, r Responder) {
		got <- r.Respond(context.Background(), &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource})
	})
	body := []byte(slashBody)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/interactions", bytes.NewReader(body))
	req.Header = Sign(key, body, endpointNow)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	var ns interface{ NotSent() bool }
	if err := <-got; !errors.As(err, &ns) || !ns.NotSent() {
		t.Errorf("Respond after Discord hung up = %v; want a not-sent error", err)
	}
	if strings.Contains(rec.Body.String(), `"type":4`) {
		t.Errorf("the answer was written after Discord hung up: %s", rec.Body.String())
	}
}

// readBody reads the whole body after the prefix, into a buffer that
// may hold an earlier body, and counts what it holds.
func TestReadBody(t *testing.T) {
	e, _, _ := newTestEndpoint(t)
	body := strings.Repeat("board ", 20000)
	buf := bytes.NewBufferString("an earlier body")
	for range 2 {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		held, err := e.readBody(httptest.NewRecorder(), r, buf, "1700000000")
		if err != nil || buf.String() != "1700000000"+body || held != int64(len(body)) || e.held.Load() != held {
			t.Errorf("readBody = %d bytes (held %d, counted %d), %v; want the prefix and %d bytes", buf.Len(), held, e.held.Load(), err, len(body))
		}
		e.held.Add(-held)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A request that is refused on its headers alone (no well-formed,
// current signature; a body announced over MaxBody) is refused before
// its body is read: a flood of unsigned requests costs no buffers.
func TestEndpointRefusesBeforeReading(t *testing.T) {
	e, priv, _ := newTestEndpoint(t)
	body := bytes.Repeat([]byte("x"), 200<<10)
	signed := Sign(priv, body, endpointNow)
	stale := Sign(priv, body, endpointNow.Add(-time.Hour))
	for _, tt := range []struct {
		name   string
		header http.Header
		length int64
		want   int
	}{
		{"no signature", http.Header{}, int64(len(body)), http.StatusUnauthorized},
		{"signature not hex", http.Header{"X-Signature-Ed25519": {strings.Repeat("z", 128)}, "X-Signature-Timestamp": signed["X-Signature-Timestamp"]}, int64(len(body)), http.StatusUnauthorized},
		{"stale timestamp", stale, int64(len(body)), http.StatusUnauthorized},
		{"announced too large", signed, MaxBody + 1, http.StatusRequestEntityTooLarge},
	} {
		src := &countingReader{r: bytes.NewReader(body)}
		req := httptest.NewRequest(http.MethodPost, "/interactions", src)
		req.Header = tt.header.Clone()
		req.ContentLength = tt.length
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if w.Code != tt.want || src.n != 0 {
			t.Errorf("%s: status %d after reading %d bytes of the body; want %d after reading none", tt.name, w.Code, src.n, tt.want)
		}
	}
}

// firstReads wraps h so that each request's first read of its body is
// sent on reads: the endpoint has then taken what it reads the body into.
func firstReads(h http.Handler, reads chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &signalReader{ReadCloser: r.Body, first: reads}
		h.ServeHTTP(w, r)
	})
}

type signalReader struct {
	io.ReadCloser
	first chan<- struct{}
	once  sync.Once
}

func (s *signalReader) Read(p []byte) (int, error) {
	s.once.Do(func() { s.first <- struct{}{} })
	return s.ReadCloser.Read(p)
}

// slowBody opens a connection to addr and sends a request that announces
// a body of MaxBody bytes, with a current, well-formed (not valid)
// signature, and the body's first byte only.
func slowBody(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: bot\r\nContent-Length: %d\r\nX-Signature-Timestamp: %d\r\nX-Signature-Ed25519: %s\r\n\r\n{",
		MaxBody, endpointNow.Unix(), strings.Repeat("ab", ed25519.SignatureSize))
	return c
}

// Many connections that send a large body slowly cost only what they
// sent, not the length they announced: a flood of them, before anyone is
// authenticated, does not take MaxBody each.
func TestEndpointSlowBodiesCostWhatTheySent(t *testing.T) {
	const n = 40
	e, _, _ := newTestEndpoint(t)
	e.reading = make(chan struct{}, n)
	reads := make(chan struct{}, n)
	srv := httptest.NewServer(firstReads(e, reads))
	t.Cleanup(srv.Close) // after the connections close
	var before, during runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	conns := make([]net.Conn, n)
	for k := range conns {
		conns[k] = slowBody(t, srv.Listener.Addr().String())
	}
	for range n {
		<-reads // every request is reading its body
	}
	runtime.GC()
	runtime.ReadMemStats(&during)
	grew := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	if limit := int64(n * MaxBody / 8); grew > limit {
		t.Errorf("%d requests reading a body announced at %d bytes (sent: 1) hold %d bytes of heap; want at most %d", n, MaxBody, grew, limit)
	}
	for _, c := range conns {
		c.Close()
	}
}

// waitFor waits for cond, checking it every millisecond, and fails the
// test if it does not hold within a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// everyRead tells reads of the start of each read of a request's body.
func everyRead(h http.Handler, reads chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &eachReader{ReadCloser: r.Body, reads: reads}
		h.ServeHTTP(w, r)
	})
}

type eachReader struct {
	io.ReadCloser
	reads chan<- struct{}
}

func (s *eachReader) Read(p []byte) (int, error) {
	s.reads <- struct{}{}
	return s.ReadCloser.Read(p)
}

// slowTwice is slowBody whose body comes short twice (its first byte,
// then one more once the server waits for it), as Discord's never do;
// reads hears of each read of its body. It returns once the server waits
// for its third read.
func slowTwice(t *testing.T, addr string, reads <-chan struct{}, third bool) net.Conn {
	t.Helper()
	c := slowBody(t, addr)
	<-reads
	<-reads // the first read came short; the second waits
	if _, err := c.Write([]byte(`"`)); err != nil {
		t.Fatal(err)
	}
	if third {
		<-reads
	}
	return c
}

// A body that does not arrive at once is read in one of maxReading
// slots: a request whose body comes short twice while all are taken
// waits, then gets 503 and its connection closed. A signed request that
// arrives at once, as Discord's do, needs no slot: it is answered while
// slow bodies hold them all. A body that does not arrive within
// bodyWithin is cut, and its slot comes back.
func TestEndpointBoundsBodiesBeingRead(t *testing.T) {
	e, key, _ := newTestEndpoint(t)
	e.Handle(func(i *discordgo.Interaction, r Responder) {
		_ = r.Respond(context.Background(), &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "hi"}})
	})
	e.reading = make(chan struct{}, 2)
	reads := make(chan struct{}, 10)
	srv := httptest.NewServer(everyRead(e, reads))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	slow := []net.Conn{slowTwice(t, addr, reads, true), slowTwice(t, addr, reads, true)}
	if n := len(e.reading); n != 2 {
		t.Fatalf("%d slots taken by two slow bodies; want 2", n)
	}
	body := []byte(slashBody)
	if got, text := post(t, srv.URL, body, Sign(key, body, endpointNow)); got != http.StatusOK {
		t.Errorf("a signed request while slow bodies hold every slot: status %d (%s); want 200", got, text)
	}
	for len(reads) > 0 { // the signed request's reads
		<-reads
	}
	c := slowTwice(t, addr, reads, false)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a third slow body while two are read: %v; want an answer", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !resp.Close {
		t.Errorf("a third slow body while two are read: status %d, close %v; want 503 and the connection closed", resp.StatusCode, resp.Close)
	}
	slow[0].Close()
	waitFor(t, "the server to notice a slow body's close", func() bool { return len(e.reading) == 1 })
	slow[1].Close()
	waitFor(t, "the server to notice the other's close", func() bool { return len(e.reading) == 0 && e.held.Load() == 0 })

	// A body that stops coming is cut at bodyWithin with 400.
	e, _, _ = newTestEndpoint(t)
	e.bodyWithin = time.Millisecond
	cut := httptest.NewServer(everyRead(e, reads))
	t.Cleanup(cut.Close)
	c = slowTwice(t, cut.Listener.Addr().String(), reads, false)
	resp, err = http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a body that stopped coming: %v; want an answer", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !resp.Close {
		t.Errorf("a body that stopped coming: status %d, close %v; want 400 and the connection closed", resp.StatusCode, resp.Close)
	}
	waitFor(t, "the cut body's slot to come back", func() bool { return len(e.reading) == 0 && e.held.Load() == 0 })
}

// The bodies being read hold at most maxHeld bytes in all: a signed body
// that needs more room than is left is refused with 503, and once the
// room is back it is answered.
func TestEndpointBoundsBytesHeld(t *testing.T) {
	e, key, _ := newTestEndpoint(t)
	e.Handle(func(i *discordgo.Interaction, r Responder) {
		_ = r.Respond(context.Background(), &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "hi"}})
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	body := []byte(slashBody)
	e.maxHeld = int64(len(body)) / 2
	if got, text := post(t, srv.URL, body, Sign(key, body, endpointNow)); got != http.StatusServiceUnavailable {
		t.Errorf("a body larger than the room left: status %d (%s); want 503", got, text)
	}
	e.maxHeld = maxHeld
	if got, text := post(t, srv.URL, body, Sign(key, body, endpointNow)); got != http.StatusOK {
		t.Errorf("a body once the room is back: status %d (%s); want 200", got, text)
	}
	if n := e.held.Load(); n != 0 {
		t.Errorf("%d bytes counted held after the requests; want 0", n)
	}
}
