package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
	"github.com/tttbot/tttbot/web"
)

// The live board (live.go): the page's taps go through the same path as
// clicks in chat, and what it shows is the stored game.

// withUsers is a test Discord that also reads users (Live's names and
// avatars), as discordgo's Session does with the bot token.
type withUsers struct {
	*recorder
	users map[string]*discordgo.User
}

func (w withUsers) User(id string, _ ...discordgo.RequestOption) (*discordgo.User, error) {
	if u := w.users[id]; u != nil {
		return u, nil
	}
	return nil, &discordgo.RESTError{Response: nil, Message: &discordgo.APIErrorMessage{Code: discordgo.ErrCodeUnknownUser}}
}

// liveBot is a clocked bot on a memory store whose Discord knows mason,
// bob and the bot, and records every edit on rec.edited.
func liveBot(t *testing.T) (*Bot, *recorder, *clock) {
	t.Helper()
	clk := &clock{t: time.Now()}
	rec := &recorder{edited: make(chan struct{}, 64)}
	dc := withUsers{recorder: rec, users: map[string]*discordgo.User{
		mason: {ID: mason, Username: "mason", GlobalName: "Mason", Avatar: "a1b2"},
		bob:   {ID: bob, Username: "bob"},
		botID: {ID: botID, Username: "tttbot", Bot: true},
	}}
	cfg := DefaultConfig()
	cfg.Now = clk.now
	b := New(dc, StoresOf(new(store.Memory)), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf(botID)
	t.Cleanup(b.Close)
	return b, rec, clk
}

func viewer(user, locale string) web.Viewer {
	return web.Viewer{UserID: user, GuildID: fixtureGuild, ChannelID: fixtureChannel, Locale: locale}
}

func mustState(t *testing.T, l *Live, v web.Viewer) web.State {
	t.Helper()
	st, err := l.State(context.Background(), v)
	if err != nil {
		t.Fatalf("State = %v", err)
	}
	return st
}

// watching is a watch of the fixture's channel, stopped at the end.
func watching(t *testing.T, l *Live) <-chan web.Change {
	t.Helper()
	c, stop, err := l.Watch(context.Background(), fixtureChannel)
	if err != nil {
		t.Fatalf("Watch = %v", err)
	}
	t.Cleanup(stop)
	return c
}

func nextChange(t *testing.T, c <-chan web.Change) web.Change {
	t.Helper()
	select {
	case ch := <-c:
		return ch
	case <-time.After(30 * time.Second):
		t.Fatal("no change heard")
		return web.Change{}
	}
}

func waitEdit(t *testing.T, rec *recorder) {
	t.Helper()
	select {
	case <-rec.edited:
	case <-time.After(30 * time.Second):
		t.Fatal("the board was not edited")
	}
}

// liveGame puts a n×n game (k in a row) of mason against bob in the
// fixture's channel, with board as its chat board (the zero Board: none),
// and returns it and the bot's live board.
func liveGame(t *testing.T, b *Bot, n, k int, board store.Board) (*match, *Live) {
	t.Helper()
	bm := bigGame(t, b, n, k, bob)
	if board != (store.Board{}) {
		bm.Board = board
		if err := b.tables.put(context.Background(), bm); err != nil {
			t.Fatal(err)
		}
	}
	return bm, b.Live()
}

// played does a for v on l, and fails t unless the game took it.
func played(t *testing.T, l *Live, v web.Viewer, a web.Action) {
	t.Helper()
	if refusal, err := l.Act(context.Background(), v, a); err != nil || refusal != "" {
		t.Fatalf("Act(%s) of %s = %q, %v; want it played", a.Type, v.UserID, refusal, err)
	}
}

// A tap on the page plays the move as a click would: saved, answered by
// the computer in the same save, told on the feed, and drawn on the chat
// board through its token, which now says that the game goes on in the
// Activity (the bot cannot reach it once the token expires). A click in
// chat afterwards is told on the feed too.
func TestLiveMove(t *testing.T) {
	b, rec, _ := liveBot(t)
	ctx := context.Background()
	start := install(as(slashPayload(t, "start", nil, nil), mason), false)
	b.serveIC(ctx, start)
	l := b.Live()
	st := mustState(t, l, viewer(mason, "en-US"))
	if !st.Running || st.You != "X" || st.Turn != "X" || len(st.Cells) != 9 || st.Size != 3 || st.Version == 0 {
		t.Fatalf("state before = %+v; want a running 3×3 game, Mason (X) to move", st)
	}
	if p := st.Players; p[0].Name != "Mason" || p[0].Avatar != "cdn/avatars/"+mason+"/a1b2.png?size=64" || p[0].Mark != "X" || p[1].Name != "tttbot" || !p[1].Bot || p[1].Avatar != "" {
		t.Errorf("players = %+v; want Mason with his avatar through the activity's mapping of Discord's CDN, and the bot without", p)
	}
	if want := english().T("page.status.your_move", nil); st.Status != want {
		t.Errorf("status = %q; want %q", st.Status, want)
	}
	changes := watching(t, l)

	refusal, err := l.Act(ctx, viewer(mason, "en-US"), web.Action{Type: "move", Row: 2, Col: 2, Version: st.Version})
	if err != nil || refusal != "" {
		t.Fatalf("Act(move) = %q, %v; want it played", refusal, err)
	}
	m := current(t, b)
	if m.Judge.Len() != 2 || m.Judge.At(1, 1) != game.X {
		t.Fatalf("stored game has %d moves; want Mason's in the centre and the computer's answer", m.Judge.Len())
	}
	if !m.Board.Outside || m.Board.Stale || m.Board.Token != start.Token {
		t.Errorf("stored board = %+v; want the start's board, played outside chat, not stale", m.Board)
	}
	if c := nextChange(t, changes); c.Version != m.Version || c.GameID != m.ID {
		t.Errorf("heard %+v; want version %d of %s", c, m.Version, m.ID)
	}
	after := mustState(t, l, viewer(mason, "en-US"))
	if after.Version != m.Version || len(after.Moves) != 2 || after.Moves[0] != (web.Move{Row: 2, Col: 2, Mark: "X"}) || after.Cells[4] != "X" {
		t.Errorf("state after = %+v; want the move and the answer", after)
	}

	waitEdit(t, rec)
	rec.mu.Lock()
	content, ref := *rec.edits[len(rec.edits)-1].Content, rec.editRefs[len(rec.editRefs)-1]
	rec.mu.Unlock()
	if ref != start.Token || content != boardView(english(), m).content {
		t.Errorf("chat board edited through %q to %q; want it through the start's token, showing the game", ref, content)
	}
	if note := english().T("page.board_note", nil); !strings.Contains(content, note) {
		t.Errorf("chat board %q; want it to say %q", content, note)
	}

	// A click in chat is heard by the page.
	var free route
	for r := 1; r <= 3 && free.id == ""; r++ {
		for c := 1; c <= 3; c++ {
			if m.Judge.At(r-1, c-1) == game.None {
				free = cell(m, r, c)
				break
			}
		}
	}
	b.serveIC(ctx, install(as(buttonPayload(t, free.String()), mason), false))
	if c := nextChange(t, changes); c.Version <= m.Version || c.GameID != m.ID {
		t.Errorf("after a click in chat heard %+v; want a version after %d", c, m.Version)
	}
}

// Taps the game refuses change nothing and draw nothing, and are answered
// with the words chat would use, in the tapper's language: a spectator's,
// one out of turn, one on a page showing an older version, one on a game
// that is over.
func TestLiveRefusals(t *testing.T) {
	b, rec, _ := liveBot(t)
	ctx := context.Background()
	bm, l := liveGame(t, b, 3, 3, store.Board{})
	v := bm.Version
	before := func() (int, int) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.responses), len(rec.edits)
	}
	r0, e0 := before()
	names := map[string]string{mason: "Mason", bob: "bob"}
	check := func(what string, who web.Viewer, a web.Action, key string, data map[string]any) {
		t.Helper()
		refusal, err := l.Act(ctx, who, a)
		if err != nil {
			t.Fatalf("%s: Act = %v", what, err)
		}
		want := plainText(b.catalog.For(who.Locale).T(key, data), names)
		if refusal != want || refusal == "" {
			t.Errorf("%s: refusal %q; want %q", what, refusal, want)
		}
		if m := current(t, b); m.Version != v {
			t.Errorf("%s: the game moved to version %d; want %d", what, m.Version, v)
		}
		if r, e := before(); r != r0 || e != e0 {
			t.Errorf("%s: %d answers and %d edits made; want none", what, r-r0, e-e0)
		}
	}
	mustState(t, l, viewer(mason, "de")) // names known
	check("a spectator", viewer("777", "de"), web.Action{Type: "move", Row: 1, Col: 1, Version: v}, "move.not_player", moveData(bm, 1, 1))
	check("out of turn", viewer(bob, "fr"), web.Action{Type: "move", Row: 1, Col: 1, Version: v}, "move.not_your_turn", moveData(bm, 1, 1))
	check("a stale page", viewer(mason, "ja"), web.Action{Type: "move", Row: 1, Col: 1, Version: v - 1}, "page.stale", nil)
	ply := current(t, b).Judge.Len()
	check("a tap on another game", viewer(mason, "ja"), web.Action{Type: "move", Row: 1, Col: 1, Version: v, GameID: "another", Ply: ply}, "page.stale", nil)
	check("a tap on an older position", viewer(mason, "ja"), web.Action{Type: "move", Row: 1, Col: 1, Version: v, GameID: bm.ID, Ply: ply - 1}, "page.stale", nil)
	check("a cell outside", viewer(mason, "ru"), web.Action{Type: "move", Row: 4, Col: 1, Version: v}, "move.outside", moveData(bm, 4, 1))
	check("a spectator resigning", viewer("777", "pt-BR"), web.Action{Type: "resign"}, "resign.not_player", nil)
	check("a draw with nothing offered", viewer(bob, "es"), web.Action{Type: "answer_draw", Accept: true}, "draw.gone", nil)

	played(t, l, viewer(mason, "en-US"), web.Action{Type: "resign"})
	m := current(t, b)
	if m.End != game.EndResigned || m.Loser != game.X || !m.Board.Outside {
		t.Fatalf("after resigning: %+v; want Mason's resignation", m.Match)
	}
	v = m.Version
	r0, e0 = before()
	check("a game over", viewer(bob, "zh-Hans"), web.Action{Type: "move", Row: 1, Col: 1, Version: v}, "move.game_over", nil)
	st := mustState(t, l, viewer(bob, "de"))
	if st.Running || st.GameID != m.ID || !strings.Contains(st.Status, "Mason") || strings.Contains(st.Status, "<@") {
		t.Errorf("state of the finished game = %+v; want it, not running, its result in names", st)
	}
}

