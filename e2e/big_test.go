package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// Big boards played by tapping alone, end to end, on both transports:
// every move is made with the picker on the board message (a row chosen
// in its menu, then the cell's button) or with its Move… button and the
// modal it opens, never with /ttt move. A 7×7 game, four in a row, and a
// 15×15 gomoku game between two people are played to the end; someone
// tapping out of turn is told whose turn it is; a tap on a picker drawn
// before the board changed is refused in plain words and plays nothing,
// and the board is redrawn with a fresh picker; a 15×15 game against the
// computer is played to the end; a 15×15 board is always the picture,
// put on the board message after each move.
func TestE2EBigBoardsByTap(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		alice, bob, carol := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("carol")
		inGuild := func(*discordtest.Interaction) {}

		t.Run("7×7, 4 in a row", func(t *testing.T) {
			ch := h.srv.NewID()
			p := tapper{h: h, t: t, guild: h.guild, channel: ch, where: inGuild}
			board := h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 7), discordtest.Int("win", 4))
			wantPicker(t, board, 7)
			// Bob may not open the picker on alice's turn.
			p.refused(bob, board, 1, mention(alice), true)
			board = p.playToWin(board, alice, bob, 7, 4, 1, 2, "1;4")
			if !strings.Contains(board.Content, "⬜") {
				t.Errorf("the finished 7×7 board %q; want its emoji grid", board.Content)
			}
		})

		t.Run("15×15 gomoku", func(t *testing.T) {
			ch := h.srv.NewID()
			p := tapper{h: h, t: t, guild: h.guild, channel: ch, where: inGuild}
			board := h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 15), discordtest.Int("win", 5))
			wantPicker(t, board, 15)
			board = h.waitPicture(ch, board, mention(alice)+" to move")

			// Alice opens row 8, then types her move in the modal
			// instead. Bob's client still shows row 8 open as it was
			// before her move: his tap on it is refused as out of date,
			// plays nothing, and the answer redraws the board with a
			// fresh picker.
			opened := p.openRow(alice, board, 8)
			old := p.cell(opened, 8, 9)
			board = p.typed(alice, opened, "8 8", mention(bob)+" to move")
			board = wantStaleRedrawn(t, h, h.srv.Click(h.guild, ch, bob, board.ID, old).Unchecked())
			wantPicker(t, board, 15)
			if !strings.Contains(board.Content, "Last move: ❌ "+mention(alice)) {
				t.Errorf("after bob's stale tap the board says %q; want alice's move the last", board.Content)
			}
			// Carol, who does not play, is told whose turn it is.
			p.refused(carol, board, 2, mention(bob), false)

			// /ttt board, by anyone, brings a working board: a new
			// message with the picker, the old one deleted.
			shown := h.slash(carol, ch, "board")
			wantBoard(t, shown, discordgo.InteractionResponseChannelMessageWithSource, mention(bob)+" to move")
			if err := h.srv.WaitMessageGone(h.ctx, ch, board.ID); err != nil {
				t.Fatalf("the board that /ttt board replaced is still there: %v", err)
			}
			board = shown.Message
			wantPicker(t, board, 15)

			board = p.playToWin(board, bob, alice, 15, 5, 2, 3, "2,5")
			h.waitPictureSaying(ch, board, mention(bob)+" wins")
		})

		t.Run("15×15 against the computer", func(t *testing.T) {
			ch := h.srv.NewID()
			p := tapper{h: h, t: t, guild: h.guild, channel: ch, where: inGuild}
			r := h.slash(alice, ch, "start", discordtest.Int("size", 15), discordtest.Int("win", 5), computerLevel())
			wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" to move")
			p.playComputer(r.Message, alice, 15)
		})
	})
}

