package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/picture"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// serveSlash answers /ttt sub with opts in the fixture's guild and channel,
// through an interaction with a token of its own, as Discord gives each.
func serveSlash(t *testing.T, b *Bot, sub string, opts ...map[string]any) *discordgo.InteractionCreate {
	t.Helper()
	ic := slashPayload(t, sub, opts, nil)
	ic.Token = "token-" + ic.ID
	b.serveIC(context.Background(), ic)
	return ic
}

// setPictures turns the fixture guild's pictures setting on or off.
func setPictures(t *testing.T, b *Bot, on bool) {
	t.Helper()
	if err := b.settings.save(context.Background(), store.Settings{GuildID: fixtureGuild, Pictures: on}); err != nil {
		t.Fatal(err)
	}
}

// currentMatch returns the game of the fixture's channel as the bot holds it.
func currentMatch(t *testing.T, b *Bot) *match {
	t.Helper()
	ch, err := b.tables.lock(context.Background(), fixtureChannel, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.tables.unlock(ch)
	if ch.match == nil {
		t.Fatal("no game in the channel")
	}
	return ch.match
}

// wantPicture checks that edit i of rec put m's picture on the message of
// token: one PNG named board.png, the picture of m at its size, the text
// without the grid, and no other attachment kept.
func wantPicture(t *testing.T, rec *recorder, i int, token string, m *match) {
	t.Helper()
	rec.mu.Lock()
	e, files, ref := rec.edits[i], rec.files[i], rec.editRefs[i]
	rec.mu.Unlock()
	if ref != token {
		t.Errorf("edit %d is of the message of %s; want %s", i, ref, token)
	}
	if len(files) != 1 || files[0].name != pictureName || files[0].contentType != "image/png" {
		t.Fatalf("edit %d uploads %d files (%+v); want one image/png named %s", i, len(files), files, pictureName)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(files[0].data))
	if err != nil {
		t.Fatalf("the uploaded %s is not a PNG: %v", pictureName, err)
	}
	img, err := picture.Render(m.Judge)
	if err != nil {
		t.Fatal(err)
	}
	if size := img.Bounds().Size(); cfg.Width != size.X || cfg.Height != size.Y {
		t.Errorf("the picture is %d×%d; want %d×%d", cfg.Width, cfg.Height, size.X, size.Y)
	}
	var want bytes.Buffer
	if err := picture.Draw(&want, m.Judge); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files[0].data, want.Bytes()) {
		t.Error("the uploaded picture is not the picture of the game as it stands")
	}
	if e.Attachments == nil || len(*e.Attachments) != 0 {
		t.Errorf("edit %d keeps attachments %v; want an empty list, so that its picture replaces any other", i, e.Attachments)
	}
	if e.Content == nil {
		t.Fatalf("edit %d leaves the text as it was; want the text without the grid", i)
	}
	if got, want := *e.Content, renderPictured(english(), m.Match).content; got != want {
		t.Errorf("edit %d says %q; want %q", i, got, want)
	}
	if strings.Contains(*e.Content, cellEmpty) || strings.Contains(*e.Content, corner) {
		t.Errorf("edit %d still shows the emoji grid: %q", i, *e.Content)
	}
}

func editCount(rec *recorder) (edits, failed int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.edits), rec.failedUploads
}

// With pictures on, a move on a 10×10 board is answered with the emoji
// board, and one edit of that message then puts the picture in place of
// the grid; header, last move and status stay.
func TestPictureFollowsMove(t *testing.T) {
	b, rec, _ := newTestBot(t)
	serveSlash(t, b, "start", intOpt("size", 10))
	setPictures(t, b, true)
	move := serveSlash(t, b, "move", intOpt("row", 5), intOpt("col", 5))
	if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, cellEmpty) {
		t.Fatalf("the move answered %q; want the emoji board", r.Data.Content)
	}
	b.Close() // waits for the edits in flight
	if n, _ := editCount(rec); n != 1 {
		t.Fatalf("%d edits after the move; want 1, its picture", n)
	}
	m := currentMatch(t, b)
	wantPicture(t, rec, 0, move.Token, m)
	rec.mu.Lock()
	e := rec.edits[0]
	rec.mu.Unlock()
	if e.Components != nil {
		t.Errorf("the picture's edit sets the buttons %v; want them left as answered", *e.Components)
	}
	l := english()
	for _, want := range []string{
		l.T("board.header", map[string]any{"MarkX": cellX, "PlayerX": mention(mason), "MarkO": cellO, "PlayerO": mention(botID), "Size": 10, "Win": 10}),
		"Last move: " + cellO + " " + mention(botID),
		mention(mason) + " to move",
	} {
		if !strings.Contains(*e.Content, want) {
			t.Errorf("the pictured board says %q; want it to contain %q", *e.Content, want)
		}
	}
}