// A move on the page that the bot cannot draw on the chat board (its
// token expired, its message unknown) marks the board stale; the next
// click on it, refused, is answered by drawing the board as it stands
// (saying that the game goes on in the Activity), and the refusal follows
// to the clicker alone.
func TestLiveStaleBoardRedrawnAtNextClick(t *testing.T) {
	b, rec, clk := liveBot(t)
	ctx := context.Background()
	bm, l := liveGame(t, b, 4, 4, store.Board{AppID: "app", Token: "old-token", At: clk.now().Add(-tokenLife - time.Minute)})
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "move", Row: 1, Col: 1, Version: bm.Version})
	m := current(t, b)
	if !m.Board.Stale || !m.Board.Outside {
		t.Fatalf("stored board = %+v; want it stale", m.Board)
	}
	rec.mu.Lock()
	if n := len(rec.edits) + len(rec.channelEdits); n != 0 {
		t.Errorf("%d edits of a board the bot cannot reach", n)
	}
	rec.mu.Unlock()

	// bob, seeing the board without Mason's move, taps that very cell.
	click := install(as(buttonPayload(t, cell(m, 1, 1).String()), bob), false)
	b.serveIC(ctx, click)
	r := rec.last(t)
	after := current(t, b)
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data.Content != boardView(english(), after).content {
		t.Fatalf("the click was answered %d %q; want the board as it stands", r.Type, r.Data.Content)
	}
	if note := english().T("page.board_note", nil); !strings.Contains(r.Data.Content, note) {
		t.Errorf("the redrawn board %q; want it to say %q", r.Data.Content, note)
	}
	if after.Board.Stale || after.Board.Token != click.Token || after.Judge.Len() != m.Judge.Len() {
		t.Errorf("after the click: board %+v, %d moves; want it fresh with the click's token, nothing played", after.Board, after.Judge.Len())
	}
	b.Close() // the refusal follows in the background
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := english().T("move.occupied", moveData(m, 1, 1))
	if len(rec.followups) != 1 || rec.followups[0].Content != want || rec.followups[0].Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("follow-ups %+v; want the refusal %q to bob alone", rec.followups, want)
	}
}

