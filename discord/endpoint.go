package discord

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Endpoint is Discord's "interactions endpoint URL" transport: Discord POSTs
// each interaction, signed with the application's Ed25519 key, and the
// answer goes back as the HTTP response body. Follow-ups and edits still go
// through REST.
//
// Every request is checked before anything else is done with it: a missing,
// malformed or wrong signature, or a timestamp more than MaxSkew from now,
// is 401; a body over MaxBody bytes is 413; a method other than POST is
// 405. Discord sends invalid requests on purpose to check this. A PING is
// answered {"type":1}; anything else goes to the handler set with Handle,
// in the request's goroutine, and the response is written and flushed as
// soon as the handler answers, so the handler's work after its answer does
// not delay it.
//
// A body can only be authenticated once it is all read, so reading is
// what an unauthenticated client can make cost: the body is read in
// chunks into a pooled buffer that grows with what arrives (never to the
// length the request announces), the bodies being read hold at most
// maxHeld bytes in all (503 beyond), and a body that does not arrive at
// once (Discord's do) is read on in one of maxReading slots (a request
// that finds none within readingWait is 503) and must arrive within
// bodyWithin (readBody). Every refusal before the signature is checked
// closes its connection.
//
// An Endpoint is safe for concurrent use. The cost per request is one
// Ed25519 verification (about 50 µs of CPU) plus decoding the body.
type Endpoint struct {
	key ed25519.PublicKey
	log *slog.Logger
	now func() time.Time

	handler atomic.Pointer[Handler]
	reading chan struct{} // a slot per body being read after its first read: maxReading
	held    atomic.Int64  // the bytes of the bodies being read
	// bodyWithin and maxHeld are the constants', or a test's.
	bodyWithin time.Duration
	maxHeld    int64
}

// Limits of the endpoint.
const (
	// MaxSkew is how far the signed timestamp may be from the endpoint's
	// clock.
	MaxSkew = 5 * time.Minute
	// MaxBody bounds a request body. Discord's largest interactions (a
	// click on a message with 10 embeds and 25 buttons, resolved users)
	// are a few tens of kilobytes.
	MaxBody = 256 << 10
	// discordWaits is how long Discord waits for an answer.
	discordWaits = 3 * time.Second
	// maxReading bounds the bodies read at once that do not arrive at
	// once, as Discord's do.
	maxReading = 64
	// maxHeld bounds the bytes held at once by the bodies being read.
	maxHeld = 16 << 20
	// readChunk is the most one read of a body asks for, and minRead
	// the least room it is given (bytes.MinRead).
	readChunk = 32 << 10
	minRead   = 512
	// readingWait is how long a request may wait for a slot to read its
	// body in before it is refused.
	readingWait = 250 * time.Millisecond
	// bodyWithin bounds the reading of a body that does not arrive at
	// once, from when it is found so.
	bodyWithin = time.Second
	// keptBuffer bounds the buffers kept for the next body; a larger
	// one (a rare large body) goes to the collector.
	keptBuffer = 64 << 10
)

// ErrBadPublicKey is NewEndpoint's error for a key that is not 64 hex digits.
var ErrBadPublicKey = errors.New("the public key is not 64 hex digits (Developer Portal, your application, General Information, Public Key)")

// NewEndpoint returns an endpoint that checks signatures with the hex
// public key from the Developer Portal. now is the clock for the
// timestamp check; nil means time.Now. Until Handle is called, every
// signed interaction other than PING is answered that the bot is starting.
func NewEndpoint(publicKeyHex string, log *slog.Logger, now func() time.Time) (*Endpoint, error) {
	k, err := hex.DecodeString(publicKeyHex)
	if err != nil || len(k) != ed25519.PublicKeySize {
		return nil, ErrBadPublicKey
	}
	if now == nil {
		now = time.Now
	}
	return &Endpoint{key: ed25519.PublicKey(k), log: log, now: now, reading: make(chan struct{}, maxReading), bodyWithin: bodyWithin, maxHeld: maxHeld}, nil
}

// Handle sets the handler of interactions.
func (e *Endpoint) Handle(h Handler) { e.handler.Store(&h) }

