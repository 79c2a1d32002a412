package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// FuzzHandle feeds the bot whatever JSON decodes as an interaction, as the
// HTTP endpoint and the gateway would hand it over: malformed options,
// unknown types, missing member, user or channel, huge values, unknown
// custom_ids. Every one gets exactly one answer, none panics, and an
// ephemeral answer (a refusal) leaves the channel's game as it was.
func FuzzHandle(f *testing.F) {
	slash := func(sub string, opts ...map[string]any) []byte {
		b, _ := json.Marshal(slashPayload(f, sub, opts, nil).Interaction)
		return b
	}
	button := func(id string) []byte {
		b, _ := json.Marshal(buttonPayload(f, id).Interaction)
		return b
	}
	f.Add(slash("move", intOpt("row", 2), intOpt("col", 2)))
	f.Add(slash("move", intOpt("row", 1<<40), intOpt("col", -3)))
	f.Add(slash("move", map[string]any{"type": 3, "name": "row", "value": "two"}, intOpt("col", 1)))
	f.Add(slash("move", intOpt("row", 1.5), intOpt("col", 1)))
	f.Add(slash("start", intOpt("size", 99), intOpt("win", 0)))
	f.Add(slash("start", map[string]any{"type": 3, "name": "difficulty", "value": strings.Repeat("hard", 10_000)}))
	f.Add(slash("start", map[string]any{"type": 6, "name": "opponent", "value": "not a user"}))
	f.Add(slash("nonsense"))
	f.Add(slash("board"))
	f.Add(slash("resign"))
	f.Add(slash("stats", map[string]any{"type": 6, "name": "user", "value": "123"}))
	f.Add(button("move/abc/1/1/1"))
	f.Add(button("accept/zzz"))
	f.Add(button(strings.Repeat("x", 5000)))
	f.Add(button("move/../../-1/0"))
	f.Add([]byte(`{"id":"1","type":2,"token":"t","channel_id":"1","data":{"name":"ttt","options":[{"type":1,"name":"move","options":null}]}}`))
	f.Add([]byte(`{"id":"2","type":3,"token":"t","data":{"custom_id":"rematch/abc","component_type":2}}`))
	f.Add([]byte(`{"id":"3","type":99,"token":"t","channel_id":"1"}`))
	f.Add([]byte(`{"id":"4","type":4,"token":"t","channel_id":"1","data":{"name":"ttt"}}`))
	f.Add([]byte(`{"id":"5","type":5,"token":"t","channel_id":"1","data":{"custom_id":"x","components":[]}}`))
	f.Add([]byte(`{"type":2}`))

	rec := new(recorder)
	var panicked panicWatch
	b := New(rec, StoresOf(new(store.Memory)), DefaultConfig(), slog.New(slog.NewTextHandler(&panicked, nil)))
	b.SetSelf("1000000000000000001")
	f.Cleanup(b.Close)
	// The documented payloads' channel has a running game.
	b.serveIC(context.Background(), slashPayload(f, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))

	f.Fuzz(func(t *testing.T, data []byte) {
		i := new(discordgo.Interaction)
		if json.Unmarshal(data, i) != nil {
			return // the endpoint answers 400; the gateway drops the event
		}
		ctx := context.Background()
		before, err := b.stores.Games.Current(ctx, i.ChannelID)
		if err != nil {
			t.Fatal(err)
		}
		rec.mu.Lock()
		n := len(rec.responses)
		rec.mu.Unlock()

		b.handle(ctx, i, viaDiscord{rec, i})

		rec.mu.Lock()
		answers := rec.responses[n:]
		rec.mu.Unlock()
		if len(answers) != 1 {
			t.Fatalf("%d answers; want exactly 1", len(answers))
		}
		if panicked.Load() {
			t.Fatal("the handler panicked (the router caught it)")
		}
		a := answers[0]
		if a.Data == nil || a.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
			return // a board or a challenge: something was done
		}
		after, err := b.stores.Games.Current(ctx, i.ChannelID)
		if err != nil {
			t.Fatal(err)
		}
		if (before == nil) != (after == nil) || before != nil && (before.ID != after.ID || before.Version != after.Version) {
			t.Fatalf("a refusal (%q) changed the channel's game: %+v → %+v", a.Data.Content, before, after)
		}
	})
}

// panicWatch is a log sink that notes a logged panic.
type panicWatch struct{ atomic.Bool }

func (p *panicWatch) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("panic: ")) {
		p.Store(true)
	}
	return len(b), nil
}
