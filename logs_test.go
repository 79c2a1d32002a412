package main

// The log the tests read while serve or run writes it.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for the bot's logger and the test,
// which can wait for a line to be written.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// waitFor blocks until the buffer contains sub.
func (s *syncBuffer) waitFor(ctx context.Context, sub string) error {
	return s.waitForCount(ctx, sub, 1)
}

// waitForCount blocks until the buffer contains sub n times.
func (s *syncBuffer) waitForCount(ctx context.Context, sub string, n int) error {
	for {
		s.mu.Lock()
		if strings.Count(s.b.String(), sub) >= n {
			s.mu.Unlock()
			return nil
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("log never said %q: %w", sub, ctx.Err())
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// readyAddr returns the address that the last ready line in logs gives
// for what.
func readyAddr(t testing.TB, logs, what string) string {
	t.Helper()
	line := logs[strings.LastIndex(logs, "msg=ready"):]
	line, _, _ = strings.Cut(line, "\n")
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, what+"="); ok {
			return v
		}
	}
	t.Fatalf("the ready line names no %s address: %s", what, line)
	return ""
}

// bothTransports runs test on a bot that gets its interactions over the