// A board's check in the background never puts back an older picker: the
// check that follows a row picked reads the stored game, then what Discord
// shows, and draws the stored game with its buttons if Discord does not
// show them. Discord is slow for the check's reads of the board: while
// the first is held, alice plays the row she picked; while the second is
// held, the check has read alice's move from the store, and bob plays.
// Once the reads come back, the board still has the picker of bob's move,
// and its Move… button works (the check, made before bob could tap, or
// given up, did not draw alice's picker over his answer's).
func TestE2EBoardCheckKeepsCurrentPicker(t *testing.T) {
	t.Parallel()
	h := startBot(t, nil)
	alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
	ch := h.srv.NewID()
	p := tapper{h: h, t: t, guild: h.guild, channel: ch, where: func(*discordtest.Interaction) {}}
	board := h.waitPictureOf(ch, h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 15), discordtest.Int("win", 5)))

	// The reads of the board through the token of the first row picked
	// from now (an answer with cells as buttons): first holds them until
	// alice moved, second those after.
	var picked string     // that token, under the server's lock
	var again atomic.Bool // alice moved
	readOfPick := func(r discordtest.Request) bool {
		if picked == "" && r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/callback") && strings.Contains(string(r.Body), `"move/`) {
			parts := strings.Split(r.Path, "/")
			picked = parts[len(parts)-2]
			return false
		}
		return picked != "" && r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/"+picked+"/messages/@original")
	}
	first := h.srv.Hold(func(r discordtest.Request) bool { return readOfPick(r) && !again.Load() })
	defer first.Release()
	second := h.srv.Hold(func(r discordtest.Request) bool { return readOfPick(r) && again.Load() })
	defer second.Release()

	opened := p.openRow(alice, board, 8)
	if err := first.WaitHeld(h.ctx, 1); err != nil {
		t.Fatalf("the bot never read the board after the row was picked: %v", err)
	}
	r := p.click(alice, board.ID, p.cell(opened, 8, 8))
	wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(bob)+" to move")
	board = r.Message
	again.Store(true)
	first.Release()
	if err := second.WaitHeld(h.ctx, 1); err != nil {
		t.Fatalf("the bot did not read the board again after alice's move: %v", err)
	}
	board = p.pick(bob, board, 9, 9, mention(alice)+" to move")
	second.Release()

	// Bob's move's picture is the board's last edit wanted: once it is on,
	// alice's Move… button of bob's move is still there.
	h.waitPictureOf(ch, board)
	p.typed(alice, board, "8 9", mention(bob)+" to move")
}

// Big boards by tapping wherever the app is installed: in a DM with the
// bot, a 15×15 game against it; in a group DM, a 7×7 game between two
// friends; in a server that does not have the bot
// (the app installed by its users, so only interaction tokens reach the
// board), a 15×15 gomoku game between two people, to the end, each board
// a picture put on through the tokens of the taps.
func TestE2EBigBoardsAnywhere(t *testing.T) {
	t.Parallel()
	bothTransports(t, map[string]string{"DISCORD_GUILD_ID": ""}, func(t *testing.T, h *harness) {
		alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")

		t.Run("DM", func(t *testing.T) {
			ch := h.srv.NewID()
			p := tapper{h: h, t: t, channel: ch, where: func(*discordtest.Interaction) {}}
			r := p.slash(alice, "start", discordtest.Int("size", 15), discordtest.Int("win", 5), computerLevel())
			wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, mention(alice)+" to move")
			p.playComputer(r.Message, alice, 15)
		})

		t.Run("group DM", func(t *testing.T) {
			ch := h.srv.NewID()
			p := tapper{h: h, t: t, channel: ch, where: func(in *discordtest.Interaction) { in.GroupDM, in.UserInstall = true, true }}
			r := p.slash(alice, "start", discordtest.User("opponent", bob), discordtest.Int("size", 7), discordtest.Int("win", 4))
			wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "challenges "+mention(bob))
			r = p.click(bob, r.Message.ID, button(t, r.Message, -1, 0, "accept/"))
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(alice)+" to move")
			p.playToWin(r.Message, alice, bob, 7, 4, 4, 5, "4 4")
		})

		t.Run("user install", func(t *testing.T) {
			ch, guild := h.srv.NewID(), h.srv.NewID()
			p := tapper{h: h, t: t, guild: guild, channel: ch, where: func(in *discordtest.Interaction) { in.UserInstall = true }}
			r := p.slash(alice, "start", discordtest.User("opponent", bob), discordtest.Int("size", 15), discordtest.Int("win", 5))
			wantBoard(t, r, discordgo.InteractionResponseChannelMessageWithSource, "challenges "+mention(bob))
			r = p.click(bob, r.Message.ID, button(t, r.Message, -1, 0, "accept/"))
			wantBoard(t, r, discordgo.InteractionResponseUpdateMessage, mention(alice)+" to move")
			board := p.playToWin(r.Message, alice, bob, 15, 5, 15, 14, "15, 5")
			h.waitPictureSaying(ch, board, mention(alice)+" wins")
		})
	})
}

// computerLevel is the difficulty of the 15×15 games against the
// computer: hard, but medium when the bot is built with the race
// detector, which makes hard's search on 15×15 about twelve times slower
// (0.6 s a move on average, up to 1.9 s on a shared 2-core machine), too
// near the bot's 2.5 s for its answer; medium takes under a millisecond.
func computerLevel() discordtest.Option {
	if raceBuild {
		return discordtest.Str("difficulty", "medium")
	}
	return discordtest.Str("difficulty", "hard")
}

// A tapper taps on the boards of one channel: in a guild (or a DM, with
// guild ""), each interaction set up by where.
type tapper struct {
	h       *harness
	t       *testing.T
	guild   string
	channel string
	where   func(*discordtest.Interaction)
}

func (p tapper) send(in *discordtest.Interaction) *discordtest.Response {
	p.t.Helper()
	p.where(in)
	if err := p.h.srv.Send(p.h.ctx, in); err != nil {
		p.t.Fatalf("send %s: %v", describeInteraction(in), err)
	}
	r, err := in.Response(p.h.ctx)
	if err != nil {
		p.t.Fatalf("response to %s: %v", describeInteraction(in), err)
	}
	return r
}

func (p tapper) slash(who discordtest.Member, sub string, opts ...discordtest.Option) *discordtest.Response {
	p.t.Helper()
	return p.send(p.h.srv.SlashCommand(p.guild, p.channel, who, "ttt", discordtest.Sub(sub, opts...)))
}

func (p tapper) click(who discordtest.Member, messageID, customID string) *discordtest.Response {
	p.t.Helper()
	return p.send(p.h.srv.Click(p.guild, p.channel, who, messageID, customID))
}

// openRow has who choose row (1-based) in the picker's menu of board, and
// returns the board as updated: that row's cells as buttons.
func (p tapper) openRow(who discordtest.Member, board discordtest.Message, row int) discordtest.Message {
	p.t.Helper()
	menu, options := rowMenu(p.t, board)
	if !slices.Contains(options, strconv.Itoa(row)) {
		p.t.Fatalf("the menu of rows offers %v; want row %d", options, row)
	}
	r := p.send(p.h.srv.Select(p.guild, p.channel, who, board.ID, menu, strconv.Itoa(row)))
	wantBoard(p.t, r, discordgo.InteractionResponseUpdateMessage)
	if r.Message.ID != board.ID {
		p.t.Fatalf("choosing a row answered on message %s; want the board %s updated", r.Message.ID, board.ID)
	}
	return r.Message
}

// refused checks that who, choosing row in board's menu out of turn, is
// told privately whose turn it is (mover), and, with still, that the
// board was not edited (a board that is a picture may be, by its picture).
func (p tapper) refused(who discordtest.Member, board discordtest.Message, row int, mover string, still bool) {
	p.t.Helper()
	menu, _ := rowMenu(p.t, board)
	r := p.send(p.h.srv.Select(p.guild, p.channel, who, board.ID, menu, strconv.Itoa(row)))
	wantSaid(p.t, r, mover)
	if m, ok := p.h.srv.Message(p.channel, board.ID); !ok || still && m.Edits != board.Edits {
		p.t.Errorf("a refused tap changed the board (edits %d → %d)", board.Edits, m.Edits)
	}
}

// cell returns the custom_id of the enabled button of cell (row, col),
// 1-based, in the open row of board.
func (p tapper) cell(board discordtest.Message, row, col int) string {
	p.t.Helper()
	suffix := "/" + strconv.Itoa(row) + "/" + strconv.Itoa(col)
	for _, b := range board.Buttons() {
		if strings.HasPrefix(b.CustomID, "move/") && strings.HasSuffix(b.CustomID, suffix) {
			if b.Disabled {
				p.t.Fatalf("cell %d,%d is disabled on the board: %q", row, col, board.Content)
			}
			if b.Label != strconv.Itoa(col) {
				p.t.Errorf("the button of cell %d,%d is labelled %q; want its column, %d", row, col, b.Label, col)
			}
			return b.CustomID
		}
	}
	p.t.Fatalf("board %s has no button for cell %d,%d: %+v", board.ID, row, col, board.Buttons())
	return ""
}

// pick plays (row, col), 1-based, as who with two taps: the row in the
// menu, then the cell. It returns the board as updated, saying want.
func (p tapper) pick(who discordtest.Member, board discordtest.Message, row, col int, want string) discordtest.Message {
	p.t.Helper()
	opened := p.openRow(who, board, row)
	r := p.click(who, board.ID, p.cell(opened, row, col))
	wantBoard(p.t, r, discordgo.InteractionResponseUpdateMessage, want)
	if r.Message.ID != board.ID {
		p.t.Fatalf("the move answered on message %s; want the board %s updated", r.Message.ID, board.ID)
	}
	return r.Message
}

// typed plays as who the cell written as text, with the Move… button of
// board and the modal it opens, and returns the board as updated, saying
// want.
func (p tapper) typed(who discordtest.Member, board discordtest.Message, text, want string) discordtest.Message {
	p.t.Helper()
	open := p.h.srv.Click(p.guild, p.channel, who, board.ID, button(p.t, board, -1, 0, "type/"))
	if r := p.send(open); r.Type != discordgo.InteractionResponseModal {
		p.t.Fatalf("Move… answered type %d %q; want the modal", r.Type, r.Message.Content)
	}
	r := p.send(p.h.srv.SubmitModal(open, map[string]string{"cell": text}))
	wantBoard(p.t, r, discordgo.InteractionResponseUpdateMessage, want)
	if r.Message.ID != board.ID {
		p.t.Fatalf("the typed move answered on message %s; want the board %s updated", r.Message.ID, board.ID)
	}
	return r.Message
}

// playToWin plays a game of k in a row on an n×n board from board, first
// (to move) against second, to the end: first fills row a from column 1,
// second row b, and first wins with its k-th mark. Every other move of
// first's is typed in the modal, the winning one as last ("row col" in
// some accepted form); the others are picked. It returns the final board.
func (p tapper) playToWin(board discordtest.Message, first, second discordtest.Member, n, k, a, b int, last string) discordtest.Message {
	p.t.Helper()
	for i := 1; i < k; i++ {
		if i%2 == 0 {
			board = p.typed(first, board, fmt.Sprintf("%d %d", a, i), mention(second)+" to move")
		} else {
			board = p.pick(first, board, a, i, mention(second)+" to move")
		}
		wantPicker(p.t, board, n)
		board = p.pick(second, board, b, i, mention(first)+" to move")
		wantPicker(p.t, board, n)
	}
	want := fmt.Sprintf("%d %d", a, k)
	if norm := strings.NewReplacer(",", " ", ";", " ").Replace(last); strings.Join(strings.Fields(norm), " ") != want {
		p.t.Fatalf("playToWin: the last move %q is not %q", last, want)
	}
	board = p.typed(first, board, last, mention(first)+" wins")
	if strings.Contains(board.Content, "to move") {
		p.t.Errorf("the finished board says %q", board.Content)
	}
	if menu, _ := findRowMenu(board); menu != "" || enabledButtons(board) != 1 {
		p.t.Errorf("the finished board has a menu %q and %d enabled buttons; want no picker, only Rematch", menu, enabledButtons(board))
	}
	button(p.t, board, -1, 0, "rematch/")
	return board
}

// playComputer plays who's game against the computer on the n×n board to
// the end by the picker: each turn the first row with a free cell, then
// its first free cell. The computer answers within the same tap. For a
// board over 10×10 each move's picture is waited for.
func (p tapper) playComputer(board discordtest.Message, who discordtest.Member, n int) {
	p.t.Helper()
	if n > bot.MaxEmojiSize {
		board = p.h.waitPictureOf(p.channel, board)
	}
	for moves := 0; ; moves++ {
		if moves > n*n/2+1 {
			p.t.Fatalf("the game against the computer is not over after %d moves: %q", moves, board.Content)
		}
		menu, options := findRowMenu(board)
		if menu == "" {
			break
		}
		wantPicker(p.t, board, n)
		row, _ := strconv.Atoi(options[0])
		opened := p.openRow(who, board, row)
		col := 0
		for _, b := range opened.Buttons() {
			if strings.HasPrefix(b.CustomID, "move/") && !b.Disabled {
				col, _ = strconv.Atoi(b.Label)
				break
			}
		}
		r := p.click(who, board.ID, p.cell(opened, row, col))
		wantBoard(p.t, r, discordgo.InteractionResponseUpdateMessage)
		board = r.Message
		if n > bot.MaxEmojiSize {
			// Each move's picture follows the answer, before the next tap.
			board = p.h.waitPictureOf(p.channel, board)
		}
	}
	if !strings.Contains(board.Content, "wins") && !strings.Contains(board.Content, "Draw") {
		p.t.Errorf("the final board says %q; want a result", board.Content)
	}
	if n > bot.MaxEmojiSize && (len(board.Attachments) != 1 || strings.Contains(board.Content, "⬜")) {
		p.t.Errorf("the final %d×%d board carries %d attachments and says %q; want its picture alone", n, n, len(board.Attachments), board.Content)
	}
}

// waitPictureOf waits until board message m, as an answer left it, carries
// a new picture with the same text: the picture of that state, which its
// answer of text alone (a board over MaxEmojiSize has no grid) announced.
// The picture of an earlier state may come first. It returns the message.
func (h *harness) waitPictureOf(channel string, m discordtest.Message) discordtest.Message {
	h.t.Helper()
	text := m.Content
	return h.waitNewPicture(channel, m, func(m discordtest.Message) bool { return m.Content == text },
		fmt.Sprintf("its picture, saying %q", text))
}

// waitPictureSaying waits until board message m carries a picture it did
// not carry before with a text that says want: taps come faster than
// pictures, so the picture of an earlier move may come first. It checks
// that the message then carries that one picture alone, without an emoji
// grid, and returns it.
func (h *harness) waitPictureSaying(channel string, m discordtest.Message, want string) discordtest.Message {
	h.t.Helper()
	m = h.waitNewPicture(channel, m, func(m discordtest.Message) bool { return strings.Contains(m.Content, want) },
		fmt.Sprintf("a picture saying %q", want))
	wantNoGrid(h.t, m)
	return m
}

// wantPicker checks that board, of a running n×n game, carries the
// picker: a menu of the rows with a free cell, and the Move… button.
func wantPicker(t *testing.T, board discordtest.Message, n int) {
	t.Helper()
	menu, options := findRowMenu(board)
	if menu == "" || !strings.HasPrefix(menu, "row/") {
		t.Fatalf("board %s has no menu of rows: %+v", board.ID, board.Components)
	}
	if len(options) == 0 || len(options) > n {
		t.Errorf("the menu of rows offers %v; want 1 to %d rows", options, n)
	}
	button(t, board, -1, 0, "type/")
	if strings.Contains(board.Content, "/ttt move") {
		t.Errorf("a board with the picker says %q; want no /ttt move", board.Content)
	}
}

// rowMenu returns the custom_id and the option values of the picker's
// menu of rows on m.
func rowMenu(t *testing.T, m discordtest.Message) (string, []string) {
	t.Helper()
	id, options := findRowMenu(m)
	if id == "" {
		t.Fatalf("message %s has no menu of rows: %q", m.ID, m.Content)
	}
	return id, options
}

func findRowMenu(m discordtest.Message) (string, []string) {
	for _, s := range m.SelectMenus() {
		if s.Disabled {
			continue
		}
		var values []string
		for _, o := range s.Options {
			values = append(values, o.Value)
		}
		return s.CustomID, values
	}
	return "", nil
}

// A 15×15 correspondence game, a day per move: once every token has
// expired, the picker still plays (each tap brings a token of its own,
// whose answer updates the board and puts its picture on); a day later,
// after a restart, the timeout reaches the board through its channel with
// the bot's token, and puts the picture of the final position there, in
// place of the old one.
func TestE2EBigCorrespondence(t *testing.T) {
	t.Parallel()
	bothTransports(t, nil, func(t *testing.T, h *harness) {
		admin, alice, bob := h.manager("admin"), h.srv.NewMember("alice"), h.srv.NewMember("bob")
		wantSaid(t, h.slash(admin, h.srv.NewID(), "config", discordtest.Int("turn_timeout", 86400)),
			"• ✏️ Time per move (`turn_timeout`): **24 hours** (was 5 minutes)")
		ch := h.srv.NewID()
		p := tapper{h: h, t: t, guild: h.guild, channel: ch, where: func(*discordtest.Interaction) {}}
		board := h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 15), discordtest.Int("win", 5))
		board = h.waitPictureOf(ch, board)
		board = h.waitPictureOf(ch, p.pick(alice, board, 8, 8, mention(bob)+" to move"))

		h.srv.ExpireTokens() // the harness fails the test if the bot still uses one
		board = h.waitPictureOf(ch, p.pick(bob, board, 9, 9, mention(alice)+" to move"))
		pictured := board.Attachments[0].ID

		h.stop()
		dayLater(t, h.vars["DATABASE_URL"], ch)
		h.srv.ExpireTokens()
		h.launch()
		m := waitFor(t, h, ch, board.ID, mention(alice)+" did not move in time")
		for len(m.Attachments) == 0 || m.Attachments[0].ID == pictured {
			next, err := h.srv.WaitMessageEdit(h.ctx, ch, m.ID, m.Edits)
			if err != nil {
				t.Fatalf("the timed-out board never got its picture: %v; it says %q with %d attachments", err, m.Content, len(m.Attachments))
			}
			m = next
		}
		if len(m.Attachments) != 1 || m.Attachments[0].Filename != "board.png" || strings.Contains(m.Content, "⬜") {
			t.Errorf("the timed-out board carries %d attachments and says %q; want its new picture alone", len(m.Attachments), m.Content)
		}
		if menu, _ := findRowMenu(m); menu != "" || enabledButtons(m) != 1 {
			t.Errorf("the timed-out board has a menu %q and %d enabled buttons; want only Rematch", menu, enabledButtons(m))
		}
	})
}

// A 15×15 gomoku game between two people on two replicas behind a load
// balancer that sends each interaction to the next one (one PostgreSQL
// database): a row chosen on one replica, its cell tapped on the other,
// and the modal opened on one and submitted to the other, to the end; a
// picker drawn before a move, tapped on either replica, is refused; the
// pictures come from whichever replica answered, the last one showing the
// final position.
func TestE2EBigBoardsOnReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := discordtest.NewServer("big-replicas-secret-token")
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	procs := httpReplicas(t, ctx, srv, guild, dbURL)
	srv.UseEndpoint(roundRobin(t, procs[0].listening(t, "interactions"), procs[1].listening(t, "interactions")) + "/interactions")
	h := &harness{t: t, srv: srv, guild: guild, ctx: ctx, stop: func() {}}
	alice, bob := srv.NewMember("alice"), srv.NewMember("bob")
	ch := srv.NewID()
	p := tapper{h: h, t: t, guild: guild, channel: ch, where: func(*discordtest.Interaction) {}}

	board := h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 15), discordtest.Int("win", 5))
	board = h.waitPictureOf(ch, board)
	// Alice's row 8 open, then her move typed: bob's tap on that row,
	// twice (one reaches each replica), is out of date.
	opened := p.openRow(alice, board, 8)
	old := p.cell(opened, 8, 9)
	board = h.waitPictureOf(ch, p.typed(alice, opened, "8 8", mention(bob)+" to move"))
	for range 2 {
		board = wantStaleRedrawn(t, h, srv.Click(guild, ch, bob, board.ID, old).Unchecked())
	}
	wantPicker(t, board, 15)
	board = p.playToWin(board, bob, alice, 15, 5, 2, 3, "2 5")
	h.waitPictureSaying(ch, board, mention(bob)+" wins")

	for i, err := range stopBoth(ctx, procs) {
		if err != nil {
			t.Errorf("after SIGTERM %s exited with %v; want status 0", procs[i].name, err)
		}
	}
	for _, r := range srv.Rejected() {
		t.Errorf("Discord rejected %s %s: %d %s", r.Method, r.Path, r.Status, r.Reply)
	}
	db, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := db.Current(ctx, ch)
	if err != nil || g == nil || g.Running() || len(g.Moves) != 10 {
		t.Fatalf("the stored game is %+v, %v; want it over after 10 moves (alice's 8 8, then bob's five and alice's four)", g, err)
	}
}

// wantStaleRedrawn sends in, a tap on a picker drawn before the board's
// last move, and checks that it played nothing visible: its answer redraws
// the board (UPDATE_MESSAGE) with a fresh picker, and the refusal follows
// to the tapper alone. It returns the board as redrawn.
func wantStaleRedrawn(t *testing.T, h *harness, in *discordtest.Interaction) discordtest.Message {
	t.Helper()
	r := h.send(in)
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Ephemeral {
		t.Fatalf("a stale tap answered type %d ephemeral=%v %q; want the board redrawn", r.Type, r.Ephemeral, r.Message.Content)
	}
	fs, err := h.srv.WaitFollowups(h.ctx, in, 1)
	if err != nil {
		t.Fatalf("no refusal followed the stale tap: %v", err)
	}
	if !fs[0].Ephemeral() || !strings.Contains(fs[0].Content, "The board changed since you opened this, so nothing was played") {
		t.Errorf("the stale tap's follow-up: ephemeral=%v %q; want the refusal, to the tapper alone", fs[0].Ephemeral(), fs[0].Content)
	}
	return r.Message
}