// With no game in the channel the page says how to start one; with the
// feed's watch stopped, its channel closes.
func TestLiveNoGame(t *testing.T) {
	b, _, _ := liveBot(t)
	l := b.Live()
	st := mustState(t, l, viewer(mason, "de"))
	if st.GameID != "" || st.Running || st.Status != plainText(b.catalog.For("de").T("board.no_game", nil), nil) || strings.Contains(st.Status, "`") {
		t.Errorf("state = %+v; want no game, in German", st)
	}
	c, stop, err := l.Watch(context.Background(), fixtureChannel)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // watched: made once, then kept
		if again := mustState(t, l, viewer(mason, "de")); again.Status != st.Status || again.GameID != "" {
			t.Errorf("state while watched = %+v; want no game", again)
		}
	}
	stop()
	stop()
	if _, open := <-c; open {
		t.Error("the watch's channel is open after stop")
	}
}

// A draw offered on the page is posted in chat too, where the opponent
// accepts it with its button: the game ends, agreed.
func TestLiveDrawOfferAnsweredInChat(t *testing.T) {
	b, rec, clk := liveBot(t)
	ctx := context.Background()
	bm, l := liveGame(t, b, 3, 3, store.Board{AppID: "app", Token: "board-token", At: clk.now()})
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "offer_draw"})
	if st := mustState(t, l, viewer(bob, "en-US")); st.DrawOffer != "X" || st.Labels["draw_offered"] == "" {
		t.Errorf("bob's state: offer %q, labels %v; want Mason's offer", st.DrawOffer, st.Labels)
	}
	waitFor(t, "the offer posted in chat", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.followups) > 0
	})
	rec.mu.Lock()
	if len(rec.followups) != 1 || rec.followupRefs[0] != "board-token" || !strings.Contains(rec.followups[0].Content, mention(bob)) || len(rec.followups[0].Components) == 0 {
		t.Fatalf("follow-ups %+v; want the offer to bob, with its buttons, through the board's token", rec.followups)
	}
	rec.mu.Unlock()
	yes := install(as(buttonPayload(t, route{action: actDrawYes, id: bm.ID}.String()), bob), false)
	b.serveIC(ctx, yes)
	if m := current(t, b); m.End != game.EndAgreed {
		t.Fatalf("after bob accepted in chat: ended %v (answer %q); want a draw agreed", m.End, rec.last(t).Data.Content)
	}
}

