// Package logtest holds what the tests of a running bot need of its log:
// a buffer the bot's logger writes while a test waits for a line, and the
// addresses the ready line gives. It is for tests only.
package logtest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer safe for the bot's logger and the test, which
// can wait for a line to be written. The zero Buffer is empty and ready.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

// Write appends p and wakes those waiting.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// WaitFor blocks until the buffer contains sub, or ctx ends.
func (s *Buffer) WaitFor(ctx context.Context, sub string) error {
	return s.WaitForCount(ctx, sub, 1)
}

// WaitForCount blocks until the buffer contains sub n times, or ctx ends.
func (s *Buffer) WaitForCount(ctx context.Context, sub string, n int) error {
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

// String returns what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ReadyAddr returns the address that the last ready line in logs gives for
// what (interactions, metrics), failing t if it gives none.
func ReadyAddr(t testing.TB, logs, what string) string {
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