// No picture without the setting, nor for a board of 8×8 or less: the
// emoji board stays, and nothing is drawn.
func TestNoPicture(t *testing.T) {
	for _, tt := range []struct {
		name     string
		pictures bool
		size     int
	}{
		{"pictures off, 10×10", false, 10},
		{"pictures on, 8×8", true, 8},
		{"pictures on, 5×5", true, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			setPictures(t, b, tt.pictures)
			serveSlash(t, b, "start", intOpt("size", tt.size))
			serveSlash(t, b, "move", intOpt("row", 1), intOpt("col", 1))
			b.Close()
			if n, _ := editCount(rec); n != 0 {
				t.Errorf("%d edits; want none: the board stays as answered", n)
			}
		})
	}
}

// If the picture cannot be uploaded, the emoji board stays as it was
// answered, and the failure is logged.
func TestPictureUploadFails(t *testing.T) {
	b, rec, logs := newTestBot(t)
	serveSlash(t, b, "start", intOpt("size", 10))
	setPictures(t, b, true)
	rec.mu.Lock()
	rec.failUploads = func() error {
		return &discordgo.RESTError{Response: &http.Response{StatusCode: http.StatusRequestEntityTooLarge},
			Message: &discordgo.APIErrorMessage{Code: 40005, Message: "Request entity too large"}}
	}
	rec.mu.Unlock()
	serveSlash(t, b, "move", intOpt("row", 5), intOpt("col", 5))
	answer := rec.last(t).Data.Content
	b.Close()
	if n, failed := editCount(rec); n != 0 || failed != 1 {
		t.Errorf("%d edits and %d failed uploads; want none and 1 (not tried again)", n, failed)
	}
	if !strings.Contains(answer, cellEmpty) {
		t.Errorf("the board answered %q; want the emoji board, which stays", answer)
	}
	if !strings.Contains(logs.String(), "could not show a board as a picture") {
		t.Errorf("log %q; want a warning about the picture", logs.String())
	}
}

// Over the HTTP endpoint the picture's edit may come before Discord made
// the message: Unknown Message is tried again.
func TestPictureWaitsForItsMessage(t *testing.T) {
	b, rec, _ := newTestBot(t)
	serveSlash(t, b, "start", intOpt("size", 10))
	setPictures(t, b, true)
	missing := 2
	rec.mu.Lock()
	rec.failUploads = func() error {
		if missing == 0 {
			return nil
		}
		missing--
		return &discordgo.RESTError{Response: &http.Response{StatusCode: http.StatusNotFound},
			Message: &discordgo.APIErrorMessage{Code: discordgo.ErrCodeUnknownMessage, Message: "Unknown Message"}}
	}
	rec.mu.Unlock()
	move := serveSlash(t, b, "move", intOpt("row", 5), intOpt("col", 5))
	b.Close()
	if n, failed := editCount(rec); n != 1 || failed != 2 {
		t.Fatalf("%d edits and %d failed; want the picture after 2 tries that found no message", n, failed)
	}
	wantPicture(t, rec, 0, move.Token, currentMatch(t, b))
}

