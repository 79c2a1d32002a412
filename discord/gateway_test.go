package discord

import (
	"fmt"
	"reflect"
	"testing"
)

func TestShardOf(t *testing.T) {
	tests := []struct {
		guild string
		count int
		want  int
	}{
		{"", 4, 0},                   // a DM
		{"290926798626357999", 0, 0}, // unsharded
		{"290926798626357999", 1, 0}, // one shard
		{"290926798626357999", 4, int((290926798626357999 >> 22) % 4)},
		{fmt.Sprint(uint64(5) << 22), 3, 2}, // Discord's formula
		{"not a snowflake", 3, 0},
		{"12x", 3, 0},
	}
	for _, tt := range tests {
		if got := ShardOf(tt.guild, tt.count); got != tt.want {
			t.Errorf("ShardOf(%q, %d) = %d; want %d", tt.guild, tt.count, got, tt.want)
		}
	}
}

// Shards identify in rounds of one shard per rate-limit key
// (id % max_concurrency), as Discord allows.
func TestStartRounds(t *testing.T) {
	tests := []struct {
		n, maxConcurrency int
		want              [][]int
	}{
		{1, 1, [][]int{{0}}},
		{3, 1, [][]int{{0}, {1}, {2}}},
		{5, 2, [][]int{{0, 1}, {2, 3}, {4}}},
		{4, 16, [][]int{{0, 1, 2, 3}}},
	}
	for _, tt := range tests {
		shards := make([]*shard, tt.n)
		for i := range shards {
			shards[i] = &shard{id: i}
		}
		var got [][]int
		for _, round := range startRounds(shards, tt.maxConcurrency) {
			var ids []int
			for _, sh := range round {
				ids = append(ids, sh.id)
			}
			got = append(got, ids)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("startRounds(%d shards, max_concurrency %d) = %v; want %v", tt.n, tt.maxConcurrency, got, tt.want)
		}
	}
}

// Routes in logs carry no IDs and no interaction tokens.
func TestRoute(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/api/v9/interactions/1234/aW50ZXJhY3Rpb246MTIzNDp0b2tlbg/callback", "/interactions/:id/:token/callback"},
		{"/api/v9/webhooks/99/tok-en_abc/messages/@original", "/webhooks/:id/:token/messages/@original"},
		{"/api/v9/webhooks/99/lowercasetoken", "/webhooks/:id/:token"},
		{"/api/v9/channels/42/messages", "/channels/:id/messages"},
		{"/api/v9/applications/7/guilds/8/commands", "/applications/:id/guilds/:id/commands"},
		{"/api/v10/gateway/bot", "/gateway/bot"},
		{"/users/@me", "/users/@me"},
	}
	for _, tt := range tests {
		if got := route(tt.path); got != tt.want {
			t.Errorf("route(%q) = %q; want %q", tt.path, got, tt.want)
		}
	}
}

// HeartbeatLatency and Connected read discordgo's unexported websocket
// mutex and connection; an upgrade of discordgo that renames them must
// fail here, not quietly report 0 and false.
func TestSessionFields(t *testing.T) {
	if wsMutexField < 0 || wsConnField < 0 {
		t.Fatalf("discordgo.Session fields: wsMutex at %d, wsConn at %d; want both found", wsMutexField, wsConnField)
	}
}
