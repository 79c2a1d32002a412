package discord_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord"
)

// Once Options.Halt is done, a REST call stalled on an unanswering
// Discord returns ErrHalted, and later calls fail at once: a shutdown is
// not held by Discord.
func TestHaltCutsRESTCalls(t *testing.T) {
	arrived := make(chan struct{}, 10)
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done() // never answers
	}))
	defer stall.Close()
	halt, stop := context.WithCancel(context.Background())
	s, err := discord.NewSession(discord.Options{Token: "t", APIURL: stall.URL + "/api/v9", Halt: halt})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.User("@me")
		done <- err
	}()
	<-arrived
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, discord.ErrHalted) {
			t.Errorf("a call in flight when halted: %v; want ErrHalted", err)
		}
	case <-time.After(10 * time.Second): // the session's own timeout is 20 s
		t.Fatal("a REST call in flight went on after the halt")
	}
	if _, err := s.User("@me"); !errors.Is(err, discord.ErrHalted) {
		t.Errorf("a call after the halt: %v; want ErrHalted", err)
	}
}