// In a server that installed the bot, with turns of hours, a tap on the
// page long after the board's token expired edits the board through its
// channel, with the bot's token; the board is not stale, and says
// nothing of the Activity (the bot reaches it for good).
func TestLiveMoveEditsThroughChannel(t *testing.T) {
	b, rec, clk := corrBot(t, 20*time.Hour)
	m := challengeAccepted(t, b, rec)
	if m.Board.MessageID != boardMessage {
		t.Fatalf("board %+v; want its message known", m.Board)
	}
	clk.advance(tokenLife + time.Minute)
	b.Close() // the accept's ping, kept with the game, is saved
	b, rec = reopened(t, b, clk)
	l := b.Live()
	v := mustState(t, l, viewer(mason, "en-US")).Version
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "move", Row: 2, Col: 2, Version: v})
	after := current(t, b)
	if after.Board.Stale || !after.Board.Outside || after.Deadline.Sub(clk.now()) < 19*time.Hour {
		t.Errorf("after the tap: board %+v, deadline in %v; want it reachable, with the guild's 20 h turn", after.Board, after.Deadline.Sub(clk.now()))
	}
	waitFor(t, "the board edited through its channel", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.channelEdits) > 0
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	e := rec.channelEdits[len(rec.channelEdits)-1]
	if e.ID != boardMessage || *e.Content != boardView(english(), after).content || strings.Contains(*e.Content, english().T("page.board_note", nil)) {
		t.Errorf("channel edit of %s: %q; want the board as stored, without the Activity's note", e.ID, *e.Content)
	}
}

