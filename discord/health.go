package discord

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/bwmarrin/discordgo"
)

// Connected reports whether every shard's websocket is up right now: it
// has had its READY (or RESUMED) and sent a heartbeat since, and is not
// being closed or reconnected. For a readiness probe; it never blocks for
// long.
func (g *Gateway) Connected() bool {
	for _, sh := range g.shards {
		if !linkUp(sh.s) {
			return false
		}
	}
	return true
}

// linkUp reads the session's DataReady, which discordgo sets after
// each heartbeat it sends and clears when it closes the connection. Open
// and Close hold the session's lock for as long as they take (Close
// sleeps a second), so a lock that stays taken means the shard is
// (re)connecting; other holders let go within microseconds.
func linkUp(s *discordgo.Session) bool {
	for range 20 {
		if s.TryRLock() {
			up := s.DataReady
			s.RUnlock()
			return up
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// HeartbeatLatency is the worst over the shards of the time between the
// last heartbeat sent and its acknowledgement; while an acknowledgement is
// due, it is the time since that heartbeat was sent, so a connection that
// stopped answering shows a growing latency. It never blocks: a shard
// busy reconnecting counts with the last latency measured.
func (g *Gateway) HeartbeatLatency() time.Duration {
	var worst time.Duration
	for _, sh := range g.shards {
		if d, ok := heartbeatLatency(sh.s); ok {
			sh.latency.Store(int64(d))
		}
		worst = max(worst, time.Duration(sh.latency.Load()))
	}
	return worst
}

// heartbeatLatency reads the heartbeat times of s. discordgo's own
// Session.HeartbeatLatency reads them without the locks they are written
// under, a data race with every heartbeat: the last ACK is written under
// the session's lock, the last send under its unexported websocket mutex,
// which only reflection can reach. Neither lock is waited for.
func heartbeatLatency(s *discordgo.Session) (time.Duration, bool) {
	ws := wsMutex(s)
	if ws == nil || !s.TryRLock() {
		return 0, false
	}
	defer s.RUnlock()
	if !ws.TryLock() {
		return 0, false
	}
	sent, ack := s.LastHeartbeatSent, s.LastHeartbeatAck
	ws.Unlock()
	switch {
	case sent.IsZero():
		return 0, false
	case ack.Before(sent):
		return time.Since(sent), true
	}
	return ack.Sub(sent), true
}

// wsMutexField is the index of discordgo's Session.wsMutex, or -1 if this
// discordgo has no such sync.Mutex (then HeartbeatLatency reports 0).
var wsMutexField = func() int {
	f, ok := reflect.TypeFor[discordgo.Session]().FieldByName("wsMutex")
	if !ok || f.Type != reflect.TypeFor[sync.Mutex]() || len(f.Index) != 1 {
		return -1
	}
	return f.Index[0]
}()

func wsMutex(s *discordgo.Session) *sync.Mutex {
	if wsMutexField < 0 {
		return nil
	}
	return (*sync.Mutex)(unsafe.Pointer(reflect.ValueOf(s).Elem().Field(wsMutexField).UnsafeAddr()))
}
