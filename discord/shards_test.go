package discord_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// Two processes run shard 0 and shard 1 of 2: each answers the
// interactions of its own guilds, and only those.
func TestTwoShardProcesses(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	procs := []*process{
		r.start(t, discord.Options{ShardID: 0, ShardCount: 2}),
		r.start(t, discord.Options{ShardID: 1, ShardCount: 2}),
	}
	for i, p := range procs {
		if got := p.gw.Shards(); !slices.Equal(got, []int{i}) {
			t.Errorf("process %d: Shards() = %v; want [%d]", i, got, i)
		}
	}
	for i, id := range r.srv.Identifies() {
		if id.Shard == nil || *id.Shard != [2]int{i, 2} {
			t.Errorf("Identifies()[%d] = %v; want shard [%d 2]", i, id, i)
		}
	}
	for _, tc := range []struct {
		guild string
		shard int
	}{{guildOf(0, 2), 0}, {guildOf(1, 2), 1}, {"", 0}} {
		in := r.help(t, tc.guild)
		if _, err := in.Response(r.ctx); err != nil {
			t.Fatalf("guild %q: %v; want an answer", tc.guild, err)
		}
		select {
		case id := <-procs[tc.shard].handled:
			if id != in.ID {
				t.Errorf("shard %d handled %s; want %s", tc.shard, id, in.ID)
			}
		case <-procs[1-tc.shard].handled:
			t.Errorf("guild %q (shard %d) was handled by shard %d", tc.guild, tc.shard, 1-tc.shard)
		case <-r.ctx.Done():
			t.Fatalf("guild %q: answered but never handled: %v", tc.guild, r.ctx.Err())
		}
		if got := discord.ShardOf(tc.guild, 2); got != tc.shard {
			t.Errorf("ShardOf(%q, 2) = %d; want %d", tc.guild, got, tc.shard)
		}
	}
	for i, p := range procs {
		if got := p.logs.lines("does not own its guild"); len(got) > 0 {
			t.Errorf("process %d: %q", i, got)
		}
	}
}

// With AutoShards a process runs every shard Discord recommends, and
// identifies them max_concurrency (here 1) at a time, a StartInterval
// apart.
func TestAutoShards(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(s *discordtest.Server) { s.Shards = 3 })
	const interval = 50 * time.Millisecond
	p := r.start(t, discord.Options{AutoShards: true, StartInterval: interval})
	if got := p.gw.Shards(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("Shards() = %v; want [0 1 2]", got)
	}
	ids := r.srv.Identifies()
	if len(ids) != 3 {
		t.Fatalf("Identifies() = %v; want 3", ids)
	}
	for i, id := range ids {
		if id.Shard == nil || *id.Shard != [2]int{i, 3} {
			t.Errorf("Identifies()[%d] = %v; want shard [%d 3]", i, id, i)
		}
		// A round starts StartInterval after the one before it was ready,
		// so this holds however slow the machine.
		if i > 0 && id.Time.Sub(ids[i-1].Time) < interval {
			t.Errorf("identify %d came %v after identify %d; want at least %v", i, id.Time.Sub(ids[i-1].Time), i-1, interval)
		}
	}
	for shard := range 3 {
		r.answered(t, guildOf(shard, 3))
	}
	waitConnected(t, r.ctx, p.gw)
	if d := p.gw.HeartbeatLatency(); d <= 0 {
		t.Errorf("HeartbeatLatency() = %v; want > 0", d)
	}
}

// waitConnected waits for Connected: a shard counts as connected once it
// has sent its first heartbeat, just after READY.
func waitConnected(t *testing.T, ctx context.Context, gw *discord.Gateway) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !gw.Connected() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("Connected() stayed false: %v", ctx.Err())
		}
	}
}

// Shard options that make no sense are refused before anything connects,
// in the words of Options.
func TestShardOptionsChecked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    discord.Options
		want error
	}{
		{discord.Options{ShardID: 2, ShardCount: 2}, discord.ErrShardID},
		{discord.Options{ShardID: -1, ShardCount: 2}, discord.ErrShardID},
		{discord.Options{ShardID: 0, ShardCount: -1}, discord.ErrShardCount},
		{discord.Options{ShardID: 1}, discord.ErrShardID},
		{discord.Options{AutoShards: true, ShardCount: 2}, discord.ErrAutoShards},
		{discord.Options{AutoShards: true, ShardID: 1}, discord.ErrAutoShards},
	} {
		o := tt.o
		o.Token, o.APIURL = "token", "http://127.0.0.1:1/api/v9" // never reached
		gw, err := discord.OpenWith(context.Background(), o)
		if err == nil {
			gw.Close()
			t.Errorf("OpenWith(ShardID %d, ShardCount %d, AutoShards %v) = nil error; want one", o.ShardID, o.ShardCount, o.AutoShards)
			continue
		}
		if msg := err.Error(); !errors.Is(err, tt.want) || !strings.Contains(msg, "ShardID") && !strings.Contains(msg, "ShardCount") || strings.Contains(msg, "SHARD_") {
			t.Errorf("OpenWith(ShardID %d, ShardCount %d, AutoShards %v) = %q; want %q, naming ShardID or ShardCount, not a variable", o.ShardID, o.ShardCount, o.AutoShards, msg, tt.want)
		}
	}
}

// Connected is true while every shard's connection is up, and false once
// the gateway is closed; HeartbeatLatency and Connected can be read while
// heartbeats flow (discordgo's own HeartbeatLatency is a data race).
func TestHealth(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(s *discordtest.Server) { s.HeartbeatInterval = 50 * time.Millisecond })
	p := r.start(t, discord.Options{})
	waitConnected(t, r.ctx, p.gw)
	if err := r.srv.WaitHeartbeats(r.ctx, 10); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			p.gw.HeartbeatLatency()
			p.gw.Connected()
		}
	}()
	if err := r.srv.WaitHeartbeats(r.ctx, 20); err != nil {
		t.Fatal(err)
	}
	<-done
	if d := p.gw.HeartbeatLatency(); d <= 0 || d > time.Minute {
		t.Errorf("HeartbeatLatency() = %v; want a small positive duration", d)
	}
	if err := p.gw.Close(); err != nil {
		t.Fatal(err)
	}
	if p.gw.Connected() {
		t.Error("Connected() after Close = true; want false")
	}
}

// With max_concurrency 2, shards 0 and 1 identify in the first round,
// 2 and 3 in the next, StartInterval after the first round was ready.
func TestAutoShardsConcurrency(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(s *discordtest.Server) { s.Shards, s.MaxConcurrency = 4, 2 })
	const interval = 50 * time.Millisecond
	p := r.start(t, discord.Options{AutoShards: true, StartInterval: interval})
	if got := p.gw.Shards(); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("Shards() = %v; want [0 1 2 3]", got)
	}
	ids := r.srv.Identifies()
	if len(ids) != 4 {
		t.Fatalf("Identifies() = %v; want 4", ids)
	}
	var firstRoundDone time.Time
	for _, id := range ids {
		if id.Shard == nil {
			t.Fatalf("identify without a shard: %v", id)
		}
		if id.Shard[0] < 2 && id.Time.After(firstRoundDone) {
			firstRoundDone = id.Time
		}
	}
	for _, id := range ids {
		if id.Shard[0] >= 2 && id.Time.Sub(firstRoundDone) < interval {
			t.Errorf("shard %d identified %v after the first round; want at least %v", id.Shard[0], id.Time.Sub(firstRoundDone), interval)
		}
	}
	for shard := range 4 {
		r.answered(t, guildOf(shard, 4))
	}
}