// reopened is a new bot on b's store and clock, as after a restart.
func reopened(t *testing.T, b *Bot, clk *clock) (*Bot, *recorder) {
	t.Helper()
	return clockedBotOn(t, b.stores.Games.(wholeStore), clk)
}

// Rematch on the page starts the next game in the channel, which the page
// shows; the finished game's chat board, whose token is good, becomes the
// new game's board. Without a good token, the finished board is left.
func TestLiveRematch(t *testing.T) {
	b, rec, clk := liveBot(t)
	ctx := context.Background()
	bm, l := liveGame(t, b, 3, 3, store.Board{AppID: "app", Token: "board-token", At: clk.now()})
	busy := plainText(english().T("start.busy_game", players(bm.Match)), map[string]string{mason: "Mason", bob: "bob"})
	if refusal, err := l.Act(ctx, viewer(bob, "en-US"), web.Action{Type: "rematch"}); err != nil || refusal != busy {
		t.Errorf("Act(rematch) of a running game = %q, %v; want %q", refusal, err, busy)
	}
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "resign"})
	waitEdit(t, rec) // the final board
	played(t, l, viewer(bob, "en-US"), web.Action{Type: "rematch"})
	m := current(t, b)
	if m.ID == bm.ID || m.Over() || !m.Board.Outside || m.Side(mason) == game.None || m.Side(bob) == game.None {
		t.Fatalf("after the rematch: %+v; want a new game of the same players, played on the page", m.Match)
	}
	if st := mustState(t, l, viewer(mason, "en-US")); st.GameID != m.ID || !st.Running {
		t.Errorf("state = %+v; want the new game", st)
	}
	if m.Board.Token != "board-token" || m.Board.Stale {
		t.Errorf("the new game's board %+v; want the finished game's message", m.Board)
	}
	waitEdit(t, rec) // the board shows the new game
	rec.mu.Lock()
	last, ref := rec.edits[len(rec.edits)-1], rec.editRefs[len(rec.editRefs)-1]
	rec.mu.Unlock()
	if ref != "board-token" || *last.Content != boardView(english(), m).content || last.Components == nil || !strings.Contains(fmt.Sprint(*last.Components), m.ID) {
		t.Errorf("the board's last edit %q through %q; want the new game, with its buttons", *last.Content, ref)
	}

	// Once the token has expired, a rematch leaves the board as it is.
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "resign"})
	waitEdit(t, rec)
	clk.advance(tokenLife + time.Minute)
	played(t, l, viewer(bob, "en-US"), web.Action{Type: "rematch"})
	if third := current(t, b); third.ID == m.ID || third.Board.Token != "" {
		t.Errorf("the third game's board %+v; want none in chat", third.Board)
	}
}

