package discordtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// endpoint is where interactions go when the application has an
// interactions endpoint URL.
type endpoint struct {
	url    string
	key    ed25519.PrivateKey
	client *http.Client
}

// UseEndpoint makes Send deliver interactions as Discord does to an
// application with an interactions endpoint URL: as a POST to url, signed
// with the application's Ed25519 key (X-Signature-Ed25519 over
// X-Signature-Timestamp followed by the body), whose response body is the
// interaction's answer, checked like a callback. The gateway then carries
// no interactions. It returns the public key, in hex, for the bot's
// DISCORD_PUBLIC_KEY (see PublicKey). Call it before the first Send.
//
// As on Discord, a response that is not 200 with a valid answer, or none
// within AckDeadline, fails the interaction; such responses are listed by
// Rejected with the path "/interactions (endpoint)".
//
// It may be called again, with the same key, when the bot's address
// changes (a restart on another port).
func (s *Server) UseEndpoint(url string) (publicKeyHex string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keyLocked()
	s.endpoint.url = url
	if s.endpoint.client == nil {
		s.endpoint.client = &http.Client{}
	}
	return hex.EncodeToString(s.endpoint.key.Public().(ed25519.PublicKey))
}

// PublicKey returns the application's public key, in hex, as the Developer
// Portal shows it: what the bot's DISCORD_PUBLIC_KEY must be.
func (s *Server) PublicKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keyLocked()
	return hex.EncodeToString(s.endpoint.key.Public().(ed25519.PublicKey))
}

func (s *Server) keyLocked() {
	if s.endpoint.key != nil {
		return
	}
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		panic("discordtest: " + err.Error()) // crypto/rand never fails
	}
	s.endpoint.key = priv
}

// Sign returns the signature headers Discord would send with body at t.
func (s *Server) Sign(body []byte, t time.Time) http.Header {
	s.mu.Lock()
	key := s.endpoint.key
	s.mu.Unlock()
	ts := strconv.FormatInt(t.Unix(), 10)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	h.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(key, append([]byte(ts), body...))))
	h.Set("X-Signature-Timestamp", ts)
	return h
}

// endpointPath names the endpoint's answers in Requests.
const endpointPath = "/interactions (endpoint)"

// post delivers st to the endpoint and takes the response as its answer.
func (s *Server) post(st *interactionState) {
	defer s.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), st.deadline)
	defer cancel()
	status, body, err := s.postPayload(ctx, st.payload)
	s.holdIfAsked(Request{Method: http.MethodPost, Path: endpointPath, Body: st.payload, Time: time.Now()})
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := Request{Method: http.MethodPost, Path: endpointPath, Body: st.payload, Time: time.Now(), Status: status, Reply: body}
	switch {
	case err != nil:
		rec.Status = http.StatusGatewayTimeout
		st.rejected = append(st.rejected, "endpoint: "+err.Error())
		s.failLocked(st)
	case status != http.StatusOK:
		st.rejected = append(st.rejected, fmt.Sprintf("endpoint: status %d: %s", status, body))
		s.failLocked(st)
	default:
		req, _ := http.NewRequest(http.MethodPost, endpointPath, nil)
		req.Header.Set("Content-Type", "application/json")
		rep := s.answerLocked(st, req, body)
		if rep.status >= 400 {
			rec.Status, rec.Code = rep.status, rep.code
			s.failLocked(st)
		}
	}
	s.requests = append(s.requests, rec)
	st.posting = false
	s.broadcastLocked()
}

// answerWait bounds how long a webhook request waits for the answer of its
// interaction to be taken (see interactionState.posting).
const answerWait = 3 * time.Second

// awaitAnswer waits until the interaction whose token r names, if it went
// to the endpoint, has had its answer taken.
func (s *Server) awaitAnswer(r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), answerWait)
	defer cancel()
	token := r.PathValue("token")
	_ = s.waitUntil(ctx, func() (bool, error) {
		st := s.tokens[token]
		return st == nil || !st.posting, nil
	})
}

func (s *Server) postPayload(ctx context.Context, payload []byte) (int, []byte, error) {
	s.mu.Lock()
	ep := s.endpoint
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.url, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, err
	}
	req.Header = s.Sign(payload, time.Now())
	resp, err := ep.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	return resp.StatusCode, body, err
}

// Redeliver posts a sent interaction to the endpoint again, exactly as it
// was first delivered, and returns the endpoint's response without taking
// it as an answer: what a bot does with a duplicate delivery.
func (s *Server) Redeliver(ctx context.Context, in *Interaction) (status int, body []byte, err error) {
	s.mu.Lock()
	st := in.st
	s.mu.Unlock()
	if st == nil {
		return 0, nil, fmt.Errorf("discordtest: interaction not sent")
	}
	return s.postPayload(ctx, st.payload)
}