// ServeHTTP answers one request to the endpoint.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(w, "only POST", http.StatusMethodNotAllowed)
		return
	}
	// What can be judged without the body is judged first: a request
	// without a well-formed, current signature, or announcing a body too
	// large, costs no read and no buffer.
	ts := r.Header.Get("X-Signature-Timestamp")
	sig, ok := e.signature(ts, r.Header.Get("X-Signature-Ed25519"))
	if !ok {
		refuse(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > MaxBody {
		refuse(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	// Discord signs the timestamp followed by the body: the body is read
	// in after the timestamp, so that the signed message needs no copy.
	buf := bodyBuffers.Get().(*bytes.Buffer)
	held, err := e.readBody(w, r, buf, ts)
	giveBack := func() {
		putBuffer(buf)
		e.held.Add(-held)
	}
	msg := buf.Bytes()
	body := msg[len(ts):]
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		giveBack()
		refuse(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	case errors.Is(err, errBusy):
		giveBack()
		w.Header().Set("Retry-After", "1")
		refuse(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil:
		giveBack()
		refuse(w, "could not read the body", http.StatusBadRequest)
		return
	case !ed25519.Verify(e.key, msg, sig):
		giveBack()
		refuse(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	// The interaction shares no memory with the body (encoding/json
	// copies), so the buffer goes back before the handler runs.
	i, err := DecodeInteraction(body)
	giveBack()
	if err != nil {
		http.Error(w, "not an interaction", http.StatusBadRequest)
		return
	}
	if i.Type == discordgo.InteractionPing {
		writeJSON(w, []byte(`{"type":1}`))
		return
	}
	hp := e.handler.Load()
	if hp == nil {
		e.log.Warn("an interaction arrived before the bot was ready", "channel", i.ChannelID)
		b, _ := encodeResponse(startingAnswer(i.Type), false)
		writeJSON(w, b)
		return
	}
	e.serve(w, r, i, *hp)
}

// serve runs h on i in the request's own goroutine, which saves handing
// the interaction and its answer between goroutines: the handler answers
// in time (bot.Handle always does, within Discord's 3 s), and the answer is
// written and flushed when it is given.
func (e *Endpoint) serve(w http.ResponseWriter, r *http.Request, i *discordgo.Interaction, h Handler) {
	start := time.Now()
	a := &httpAnswer{w: w, req: r.Context(), start: start}
	h(i, a)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.over = true
	switch took := time.Since(start); {
	case !a.sent:
		// The bot answers every interaction; this is a bug, and Discord
		// will show "This interaction failed".
		e.log.Error("an interaction was not answered", "channel", i.ChannelID, "type", i.Type.String())
		http.Error(w, "not answered", http.StatusInternalServerError)
	case a.took > discordWaits:
		e.log.Error("an interaction was answered too late for Discord", "channel", i.ChannelID, "type", i.Type.String(), "took", a.took)
	case took > discordWaits:
		e.log.Warn("the handler of an interaction went on long after its answer", "channel", i.ChannelID, "type", i.Type.String(), "took", took)
	}
}

// signature decodes the signature sigHex (of the timestamp ts followed by
// the body) and checks the timestamp's age: what can be checked before the
// body is read. ok is false if either is malformed or ts is too old or
// too far ahead.
func (e *Endpoint) signature(ts, sigHex string) ([]byte, bool) {
	if len(sigHex) != 2*ed25519.SignatureSize || ts == "" {
		return nil, false
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil {
		return nil, false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return nil, false
	}
	if d := e.now().Sub(time.Unix(sec, 0)); d > MaxSkew || d < -MaxSkew {
		return nil, false
	}
	return sig, true
}

// errBusy refuses a body that finds no room: no slot within readingWait
// for one that did not come whole, or maxHeld bytes held already.
var errBusy = errors.New("too many requests are being read")

// readBody reads ts followed by r's body into buf, which grows with what
// arrives, as bytes.Buffer.ReadFrom grows; each read's room is counted
// in e.held (maxHeld at most, across bodies) before it is read. It
// returns how many bytes it counted, which the caller takes off e.held
// once buf is given back. Discord's bodies arrive at once: their reads
// fill the room they are given, until the last, with io.EOF; a read
// from the server's buffer may come short of the room once. A body that
// comes short twice in a row, without its end, is read on in a slot
// (maxReading, waiting up to readingWait for one) within bodyWithin.
func (e *Endpoint) readBody(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, ts string) (held int64, err error) {
	buf.Reset()
	buf.WriteString(ts)
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	for short, slotted := 0, false; ; {
		if short == 2 && !slotted {
			if !e.enterReading(r.Context()) {
				return held, errBusy
			}
			slotted = true
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(e.bodyWithin)) // not every ResponseWriter has a connection
			defer func() {
				_ = rc.SetReadDeadline(time.Time{}) // the server sets the next request's own
				<-e.reading
			}()
		}
		if buf.Available() < minRead {
			buf.Grow(minRead)
		}
		want := int64(min(buf.Available(), readChunk, MaxBody+1+len(ts)-buf.Len()))
		if e.held.Add(want) > e.maxHeld {
			e.held.Add(-want)
			return held, errBusy
		}
		p := buf.AvailableBuffer()[:want]
		n, rerr := body.Read(p)
		buf.Write(p[:n])
		e.held.Add(int64(n) - want)
		held += int64(n)
		switch {
		case rerr == io.EOF:
			return held, nil
		case rerr != nil:
			return held, rerr
		case int64(n) < want:
			short++
		default:
			short = 0
		}
	}
}

// enterReading takes a slot to read a body in, waiting up to readingWait
// for one; it reports whether it got one. The caller gives it back by
// receiving from e.reading.
func (e *Endpoint) enterReading(ctx context.Context) bool {
	select {
	case e.reading <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(readingWait)
	defer t.Stop()
	select {
	case e.reading <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// refuse answers a request that is not (or not yet known to be) from
// Discord with code, and closes its connection: a client that is refused
// keeps nothing of the server's.
func refuse(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

// bodyBuffers holds *bytes.Buffer for reading bodies, so that each
// request does not grow one anew.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > keptBuffer {
		return
	}
	b.Reset()
	bodyBuffers.Put(b)
}

// Sign returns the headers Discord would send with body at t, signed with
// key: for tests and load generators that play Discord's part.
func Sign(key ed25519.PrivateKey, body []byte, t time.Time) http.Header {
	ts := strconv.FormatInt(t.Unix(), 10)
	msg := append([]byte(ts), body...)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(key, msg)))
	h.Set("X-Signature-Timestamp", ts)
	return h
}

// writeJSON writes body as the response, of a length it announces, and
// sends it at once: headers and body go out in one write.
func writeJSON(w http.ResponseWriter, body []byte) error {
	h := w.Header()
	h["Content-Type"] = jsonType // canonical keys, set without Set's copies
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body); err != nil {
		return err
	}
	// Send it now: the handler may go on to edit other messages.
	return http.NewResponseController(w).Flush()
}

// jsonType is the Content-Type of every answer; net/http only reads it.
var jsonType = []string{"application/json"}

// httpAnswer is the Responder of an interaction that came over HTTP: its
// one answer becomes the response body. It is safe for concurrent use.
type httpAnswer struct {
	req context.Context // the request's: done when Discord hung up

	mu    sync.Mutex
	w     http.ResponseWriter
	start time.Time
	sent  bool          // an answer was written, or began to be
	over  bool          // the request is over: nothing more can be written
	took  time.Duration // from the request to its answer
}

// Replayable says that the interaction came as a signed HTTP request,
// which whoever captured it could send again while its signature is
// valid (MaxSkew): the bot records it to act on it once.
func (a *httpAnswer) Replayable() bool { return true }

// errRequestOver is the answer to a second Respond, or one after the
// request ended: nothing was sent.
var errRequestOver = errors.New("the interaction's HTTP request is over")

// Respond writes r as the response body. It returns once the response is
// written; an error wraps a notSent when nothing went out.
func (a *httpAnswer) Respond(ctx context.Context, r *discordgo.InteractionResponse) error {
	body, err := encodeResponse(r, false)
	if err != nil {
		return notSent{fmt.Errorf("encode the answer: %w", err)}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.sent || a.over:
		return notSent{errRequestOver}
	case ctx.Err() != nil:
		return notSent{ctx.Err()}
	case a.req.Err() != nil: // Discord hung up: nobody will read it
		return notSent{fmt.Errorf("discord closed the request: %w", a.req.Err())}
	}
	a.sent, a.took = true, time.Since(a.start)
	if err := writeJSON(a.w, body); err != nil {
		// Part of it may have gone out.
		return fmt.Errorf("write the answer: %w", err)
	}
	return nil
}
