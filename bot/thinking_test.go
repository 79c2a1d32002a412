package bot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// moveBy answers /ttt move row col by user in channel, and returns the
// answer.
func moveBy(t *testing.T, b *Bot, rec *recorder, user, channel string, row, col int) *discordgo.InteractionResponse {
	t.Helper()
	ic := slashPayload(t, "move", []map[string]any{intOpt("row", row), intOpt("col", col)}, nil)
	ic.ChannelID, ic.Member.User.ID = channel, user
	b.serveIC(context.Background(), ic)
	return rec.last(t)
}

// freeCell is a free cell (1-based) of the game in channel.
func freeCell(t *testing.T, b *Bot, channel string) (row, col int) {
	t.Helper()
	g, err := b.stores.Games.Current(context.Background(), channel)
	if err != nil || g == nil {
		t.Fatalf("Current(%s) = %v, %v", channel, g, err)
	}
	taken := map[[2]int]bool{}
	for _, m := range g.Moves {
		taken[[2]int{m.Row, m.Col}] = true
	}
	for i := range g.Size * g.Size {
		if c := [2]int{i / g.Size, i % g.Size}; !taken[c] {
			return c[0] + 1, c[1] + 1
		}
	}
	t.Fatalf("no free cell in %s", channel)
	return 0, 0
}

// storedMoves counts the moves of the game in channel, as stored.
func storedMoves(t *testing.T, b *Bot, channel string) int {
	t.Helper()
	g, err := b.stores.Games.Current(context.Background(), channel)
	if err != nil || g == nil {
		t.Fatalf("Current(%s) = %v, %v", channel, g, err)
	}
	return len(g.Moves)
}

// A player's moves against the computer are paced: moveBurst at once (in
// any of their games), then one per moveEvery. The move refused says why
// and when to move again, and changes nothing; another player is not
// slowed; a move refused for its own reason costs nothing.
func TestMovesAgainstTheComputerArePaced(t *testing.T) {
	l := english()
	b, rec, clk := newClockedBot(t)
	// Two moves in each game: neither can end a 3×3 game.
	for i := range moveBurst / 2 {
		channel := fmt.Sprint("m", i)
		if r := startBy(t, b, rec, mason, channel); !public(r) {
			t.Fatalf("start in %s answered %q; want a board", channel, r.Data.Content)
		}
		for j := range 2 {
			row, col := freeCell(t, b, channel)
			if r := moveBy(t, b, rec, mason, channel, row, col); !public(r) {
				t.Fatalf("move %d answered %q; want the board", 2*i+j+1, r.Data.Content)
			}
		}
	}
	row, col := freeCell(t, b, "m0")
	before := storedMoves(t, b, "m0")
	wantEphemeral(t, moveBy(t, b, rec, mason, "m0", row, col),
		l.T("move.too_fast", map[string]any{"At": clk.now().Add(moveEvery + time.Second - 1).Unix()}))
	if after := storedMoves(t, b, "m0"); after != before {
		t.Errorf("a move refused for its pace left %d moves; want %d", after, before)
	}

	// Another player plays on.
	startBy(t, b, rec, "77", "other")
	if r := moveBy(t, b, rec, "77", "other", 2, 2); !public(r) {
		t.Errorf("another player's move answered %q; want the board", r.Data.Content)
	}

	clk.advance(moveEvery)
	// On a taken cell: refused for that, and it costs nothing.
	wantEphemeral(t, moveBy(t, b, rec, mason, "m0", 1, 1), "taken")
	if r := moveBy(t, b, rec, mason, "m0", row, col); !public(r) {
		t.Errorf("a move %v later answered %q; want the board", moveEvery, r.Data.Content)
	}
}

