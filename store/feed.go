package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
)

// The change feed: who looks at a channel's game live (the web page of
// the live board, package web) is told when it is saved, by this process
// or, on PostgreSQL, by any process sharing the database. A change names
// the channel, the game and the version saved; the watcher reads the game
// again (Current). A Change of Version 0 says "re-read everything": the
// feed may have missed changes (PostgreSQL's listening connection dropped
// and came back).
//
// Channels nobody watches cost nothing more per save:
//
//   - SQLite and Memory (one process): after a save commits, one look-up
//     in a map of the channels watched here; a watched one is told to its
//     watchers, in the process.
//   - PostgreSQL (several processes): a watched channel has a row in
//     live_watches, with an expiry that every process watching it renews
//     (liveTTL, renewed every liveRenew). A trigger on games, in the
//     save's transaction, sends NOTIFY ttt_live ("schema channel game
//     version")
//     only when the channel has an unexpired row: the save of an
//     unwatched channel makes no extra round trip, only an index look-up
//     inside the server. Each process that watches anything holds one
//     connection that LISTENs, and hands what it hears to its watchers;
//     NOTIFY is delivered when the save commits, to every process, this
//     one included.

// Change says that the game of a channel was saved at a version; Version
// 0: the watcher may have missed changes, and reads everything again.
type Change struct {
	ChannelID string
	GameID    string
	Version   int64
}

// feed fans changes out to this process's watchers, by channel. fn is
// called with the feed's lock held: it must not block, nor call the feed.
// The zero feed is ready; it is safe for concurrent use.
type feed struct {
	mu       sync.Mutex
	channels map[string]map[*watch]struct{}
}

type watch struct{ fn func(Change) }

// add makes fn hear the changes of channelID until the returned remove is
// called; first says whether the channel had no watcher here before.
func (f *feed) add(channelID string, fn func(Change)) (remove func() (last bool), first bool) {
	w := &watch{fn: fn}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.channels == nil {
		f.channels = make(map[string]map[*watch]struct{})
	}
	ws := f.channels[channelID]
	first = ws == nil
	if ws == nil {
		ws = make(map[*watch]struct{})
		f.channels[channelID] = ws
	}
	ws[w] = struct{}{}
	var once sync.Once
	return func() (last bool) {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			ws := f.channels[channelID]
			delete(ws, w)
			if len(ws) == 0 {
				delete(f.channels, channelID)
				last = true
			}
		})
		return last
	}, first
}

// watched says whether channelID has a watcher here: the one look-up a
// save of a local store pays.
func (f *feed) watched(channelID string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.channels[channelID] != nil
}

// publish tells c to the watchers of its channel.
func (f *feed) publish(c Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.channels[c.ChannelID] {
		w.fn(c)
	}
}

// resetAll tells every watcher to read everything again (Version 0).
func (f *feed) resetAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, ws := range f.channels {
		for w := range ws {
			w.fn(Change{ChannelID: id})
		}
	}
}

// list returns the channels watched here.
func (f *feed) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.channels))
	for id := range f.channels {
		out = append(out, id)
	}
	return out
}

// savedLocally tells the watchers of g's channel here that g, just
// committed, is stored at its version: for the stores of one process.
func (f *feed) savedLocally(g *Game) {
	if f.watched(g.ChannelID) {
		f.publish(Change{ChannelID: g.ChannelID, GameID: g.ID, Version: g.Version})
	}
}

// Watch makes fn hear every saved change of channelID's game, from now on,
// until stop is called: in this process, once each save has committed. fn
// is called on the saving goroutine, and must not block nor call the
// store. ctx bounds the setting up of the watch only.
func (s *SQLite) Watch(ctx context.Context, channelID string, fn func(Change)) (stop func(), err error) {
	return s.localWatch(channelID, fn)
}

// localWatch is Watch for a store of one process.
func (s *sqlStore) localWatch(channelID string, fn func(Change)) (stop func(), err error) {
	if channelID == "" || fn == nil {
		return nil, errors.New("store: watch: no channel or no function")
	}
	remove, _ := s.feed.add(channelID, fn)
	return func() { remove() }, nil
}

// Watch is SQLite's Watch, for the changes saved in this Memory.
func (m *Memory) Watch(ctx context.Context, channelID string, fn func(Change)) (stop func(), err error) {
	if channelID == "" || fn == nil {
		return nil, errors.New("store: watch: no channel or no function")
	}
	remove, _ := m.feed.add(channelID, fn)
	return func() { remove() }, nil
}

// webKeySize is the size of the key that signs the live board's sessions.
const webKeySize = 32

// WebKey returns the key that signs the sessions of the live board's page
// (package web): made once, at random, and kept in the database, so that
// every process sharing it signs and checks with the same key. It is read
// once per store.
func (s *sqlStore) WebKey(ctx context.Context) ([]byte, error) {
	s.webKey.mu.Lock()
	defer s.webKey.mu.Unlock()
	if s.webKey.key != nil {
		return s.webKey.key, nil
	}
	fresh := make([]byte, webKeySize)
	_, _ = rand.Read(fresh) // crypto/rand.Read never fails on supported platforms
	err := s.write(ctx, func(t tx) error {
		_, err := t.exec(ctx, `INSERT INTO web_key (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, fresh)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: web key: %w", err)
	}
	var key []byte
	err = s.direct(ctx, func(t tx) error { return t.queryRow(ctx, `SELECT secret FROM web_key WHERE id = 1`).Scan(&key) })
	if err != nil {
		return nil, fmt.Errorf("store: web key: %w", err)
	}
	if len(key) != webKeySize {
		return nil, fmt.Errorf("store: web key: %d bytes stored; want %d", len(key), webKeySize)
	}
	s.webKey.key = key
	return key, nil
}

// WebKey is the store's WebKey: for a Memory, made at random once.
func (m *Memory) WebKey(ctx context.Context) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.webKey == nil {
		m.webKey = make([]byte, webKeySize)
		_, _ = rand.Read(m.webKey)
	}
	return m.webKey, nil
}

// webKeyCache holds the key once read.
type webKeyCache struct {
	mu  sync.Mutex
	key []byte
}
