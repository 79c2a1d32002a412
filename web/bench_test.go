package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchLimits let a benchmark open many sockets and move fast.
var benchLimits = Limits{PerInstance: 5000, Total: 5000, ActionsPerSecond: 1e9, ActionBurst: 1e9, FramesPerSecond: 1e9, FrameBurst: 1e9, SendQueue: 64}

// benchSession signs a session for a user of the env's channel, checked
// in its instance now (the benchmarks measure the sockets, not Discord's
// answers).
func (e *env) benchSession(user, locale, instance string) string {
	now := e.clock.now()
	return sign(testKey, claims{User: user, Name: user, Channel: e.channel, Guild: e.guild, Instance: instance, Locale: locale,
		Expiry: now.Add(time.Hour).Unix(), Checked: now.Unix()})
}

// BenchmarkMoveToPages: a move sent on one page (the player's), to its
// display on every spectator's page: per delivery, the time from the
// move's frame sent to the new state read, p50 and p99, over b.N moves,
// with 1 and with 1,000 spectators on one 15×15 game, all in process on
// loopback (the spectators' reading shares the CPU with the server).
func BenchmarkMoveToPages(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("spectators=%d", n), func(b *testing.B) {
			e := newEnv(b, benchLimits)
			e.games.free = true
			e.games.start(e.channel, 15, User{ID: "1", Name: "ann"}, User{ID: "2", Name: "bob"})
			inst := "i-bench"
			player := e.open(b, e.benchSession("1", "en-US", inst))
			var (
				mu       sync.Mutex
				target   int64
				sent     time.Time
				lat      []time.Duration
				left     int
				done     = make(chan struct{}, 1)
				lastSeen atomic.Int64
			)
			for i := range n {
				p := e.open(b, e.benchSession(fmt.Sprint(100+i), "en-US", inst))
				go func() {
					for {
						// The page decodes on its own device: here only
						// the version is read, so that the figure is the
						// server's and the network's.
						_, data, err := p.c.Read(context.Background())
						if err != nil {
							return
						}
						v, ok := stateVersion(data)
						if !ok {
							continue
						}
						lastSeen.Store(v)
						at := time.Now()
						mu.Lock()
						if v == target {
							lat = append(lat, at.Sub(sent))
							if left--; left == 0 {
								done <- struct{}{}
							}
						}
						mu.Unlock()
					}
				}()
			}
			go func() { // the player's own frames
				for {
					if _, err := player.read(); err != nil {
						return
					}
				}
			}()
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				mu.Lock()
				target, left, sent = e.games.version(e.channel)+1, n, time.Now()
				mu.Unlock()
				player.send(ClientMsg{Type: "move", Row: 1, Col: 1, Version: target - 1})
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					b.Fatalf("a move did not reach every page: version %d, %d acts, %d reads, %d sockets, %d left, target %d, last seen %d",
						e.games.version(e.channel), e.games.acts.Load(), e.games.states.Load(), e.srv.Sockets(), left, target, lastSeen.Load())
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			}
		})
	}
}

// BenchmarkSocketMemory: what 1,000 open sockets (after hello, each in
// its room, its first state sent) cost the server, in Go heap and stacks
// per socket. The clients are bare TCP connections that never read (the
// kernel holds what the server sent), so that little of the figure is
// theirs; kernel socket buffers are not counted.
func BenchmarkSocketMemory(b *testing.B) {
	const n = 1000
	e := newEnv(b, benchLimits)
	e.games.start(e.channel, 15, User{ID: "1", Name: "ann"}, User{ID: "2", Name: "bob"})
	addr := strings.TrimPrefix(e.hs.URL, "http://")
	b.ReportAllocs()
	var perSocket float64
	for b.Loop() {
		before := memInUse()
		reads := e.games.states.Load()
		conns := make([]net.Conn, 0, n)
		for i := range n {
			c, err := rawHello(addr, e.benchSession(fmt.Sprint(100+i), "en-US", "i-mem"))
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
		}
		for e.games.states.Load()-reads < n { // each has had its first state read
			runtime.Gosched()
		}
		perSocket = float64(memInUse()-before) / n
		for _, c := range conns {
			c.Close()
		}
		for e.srv.Sockets() != 0 {
			runtime.Gosched()
		}
	}
	b.ReportMetric(perSocket, "B/socket")
}

// stateVersion is the version of a state frame, read without decoding
// the frame.
func stateVersion(b []byte) (int64, bool) {
	if !bytes.HasPrefix(b, []byte(`{"type":"state"`)) {
		return 0, false
	}
	i := bytes.Index(b, []byte(`"version":`))
	if i < 0 {
		return 0, false
	}
	b = b[i+len(`"version":`):]
	n := int64(0)
	for len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
		n = n*10 + int64(b[0]-'0')
		b = b[1:]
	}
	return n, true
}

// memInUse is the heap and stacks in use, after a collection.
func memInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse + ms.StackInuse)
}

// rawHello opens a WebSocket by hand on addr and sends hello: a client
// of a few hundred bytes.
func rawHello(addr, session string) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	fmt.Fprintf(c, "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		addr, base64.StdEncoding.EncodeToString(key))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, fmt.Errorf("upgrade: %s", resp.Status)
	}
	payload, _ := json.Marshal(ClientMsg{Type: "hello", Session: session})
	// One masked text frame (a client's frames are masked), 16-bit length.
	frame := []byte{0x81, 0x80 | 126, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(frame[2:], uint16(len(payload)))
	mask := frame[4:8]
	_, _ = rand.Read(mask)
	for i := range payload {
		payload[i] ^= mask[i%4]
	}
	if _, err := c.Write(append(frame, payload...)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