// The computer thinks for at most thinkSlots moves at once. A move that
// finds no slot within its wait is refused in words, the game unchanged;
// once a slot is free, moves are answered again. A move against a person
// needs no slot; a rematch in which the computer moves first does.
func TestComputerThinksInSlots(t *testing.T) {
	l := english()
	b, rec, _ := newClockedBot(t)
	b.think.wait = time.Millisecond // the verdict does not hang on it: every slot is held
	startBy(t, b, rec, mason, "c1")
	for range cap(b.think.slots) {
		b.think.slots <- struct{}{} // held, as by searches that do not end
	}
	wantEphemeral(t, moveBy(t, b, rec, mason, "c1", 1, 1), l.T("move.computer_busy", nil))
	if n := storedMoves(t, b, "c1"); n != 0 {
		t.Errorf("a move the computer had no time for left %d moves; want 0", n)
	}

	// A game between people plays on.
	resolved := map[string]any{"users": map[string]any{bob: map[string]any{"id": bob, "username": "bob"}}}
	ctx := context.Background()
	b.serveIC(ctx, as(slashPayload(t, "start", []map[string]any{{"type": 6, "name": "opponent", "value": bob}}, resolved), mason))
	c, err := b.stores.Challenges.Challenge(ctx, fixtureChannel)
	if err != nil || c == nil {
		t.Fatalf("stored challenge = %v, %v; want one", c, err)
	}
	b.serveIC(ctx, as(clickIn(t, fixtureChannel, route{action: actAccept, id: c.ID}.String()), bob))
	if r := moveBy(t, b, rec, mason, fixtureChannel, 1, 1); !public(r) {
		t.Errorf("a move against a person answered %q; want the board", r.Data.Content)
	}

	// A rematch in which the computer moves first needs a slot too.
	b.serveIC(ctx, func() *discordgo.InteractionCreate {
		ic := slashPayload(t, "resign", nil, nil)
		ic.ChannelID = "c1"
		return ic
	}())
	over, err := b.stores.Games.Current(ctx, "c1")
	if err != nil || over == nil || over.Running() {
		t.Fatalf("game in c1 after resigning = %+v, %v; want one over", over, err)
	}
	b.serveIC(ctx, as(clickIn(t, "c1", route{action: actRematch, id: over.ID}.String()), mason))
	wantEphemeral(t, rec.last(t), l.T("rematch.computer_busy", nil)) // no game was started: not "this move was not played"
	if g, _ := b.stores.Games.Current(ctx, "c1"); g.ID != over.ID {
		t.Errorf("a rematch the computer had no time for started game %s", g.ID)
	}

	<-b.think.slots // one search ends
	b.serveIC(ctx, as(clickIn(t, "c1", route{action: actRematch, id: over.ID}.String()), mason))
	if r := rec.last(t); !public(r) {
		t.Fatalf("a rematch once a slot was free answered %q; want the board", r.Data.Content)
	}
	if g, _ := b.stores.Games.Current(ctx, "c1"); len(g.Moves) != 1 {
		t.Errorf("the rematch's game has %d moves; want 1, the computer's first", len(g.Moves))
	}
	row, col := freeCell(t, b, "c1")
	if r := moveBy(t, b, rec, mason, "c1", row, col); !public(r) {
		t.Errorf("a move once a slot was free answered %q; want the board", r.Data.Content)
	}
	if n := storedMoves(t, b, "c1"); n != 3 {
		t.Errorf("%d moves after the computer answered; want 3", n)
	}
	if got := len(b.think.slots); got != cap(b.think.slots)-1 {
		t.Errorf("%d slots held after the move; want %d (the move gave its slot back)", got, cap(b.think.slots)-1)
	}
}

// savingStore calls onSave, when set, with each game before it is saved.
type savingStore struct {
	store.Memory
	mu     sync.Mutex
	onSave func(g *store.Game)
}

func (s *savingStore) Save(ctx context.Context, g *store.Game) error {
	s.mu.Lock()
	f := s.onSave
	s.mu.Unlock()
	if f != nil {
		f(g)
	}
	return s.Memory.Save(ctx, g)
}

// A rematch in which the computer moves first holds a slot for the
// computer's move only: not while the new game is saved and answered
// (which may be slow, and needs no thinking), so that a slow save or
// Discord answer does not keep every other move against the computer
// waiting. A bystander's rematch needs no slot: told at once that only
// the players may ask, even when every slot is held.
func TestRematchGivesItsSlotBack(t *testing.T) {
	ctx := context.Background()
	st := new(savingStore)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	startBy(t, b, rec, mason, "c1")
	resign := func() *discordgo.InteractionCreate {
		ic := slashPayload(t, "resign", nil, nil)
		ic.ChannelID = "c1"
		return ic
	}
	b.serveIC(ctx, resign())
	over, err := b.stores.Games.Current(ctx, "c1")
	if err != nil || over == nil || over.Running() {
		t.Fatalf("game in c1 after resigning = %+v, %v; want one over", over, err)
	}

	// A bystander, with every slot held.
	b.think.wait = time.Millisecond // were it waited for, it would answer "busy"
	for range cap(b.think.slots) {
		b.think.slots <- struct{}{}
	}
	b.serveIC(ctx, as(clickIn(t, "c1", route{action: actRematch, id: over.ID}.String()), "77"))
	r := rec.last(t)
	wantEphemeral(t, r, "can ask for a rematch")
	if strings.Contains(r.Data.Content, "thinking") {
		t.Errorf("a bystander's rematch answered %q; want only that they are not a player", r.Data.Content)
	}
	for range cap(b.think.slots) {
		<-b.think.slots
	}

	held := -1 // slots held while the rematch's game was saved
	st.mu.Lock()
	st.onSave = func(g *store.Game) {
		if g.ID != over.ID && held < 0 {
			held = len(b.think.slots)
		}
	}
	st.mu.Unlock()
	b.serveIC(ctx, as(clickIn(t, "c1", route{action: actRematch, id: over.ID}.String()), mason))
	if r := rec.last(t); !public(r) {
		t.Fatalf("the rematch answered %q; want the board", r.Data.Content)
	}
	if g, _ := b.stores.Games.Current(ctx, "c1"); g.ID == over.ID || len(g.Moves) != 1 {
		t.Fatalf("game in c1 after the rematch = %s with %d moves; want a new one with the computer's first move", g.ID, len(g.Moves))
	}
	if held != 0 {
		t.Errorf("%d of the computer's slots held while the rematch's game was saved; want 0 (its move was made)", held)
	}
}
