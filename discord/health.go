package discord

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Connected reports whether every shard's websocket is up right now: it
// has had its READY (or RESUMED) and is not being closed or reconnected.
// For a readiness probe; it never blocks for long.
func (g *Gateway) Connected() bool {
	if g.closing.Load() {
		return false
	}
	for _, sh := range g.shards {
		if !linkUp(sh.s) {
			return false
		}
	}
	return true
}

// linkUp reports whether s holds an open websocket. discordgo sets it,
// under the session's lock, once Open has its READY or RESUMED, and
// clears it when it closes the connection or an Open fails; it exports
// nothing that says as much (DataReady can be set again by a heartbeat
// that races with Close). Open and Close hold the lock for as long as
// they take (Close sleeps a second), so a lock that stays taken means the
// shard is (re)connecting; other holders let go within microseconds.
func linkUp(s *discordgo.Session) bool {
	if wsConnField < 0 {
		return false
	}
	for range 20 {
		if s.TryRLock() {
			up := !reflect.ValueOf(s).Elem().Field(wsConnField).IsNil()
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
	if ws == nil {
		return 0, false
	}
	for range 20 {
		if sent, ack, ok := heartbeatTimes(s, ws); ok {
			switch {
			case sent.IsZero():
				return 0, false
			case ack.Before(sent):
				return time.Since(sent), true
			}
			return ack.Sub(sent), true
		}
		time.Sleep(time.Millisecond)
	}
	return 0, false
}

func heartbeatTimes(s *discordgo.Session, ws *sync.Mutex) (sent, ack time.Time, ok bool) {
	if !s.TryRLock() {
		return
	}
	defer s.RUnlock()
	if !ws.TryLock() {
		return
	}
	defer ws.Unlock()
	return s.LastHeartbeatSent, s.LastHeartbeatAck, true
}

// wsMutexField and wsConnField are the indexes of discordgo's
// Session.wsMutex and Session.wsConn, or -1 if this discordgo has no such
// fields (then HeartbeatLatency reports 0 and Connected false, and
// TestSessionFields fails).
var (
	wsMutexField = sessionField("wsMutex", reflect.TypeFor[sync.Mutex]())
	wsConnField  = sessionField("wsConn", reflect.TypeFor[*websocket.Conn]())
)

func sessionField(name string, typ reflect.Type) int {
	f, ok := reflect.TypeFor[discordgo.Session]().FieldByName(name)
	if !ok || f.Type != typ || len(f.Index) != 1 {
		return -1
	}
	return f.Index[0]
}

func wsMutex(s *discordgo.Session) *sync.Mutex {
	if wsMutexField < 0 {
		return nil
	}
	return (*sync.Mutex)(unsafe.Pointer(reflect.ValueOf(s).Elem().Field(wsMutexField).UnsafeAddr()))
}