// Two replicas on one PostgreSQL: a click in chat answered by one is heard
// by a page watching through the other, which shows it; a tap on that
// page is saved for both, and heard by a page on the first.
func TestLiveAcrossReplicasPostgres(t *testing.T) {
	url := storetest.PostgresURL(t)
	ctx := context.Background()
	open := func() *store.Postgres {
		st, err := store.OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	clk := &clock{t: time.Now()}
	b1, _ := clockedBotOn(t, open(), clk)
	b2, _ := clockedBotOn(t, open(), clk)
	bm := bigGame(t, b1, 5, 4, bob)
	l1, l2 := b1.Live(), b2.Live()
	on1, on2 := watching(t, l1), watching(t, l2)

	b1.serveIC(ctx, install(as(buttonPayload(t, cell(bm, 3, 3).String()), mason), false))
	c := nextChange(t, on2)
	st := mustState(t, l2, viewer(bob, "en-US"))
	if c.GameID != bm.ID || c.Version != st.Version || st.Cells[2*5+2] != "X" || st.Turn != "O" || st.You != "O" {
		t.Fatalf("replica 2 heard %+v and shows %+v; want Mason's click, bob to move", c, st)
	}
	played(t, l2, viewer(bob, "en-US"), web.Action{Type: "move", Row: 1, Col: 1, Version: st.Version})
	for {
		c := nextChange(t, on1)
		if c.Version > st.Version {
			break
		}
	}
	if st1 := mustState(t, l1, viewer(mason, "en-US")); st1.Cells[0] != "O" || st1.Turn != "X" {
		t.Errorf("replica 1 shows %+v; want bob's tap, Mason to move", st1)
	}
}

// An edit of a finished game's board that comes after a rematch on the
// page made that message the new game's board draws nothing: the message
// shows the new game.
func TestLiveRematchOldEditDrawsNothing(t *testing.T) {
	b, _, clk := liveBot(t)
	ctx := context.Background()
	_, l := liveGame(t, b, 3, 3, store.Board{AppID: "app", Token: "board-token", At: clk.now()})
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "resign"})
	final := current(t, b)
	played(t, l, viewer(bob, "en-US"), web.Action{Type: "rematch"})
	next := current(t, b)
	if m, _ := b.boards.choose(ctx, new(boardSlot), &boardEdit{m: final, comps: true}, next); m != nil {
		t.Errorf("the finished game's edit draws %s; want nothing", m.ID)
	}
	if m, _ := b.boards.choose(ctx, new(boardSlot), &boardEdit{m: next, comps: true}, next); m == nil || m.ID != next.ID {
		t.Errorf("the new game's edit draws %v; want the new game", m)
	}
}

// A board of a game played on the live board too, with the line that
// says the game goes on in the Activity, fits Discord's limits in every
// language, at every size and in every state, with its grid or as a
// picture's text.
func TestLiveBoardNoteFitsEveryLanguage(t *testing.T) {
	bs := sampleBoards(t)
	for _, lng := range catalogLanguages(t) {
		l := lang(t, lng)
		for name, tm := range bs {
			m := &match{Match: tm, Board: store.Board{Outside: true}}
			for _, v := range []view{boardView(l, m), pictureView(l, m)} {
				checkMessage(t, lng+" "+name, &discordgo.InteractionResponseData{Content: v.content, Components: v.components})
				if note := l.T("page.board_note", nil); strings.Contains(v.content, note) == m.Over() {
					t.Errorf("%s %s: the note in %q; want it while the game runs only", lng, name, v.content)
				}
			}
		}
	}
}

// feedWithHook is a FeedStore that runs before ahead of each Watch: what
// happens while a page's watch is being set up.
type feedWithHook struct {
	FeedStore
	before func()
}

func (f feedWithHook) Watch(ctx context.Context, channelID string, fn func(store.Change)) (func(), error) {
	f.before()
	return f.FeedStore.Watch(ctx, channelID, fn)
}