// A turn timeout edits a pictured board with its picture, the Rematch
// button and the text without the grid; if the upload fails, with the
// emoji board, keeping no older picture beside the grid.
func TestPictureOfTimeout(t *testing.T) {
	for _, fail := range []bool{false, true} {
		name := "picture"
		if fail {
			name = "upload fails"
		}
		t.Run(name, func(t *testing.T) {
			b, rec, clk := newClockedBot(t)
			setPictures(t, b, true)
			start := serveSlash(t, b, "start", intOpt("size", 10))
			if fail {
				rec.mu.Lock()
				rec.failUploads = func() error { return errors.New("connection reset by peer") }
				rec.mu.Unlock()
			}
			clk.advance(b.cfg.Table.TurnTimeout + time.Second)
			b.tables.expireTurn(fixtureChannel)
			b.Close()
			m := currentMatch(t, b)
			n, _ := editCount(rec)
			if n == 0 || n > 2 {
				t.Fatalf("%d edits; want the timeout's, after the start's picture or instead of it", n)
			}
			last := n - 1
			rec.mu.Lock()
			e := rec.edits[last]
			rec.mu.Unlock()
			if !fail {
				wantPicture(t, rec, last, start.Token, m)
			} else {
				want := renderMatch(english(), m.Match).content
				if e.Content == nil || *e.Content != want || len(rec.files[last]) != 0 {
					t.Errorf("after a failed upload the board says %v; want the emoji board %q", e.Content, want)
				}
				if e.Attachments == nil || len(*e.Attachments) != 0 {
					t.Errorf("the emoji board keeps attachments %v; want none", e.Attachments)
				}
			}
			if e.Content == nil || !strings.Contains(*e.Content, "did not move in time") {
				t.Errorf("the board after the timeout says %v; want the timeout", e.Content)
			}
			if e.Components == nil || len(*e.Components) != 1 {
				t.Errorf("the board after the timeout has components %v; want the Rematch row", e.Components)
			}
		})
	}
}

// A finished big board that a new game replaces loses its Rematch button
// and nothing else: its text and its picture stay.
func TestRetiredPictureStays(t *testing.T) {
	b, rec, _ := newTestBot(t)
	setPictures(t, b, true)
	serveSlash(t, b, "start", intOpt("size", 10))
	resign := serveSlash(t, b, "resign")
	serveSlash(t, b, "start", intOpt("size", 10))
	b.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	found := false
	for i, e := range rec.edits {
		if rec.editRefs[i] != resign.Token || len(rec.files[i]) > 0 {
			continue
		}
		found = true
		if e.Content != nil || e.Attachments != nil || e.Components == nil || len(*e.Components) != 0 {
			t.Errorf("the retired board's edit sets content %v, attachments %v, components %v; want only its buttons removed",
				e.Content, e.Attachments, e.Components)
		}
	}
	if !found {
		t.Error("the finished board was not retired")
	}
}

// The text beside a picture is the emoji board's without the grid, and
// names the picture's colour of the winning line, green.
func TestRenderPictured(t *testing.T) {
	l := english()
	running := testMatch(t, 9, 3, game.Move{Row: 4, Col: 4, Player: game.X})
	won := testMatch(t, 9, 3,
		game.Move{Row: 0, Col: 0, Player: game.X}, game.Move{Row: 8, Col: 8, Player: game.O},
		game.Move{Row: 0, Col: 1, Player: game.X}, game.Move{Row: 8, Col: 7, Player: game.O},
		game.Move{Row: 0, Col: 2, Player: game.X})
	for _, tt := range []struct {
		name   string
		m      *table.Match
		want   []string
		unlike string // a line of the emoji board that the picture replaces
	}{
		{"running", running, []string{"Last move: " + cellX}, lastX},
		{"won", won, []string{"(in " + greenCells + ")"}, "(in " + winX + ")"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			emoji, pic := renderMatch(l, tt.m), renderPictured(l, tt.m)
			if !strings.Contains(emoji.content, cellEmpty) || !strings.Contains(emoji.content, tt.unlike) {
				t.Fatalf("the emoji board %q has no grid or no %q", emoji.content, tt.unlike)
			}
			for _, bad := range []string{cellEmpty, corner, tt.unlike} {
				if strings.Contains(pic.content, bad) {
					t.Errorf("the pictured board %q contains %q", pic.content, bad)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(pic.content, want) {
					t.Errorf("the pictured board %q; want it to contain %q", pic.content, want)
				}
			}
			if !slices.Equal(strings.Split(emoji.content, "\n")[:1], strings.Split(pic.content, "\n")[:1]) {
				t.Errorf("headers differ: %q and %q", emoji.content, pic.content)
			}
			if len(pic.components) != len(emoji.components) || pic.ping != emoji.ping {
				t.Errorf("the pictured board has components %v and ping %q; want the emoji board's %v and %q",
					pic.components, pic.ping, emoji.components, emoji.ping)
			}
		})
	}
}

