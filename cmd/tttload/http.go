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

// payload returns the signed payload of c's next step: a presigned one if
// there is one left, else one built and signed now.
func (t *httpTransport) payload(c *chanState) signed {
	step := -1
	switch c.next {
	case stepStart:
		step = 0
	case stepMove:
		step = 1 + c.k
	}
	if step >= 0 && step < len(c.pre) {
		if s := c.pre[step]; len(s) > 0 {
			p := s[len(s)-1]
			c.pre[step] = s[:len(s)-1]
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
		if c.clicks {
			return t.build.click(buf, c.id, p, c.messageID, cellID(c.cells, row, col), c.board)
		}
		return t.build.move(buf, c.id, p, row, col)
	default:
		return t.build.resign(buf, c.id, c.a)
	}
}

// presign builds and signs, for every channel, games start and move
// payloads for that many games, on every core, so that the run itself
// spends no CPU on signatures. The signatures are good for 5 minutes.
// A click names the board its answer drew, so with clicks only the starts
// are presigned.
func (t *httpTransport) presign(chans []*chanState, games int) {
	if games <= 0 {
		return
	}
	now := time.Now()
	var wg sync.WaitGroup
	work := make(chan *chanState)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range work {
				moves := movesPerGame(c.size)
				if c.clicks {
					moves = 0
				}
				c.pre = make([][]signed, 1+moves)
				for step := range c.pre {
					for range games {
						var body []byte
						if step == 0 {
							body = t.appendStep(nil, c, stepStart, 0)
						} else {
							body = t.appendStep(nil, c, stepMove, step-1)
						}
						c.pre[step] = append(c.pre[step], sign(t.key, body, now))
					}
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

// snippet returns the content of an answer, shortened, for error reports.
func snippet(body []byte) string {
	if i := bytes.Index(body, []byte(`"content":"`)); i >= 0 {
		body = body[i+len(`"content":"`):]
	}
	return string(body[:min(len(body), 100)])
}
