package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// httpTransport plays Discord's part for a bot on the HTTP interactions
// endpoint: it signs each interaction and POSTs it; the response body is
// the answer. Discord gives up after 3 s, and so does it.
type httpTransport struct {
	build  builder
	key    ed25519.PrivateKey
	pubHex string
	sink   *sink
	addr   string // the bot's endpoint, host:port
}

func newHTTPTransport(sc scene, ids *snowflakes, restTLS bool, dir string) (*httpTransport, error) {
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	s, err := startSink(sc, restTLS, dir)
	if err != nil {
		return nil, err
	}
	return &httpTransport{build: builder{scene: sc, ids: ids}, key: key, pubHex: hex.EncodeToString(pub), sink: s}, nil
}

// env returns the bot's settings for this transport.
func (t *httpTransport) env() []string {
	env := []string{
		"DISCORD_API_URL=" + t.sink.url,
		"INTERACTIONS_ADDR=127.0.0.1:0",
		"DISCORD_PUBLIC_KEY=" + t.pubHex,
	}
	if t.sink.caFile != "" {
		env = append(env, "SSL_CERT_FILE="+t.sink.caFile)
	}
	return env
}

func (t *httpTransport) ready(p *botProcess, channels int) error {
	if p.interactions == "" {
		return fmt.Errorf("the bot's ready line names no interactions address")
	}
	t.addr = p.interactions
	return nil
}

func (t *httpTransport) close() { t.sink.close() }

// payload returns the signed payload of c's next step: the presigned one
// if its game was presigned, else one built and signed now.
func (t *httpTransport) payload(c *chanState) signed {
	step := -1
	switch c.next {
	case stepStart:
		step = 0
	case stepMove:
		step = 1 + c.k
	}
	if g := c.games - 1; step >= 0 && g >= 0 && g < len(c.pre) && step < len(c.pre[g].steps) {
		if p := c.pre[g].steps[step]; p.body != nil {
			c.pre[g].steps[step] = signed{} // sent once; its memory goes
			return p
		}
	}
	c.buf = t.appendStep(c.buf[:0], c, c.next, c.k)
	return sign(t.key, c.buf, time.Now())
}

// appendStep appends the payload of step kind for c (move k for stepMove).
func (t *httpTransport) appendStep(buf []byte, c *chanState, kind stepKind, k int) []byte {
	switch kind {
	case stepStart:
		return t.build.start(buf, c.id, c.a, c.b, c.size)
	case stepAccept:
		accept := "accept/" + c.challenge
		return t.build.click(buf, c.id, c.b, c.messageID, accept, acceptRow(accept))
	case stepMove:
		row, col, p := c.cell(k)
		if c.clicks || c.picker { // a picker's cell is a button of the row picked
			return t.build.click(buf, c.id, p, c.messageID, cellID(c.cells, row, col), c.board)
		}
		return t.build.move(buf, c.id, p, row, col)
	case stepPick:
		row, _, p := c.cell(k)
		return t.build.pick(buf, c.id, p, c.messageID, c.rows, c.board, row)
	default:
		return t.build.resign(buf, c.id, c.a)
	}
}

// presign makes, for every channel, that many games with their pairs of
// players (see chanState.pair), and builds and signs their start and move
// payloads, on every core, so that the run itself spends no CPU on
// signatures. The signatures are good for 5 minutes. A click names the
// board its answer drew, so with clicks or picker only the starts are
// presigned.
// The channels' current games must not have begun yet.
func (t *httpTransport) presign(chans []*chanState, games int, newID func() string) {
	if games <= 0 {
		return
	}
	for _, c := range chans {
		c.pre = make([]presigned, games)
		for g := range c.pre {
			c.pre[g].a, c.pre[g].b = c.pair(g, newID)
		}
	}
	now := time.Now()
	var wg sync.WaitGroup
	work := make(chan *chanState)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range work {
				moves := movesPerGame(c.size)
				if c.clicks || c.picker {
					moves = 0
				}
				for g := range c.pre {
					// appendStep reads the players from the channel.
					pc := &chanState{id: c.id, size: c.size, a: c.pre[g].a, b: c.pre[g].b}
					steps := make([]signed, 1+moves)
					for step := range steps {
						var body []byte
						if step == 0 {
							body = t.appendStep(nil, pc, stepStart, 0)
						} else {
							body = t.appendStep(nil, pc, stepMove, step-1)
						}
						steps[step] = sign(t.key, body, now)
					}
					c.pre[g].steps = steps
				}
			}
		})
	}
	for _, c := range chans {
		work <- c
	}
	close(work)
	wg.Wait()
}

// send posts c's next step on c's own connection and reads the answer.
func (t *httpTransport) send(_ context.Context, c *chanState) outcome {
	p := t.payload(c)
	if c.wire.addr == "" {
		c.wire.addr = t.addr
	}
	status, ans, err := c.wire.post("/interactions", p, 3*time.Second, c.ans[:0]) // Discord's limit
	c.ans = ans
	if err != nil {
		return outcome{text: err.Error()}
	}
	if status != http.StatusOK {
		return outcome{text: strconv.Itoa(status) + " " + string(c.ans[:min(len(c.ans), 120)])}
	}
	var o outcome
	o.read(c.ans)
	if o.ephemeral || o.internal {
		o.text = snippet(c.ans)
	}
	return o
}

// snippet returns the content of an answer, up to its closing quote and
// shortened, for error reports; or the start of an answer without one.
func snippet(body []byte) string {
	i := bytes.Index(body, []byte(`"content":"`))
	if i < 0 {
		return shorten(string(body), 100)
	}
	body = body[i+len(`"content":"`):]
	for j := 0; j < len(body); j++ {
		switch body[j] {
		case '\\':
			j++
		case '"':
			return shorten(string(body[:j]), 100)
		}
	}
	return shorten(string(body), 100)
}

// shorten returns s up to n bytes, cut between characters.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