// A board bigger than MaxEmojiSize is always a picture, whatever the
// guild's pictures setting: the answer is the text without a grid (there
// is no emoji grid of it), and one edit puts the picture on it.
func TestBigBoardIsAlwaysAPicture(t *testing.T) {
	for _, n := range []int{MaxEmojiSize + 1, MaxSize} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			setPictures(t, b, false)
			start := serveSlash(t, b, "start", intOpt("size", n), intOpt("win", 5))
			r := rec.last(t)
			if r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Fatalf("/ttt start size:%d answered %q; want the board", n, r.Data.Content)
			}
			b.Close()
			m := currentMatch(t, b)
			if want := renderPictured(english(), m.Match).content; r.Data.Content != want {
				t.Errorf("the board answered %q; want the text beside its picture %q", r.Data.Content, want)
			}
			if n, _ := editCount(rec); n != 1 {
				t.Fatalf("%d edits after the start; want 1, its picture", n)
			}
			wantPicture(t, rec, 0, start.Token, m)
		})
	}
}

// A correspondence game's big board, reached through its channel once its
// token has expired, gets the picture of its new state there too, with no
// older picture kept; a board that is not a picture gets its emoji grid,
// and no older picture either.
func TestPictureThroughChannel(t *testing.T) {
	for _, tt := range []struct {
		size     int
		pictures bool
	}{{MaxSize, false}, {10, true}, {10, false}} {
		t.Run(fmt.Sprintf("%d×%d pictures %v", tt.size, tt.size, tt.pictures), func(t *testing.T) {
			b, rec, clk := newClockedBot(t)
			if err := b.stores.Settings.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, TurnTimeout: 20 * time.Hour,
				Size: tt.size, Win: 5, Pictures: tt.pictures}); err != nil {
				t.Fatal(err)
			}
			challengeAccepted(t, b, rec)
			b.run.bg.Wait()
			clk.advance(20*time.Hour + time.Second)
			b.tables.expireTurn(fixtureChannel)
			b.Close()
			m := current(t, b)
			if m.Judge.Size() != tt.size || m.End != game.EndTimeout {
				t.Fatalf("the game is %d×%d, ended %d; want %d×%d, lost on time", m.Judge.Size(), m.Judge.Size(), m.End, tt.size, tt.size)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.channelEdits) != 1 {
				t.Fatalf("%d edits through the channel; want the timeout", len(rec.channelEdits))
			}
			e := rec.channelEdits[0]
			if e.Channel != fixtureChannel || e.ID != boardMessage {
				t.Errorf("the edit is of %s/%s; want the board %s/%s", e.Channel, e.ID, fixtureChannel, boardMessage)
			}
			if e.Attachments == nil || len(*e.Attachments) != 0 {
				t.Errorf("the edit keeps attachments %v; want an empty list, so that no older picture stays", e.Attachments)
			}
			want := renderMatch(english(), m.Match).content
			if tt.size > MaxEmojiSize || tt.pictures {
				want = renderPictured(english(), m.Match).content
				if len(e.Files) != 1 || e.Files[0].Name != pictureName || e.Files[0].ContentType != "image/png" {
					t.Fatalf("the edit uploads %v; want one image/png named %s", e.Files, pictureName)
				}
				got, err := io.ReadAll(e.Files[0].Reader)
				if err != nil {
					t.Fatal(err)
				}
				var png bytes.Buffer
				if err := picture.Draw(&png, m.Judge); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, png.Bytes()) {
					t.Error("the uploaded picture is not the picture of the game as it stands")
				}
			} else if len(e.Files) != 0 {
				t.Errorf("the edit uploads %d files; want none, the board is emoji", len(e.Files))
			}
			if e.Content == nil || *e.Content != want {
				t.Errorf("the edit says %v; want %q", e.Content, want)
			}
		})
	}
}

