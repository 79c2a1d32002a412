package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// After 10,000 games in 10,000 channels have ended, the bot holds nothing
// for them: no channel entry, no timer goroutine, and the heap is back near
// where it started (the games themselves are in the SQLite file).
func TestMemoryReturnsAfterGamesEnd(t *testing.T) {
	// Under the race detector (as in CI's main run) each game costs ten
	// times as much: 1,000 games there; .ci/run also runs this test
	// without -race, with the full 10,000.
	games := 10000
	if testing.Short() || raceBuild {
		games = 1000
	}
	st, err := store.OpenSQLite(filepath.Join(t.TempDir(), "tttbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := &discardDiscord{}
	b := New(rec, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()

	play := func(from, to int) {
		for i := from; i < to; i++ {
			ch := fmt.Sprint(1000000000000000000 + i)
			for _, sub := range []string{"start", "resign"} {
				var opts []map[string]any
				if sub == "start" { // easy: the test is about memory, not the computer's search
					opts = []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}
				}
				ic := slashPayload(t, sub, opts, nil)
				// A player of its own in each channel: one player's starts
				// are paced (startLimits).
				ic.ChannelID, ic.Member.User.ID = ch, fmt.Sprint(2000000000000000000+i)
				b.handle(context.Background(), ic.Interaction, rec)
				if rec.last == nil || rec.last.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
					t.Fatalf("channel %s: /ttt %s answered %+v; want a board", ch, sub, rec.last)
				}
			}
		}
	}
	// Warm up (SQLite's page cache, the race detector's shadow memory,
	// pools), then measure.
	play(0, 200)
	heap0, goroutines0 := settledHeap()
	play(200, 200+games)
	heap1, goroutines1 := settledHeap()

	if n := b.tables.channels.len(); n != 0 {
		t.Errorf("after %d ended games the registry holds %d channels; want 0", games, n)
	}
	if goroutines1 > goroutines0+2 {
		t.Errorf("goroutines went from %d to %d after %d ended games; want them back", goroutines0, goroutines1, games)
	}
	// A leak of one channel entry with its timer per game would be about
	// 1 kB a game; allow a fifth of that, plus 256 kB for caches that fill
	// up once (SQLite's pages, statements, pools).
	if grew := int64(heap1) - int64(heap0); grew > int64(games)*200+256<<10 {
		t.Errorf("heap grew by %d bytes over %d ended games (%d B/game); want it back near %d", grew, games, grew/int64(games), heap0)
	}
	t.Logf("%d games: heap %d → %d bytes, goroutines %d → %d", games, heap0, heap1, goroutines0, goroutines1)
}

func settledHeap() (heap uint64, goroutines int) {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// discardDiscord answers and edits without keeping anything but the last
// answer, so that the test itself does not hold memory.
type discardDiscord struct {
	last *discordgo.InteractionResponse
}

func (d *discardDiscord) Respond(_ context.Context, r *discordgo.InteractionResponse) error {
	d.last = r
	return nil
}

func (d *discardDiscord) InteractionResponseDelete(*discordgo.Interaction, ...discordgo.RequestOption) error {
	return nil
}

func (d *discardDiscord) InteractionResponse(*discordgo.Interaction, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageSendComplex(string, *discordgo.MessageSend, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageSendNonce(string, *discordgo.MessageSend, string, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageEditComplex(*discordgo.MessageEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageDelete(string, string, ...discordgo.RequestOption) error {
	return nil
}

func (d *discardDiscord) InteractionResponseEdit(*discordgo.Interaction, *discordgo.WebhookEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ApplicationCommandBulkOverwrite(string, string, []*discordgo.ApplicationCommand, ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error) {
	return nil, nil
}

func (d *discardDiscord) ApplicationCommandsJSON(string, string, ...discordgo.RequestOption) ([]json.RawMessage, error) {
	return nil, nil
}

func (d *discardDiscord) ApplicationCommandBulkOverwriteJSON(string, string, []json.RawMessage, ...discordgo.RequestOption) error {
	return nil
}

func (d *discardDiscord) FollowupMessageCreate(*discordgo.Interaction, bool, *discordgo.WebhookParams, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) FollowupMessageDelete(*discordgo.Interaction, string, ...discordgo.RequestOption) error {
	return nil
}