// A game read by a page while a watch of its channel is being set up, and
// saved again before the feed tells of saves, is not served from the cache
// once Watch has returned: Watch's promise is that what a read after it
// shows is current, or a change follows.
func TestLiveWatchSetUpNotServedStale(t *testing.T) {
	b, _, _ := liveBot(t)
	ctx := context.Background()
	b.serveIC(ctx, install(as(slashPayload(t, "start", nil, nil), mason), false))
	l := b.Live()
	before := current(t, b)
	l.feed = feedWithHook{FeedStore: l.feed, before: func() {
		// Another page reads the game, then a click in chat saves it:
		// neither is heard by the feed, not watching yet.
		if st := mustState(t, l, viewer(bob, "en-US")); st.Version != before.Version {
			t.Fatalf("state during the watch's set-up has version %d; want %d", st.Version, before.Version)
		}
		b.serveIC(ctx, install(as(buttonPayload(t, cell(before, 2, 2).String()), mason), false))
	}}
	changes := watching(t, l)
	m := current(t, b)
	if m.Version == before.Version {
		t.Fatal("the click in chat was not saved")
	}
	if st := mustState(t, l, viewer(bob, "en-US")); st.Version != m.Version {
		select {
		case c := <-changes:
			t.Logf("(a change was heard: %+v)", c)
		default:
		}
		t.Errorf("state after Watch returned has version %d; want %d, the stored game's", st.Version, m.Version)
	}
}

// A picker board knows its message wherever it is, but that is no sign
// that the bot can reach it once its token expires (reachesChannel): a
// move on the page drawn through the token says that the game goes on in
// the Activity, since the next may leave the board stale.
func TestLivePickerBoardSaysActivity(t *testing.T) {
	b, rec, clk := liveBot(t)
	bm, l := liveGame(t, b, 7, 5, store.Board{AppID: "app", Token: "board-token", At: clk.now(), ChannelID: fixtureChannel, MessageID: "picker-board"})
	played(t, l, viewer(mason, "en-US"), web.Action{Type: "move", Row: 4, Col: 4, Version: bm.Version})
	if m := current(t, b); m.Serial != bm.Serial+1 {
		t.Errorf("serial %d after a tap; want %d, a new picker", m.Serial, bm.Serial+1)
	}
	waitEdit(t, rec)
	rec.mu.Lock()
	content := *rec.edits[len(rec.edits)-1].Content
	rec.mu.Unlock()
	if note := english().T("page.board_note", nil); !strings.Contains(content, note) {
		t.Errorf("picker board drawn through its token as %q; want it to say %q", content, note)
	}
}

// A save that touches only the game's board message (a ping, a reminder,
// a looked-up message id) moves the stored version on but not the game:
// a tap made on the page before it, on the same game and position, is
// played, not refused as stale.
func TestLiveTapAfterBoardOnlySave(t *testing.T) {
	b, _, _ := liveBot(t)
	ctx := context.Background()
	bigGame(t, b, 3, 3, bob)
	l := b.Live()
	st := mustState(t, l, viewer(mason, "en-US"))

	ch, err := b.tables.lock(ctx, fixtureChannel, false)
	if err != nil {
		t.Fatal(err)
	}
	next := ch.match.Clone()
	next.Board.MessageID = "looked-up"
	if err := b.tables.save(ctx, ch, next); err != nil {
		b.tables.unlock(ch)
		t.Fatal(err)
	}
	b.tables.keep(ctx, ch, next)
	b.tables.unlock(ch)
	if m := current(t, b); m.Version == st.Version {
		t.Fatalf("the board-only save left version %d", m.Version)
	}

	a := web.Action{Type: "move", Row: 2, Col: 2, Version: st.Version, GameID: st.GameID, Ply: len(st.Moves)}
	if refusal, err := l.Act(ctx, viewer(mason, "en-US"), a); err != nil || refusal != "" {
		t.Fatalf("Act(move on the same position) = %q, %v; want it played", refusal, err)
	}
	if m := current(t, b); m.Judge.Len() != len(st.Moves)+1 {
		t.Errorf("after the tap %d moves; want %d", m.Judge.Len(), len(st.Moves)+1)
	}
}