// A long 15×15 game between two people whose board's token expired hours
// ago: /ttt board brings a working board, a new message whose own token
// puts its picture on it, at a new serial (the old board's buttons are
// out of date), the old message deleted through the channel; the next
// move plays on it and its picture follows.
func TestBigBoardShownAgainAfterItsToken(t *testing.T) {
	b, rec, clk := newClockedBot(t)
	if err := b.stores.Settings.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, TurnTimeout: 20 * time.Hour,
		Size: MaxSize, Win: 5}); err != nil {
		t.Fatal(err)
	}
	old := challengeAccepted(t, b, rec)
	b.run.bg.Wait()
	clk.advance(3 * time.Hour)
	board := install(as(slashPayload(t, "board", nil, nil), bob), true)
	b.serveIC(context.Background(), board)
	r := rec.last(t)
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("/ttt board answered %d %q; want a new board message", r.Type, r.Data.Content)
	}
	m := current(t, b)
	if m.Board.Token != board.Token || m.Serial != old.Serial+1 {
		t.Errorf("the board is of token %q at serial %d; want the new message's %q at %d", m.Board.Token, m.Serial, board.Token, old.Serial+1)
	}
	if want := renderPictured(english(), m.Match).content; r.Data.Content != want {
		t.Errorf("/ttt board answered %q; want %q", r.Data.Content, want)
	}
	b.run.bg.Wait()
	move := install(as(slashPayload(t, "move", []map[string]any{intOpt("row", 15), intOpt("col", 15)}, nil), mason), true)
	b.serveIC(context.Background(), move)
	b.Close()
	m = current(t, b)
	if last, ok := m.Judge.LastMove(); !ok || last.Row != 14 || last.Col != 14 {
		t.Fatalf("last move %v, %v; want Mason's at row 15, column 15", last, ok)
	}
	rec.mu.Lock()
	deletes := slices.Clone(rec.channelDeletes)
	var pictured []string // the tokens whose messages got a picture
	for i, files := range rec.files {
		if len(files) == 1 {
			pictured = append(pictured, rec.editRefs[i])
		}
	}
	rec.mu.Unlock()
	if !slices.Contains(deletes, fixtureChannel+"/"+boardMessage) {
		t.Errorf("deleted through the channel %v; want the old board %s", deletes, boardMessage)
	}
	if !slices.Contains(pictured, board.Token) || !slices.Contains(pictured, move.Token) {
		t.Errorf("pictures put on the messages of %v; want the board of /ttt board (%s) and the one of the move (%s)", pictured, board.Token, move.Token)
	}
}

// A position shown again (/ttt board posts it as a new message) puts the
// same picture on the new message without drawing it again.
func TestPictureDrawnOncePerPosition(t *testing.T) {
	b, rec, _ := newTestBot(t)
	draws := 0 // the background work runs one edit of the board at a time
	b.boards.pictures.draw = func(w io.Writer, g *game.Judge) error {
		draws++
		return picture.Draw(w, g)
	}
	serveSlash(t, b, "start", intOpt("size", 10))
	setPictures(t, b, true)
	move := serveSlash(t, b, "move", intOpt("row", 5), intOpt("col", 5))
	b.run.bg.Wait() // the move's picture is on its board
	again := serveSlash(t, b, "board")
	b.Close()
	if n, _ := editCount(rec); n != 2 {
		t.Fatalf("%d edits; want 2, the picture on the move's board and on /ttt board's", n)
	}
	m := currentMatch(t, b)
	wantPicture(t, rec, 0, move.Token, m)
	wantPicture(t, rec, 1, again.Token, m)
	if draws != 1 {
		t.Errorf("the position was drawn %d times; want once, its picture kept for /ttt board", draws)
	}
}
