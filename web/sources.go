package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Sessions are limited per source as well as in all, so that junk codes
// from one source (sent to make Discord refuse them) cannot crowd out the
// pages of everyone else: a session request takes a token from the bucket
// of its remote address, then from that of the activity instance it
// claims, then from the server's (Limits.SessionsPerSecond); the first
// that has none refuses it (429 crowded), before Discord is asked.
//
// Inside Discord every request comes through Discord's proxy, and usually
// through the operator's TLS proxy too, so the remote address often names
// a proxy that many users share: the address's bucket is therefore half
// the server's by default (one address never takes more than half), and
// the instance's is smaller (the pages of one activity opening at once).
// A page claims its real instance; junk claims one it does not know, or
// the instance of someone else, whose pages then wait only for that
// instance's bucket, not the server's.

// maxSources bounds the buckets kept per kind of source.
const maxSources = 10_000

// sources are buckets by source (an address, or an instance id). Memory
// is bounded: at most max buckets; a bucket full again is the same as a
// new one and goes at the next sweep; when all max are in use, a new
// source shares one overflow bucket with every other new source until a
// sweep makes room.
type sources struct {
	mu       sync.Mutex
	rate     float64
	burst    float64
	max      int
	m        map[string]*bucket
	overflow *bucket
	swept    time.Time
}

func newSources(rate float64, burst, max int) *sources {
	return &sources{
		rate: rate, burst: float64(burst), max: max,
		m:        make(map[string]*bucket),
		overflow: &bucket{rate: rate, burst: float64(burst)},
	}
}

// take takes a token from key's bucket at now, if it has one.
func (s *sources) take(key string, now time.Time) bool {
	return s.bucket(key, now).take(now)
}

func (s *sources) bucket(key string, now time.Time) *bucket {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.m[key]; b != nil {
		return b
	}
	if len(s.m) >= s.max && now.Sub(s.swept) >= time.Second {
		// At most one sweep a second, however many sources knock.
		s.swept = now
		for k, b := range s.m {
			if b.fullIn(now) == 0 {
				delete(s.m, k)
			}
		}
	}
	if len(s.m) >= s.max {
		return s.overflow
	}
	b := &bucket{rate: s.rate, burst: s.burst}
	s.m[key] = b
	return b
}

// size is how many buckets are kept.
func (s *sources) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// remoteHost is the address r came from, without its port.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
