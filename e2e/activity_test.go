package e2e

// The live board end to end in a real browser: the real binary serves the
// page on WEB_ADDR, headless Chromium opens it as Discord would (package
// browsertest: the page in an iframe under a parent playing Discord's side
// of the Embedded App SDK), and the fake Discord answers the OAuth2 code,
// /users/@me and the activity instance. Every check is on what a person
// sees: the page's drawn state and notices, and the chat's board messages
// at the fake Discord.

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/internal/browsertest"
	"github.com/tttbot/tttbot/store/storetest"
	"github.com/tttbot/tttbot/web"
)

// startLiveBot starts the binary with the live board on addr
// ("127.0.0.1:0" for any port) and env on top, once the fake Discord's
// client secret is known, and returns the page's base URL.
func startLiveBot(t *testing.T, addr string, env map[string]string) (*harness, string) {
	t.Helper()
	vars := map[string]string{"WEB_ADDR": addr, "DISCORD_CLIENT_SECRET": "replaced below"}
	for k, v := range env {
		vars[k] = v
	}
	h := startBot(t, vars)
	// A browser and a restart on top of the bot: more than startBot's
	// minute on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	h.ctx = ctx
	h.vars["DISCORD_CLIENT_SECRET"] = h.srv.ClientSecret() // the fake's, known once it runs
	if vars["DISCORD_GUILD_ID"] == "" {
		h.srv.EnableActivities(int(bot.EntryPointAppHandler))
	}
	h.restart()
	return h, "http://" + h.listening("web")
}

// freeAddr returns a loopback address with a port free now, for a bot
// that must come back on the same port after a restart.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// pageOf is how Discord would open the page of instance inst in channel ch
// for m: a fresh one-time OAuth2 code from the fake Discord.
func (h *harness) pageOf(m discordtest.Member, inst, ch string, phone bool) browsertest.Session {
	return browsertest.Session{
		ClientID: h.srv.AppID, InstanceID: inst, ChannelID: ch, GuildID: h.guild,
		UserID: m.User.ID, Username: m.User.Username, Code: h.srv.Authorize(m.User, "en-US"), Phone: phone,
	}
}

// publicSender returns a func that sends an interaction to srv and waits
// for its answer, failing t unless it is public: the interactions of a
// test that must all show in the channel.
func publicSender(t *testing.T, ctx context.Context, srv *discordtest.Server) func(*discordtest.Interaction) *discordtest.Response {
	return func(in *discordtest.Interaction) *discordtest.Response {
		t.Helper()
		if err := srv.Send(ctx, in); err != nil {
			t.Fatal(err)
		}
		r, err := in.Response(ctx)
		if err != nil || r.Ephemeral {
			t.Fatalf("%s: %v %+v; want a public answer", describeInteraction(in), err, r)
		}
		return r
	}
}

// cellOf is the mark the state shows at row, col (1-based).
func cellOf(s web.State, row, col int) string { return s.Cells[(row-1)*s.Size+col-1] }

// emojiCells is what a chat board with s's marks shows, as cells does.
func emojiCells(s web.State) string {
	var b strings.Builder
	for _, c := range s.Cells {
		b.WriteString(map[string]string{"": "⬜", "X": "❌", "O": "⭕"}[c])
	}
	return b.String()
}

// waitChat waits until a message of the channel satisfies ok, and returns
// it.
func (h *harness) waitChat(ch, what string, ok func(discordtest.Message) bool) discordtest.Message {
	h.t.Helper()
	for {
		for _, m := range h.srv.Messages(ch) {
			if !m.Deleted && ok(m) {
				return m
			}
		}
		select {
		case <-h.ctx.Done():
			var seen []string
			for _, m := range h.srv.Messages(ch) {
				seen = append(seen, m.Content+" "+cells(m))
			}
			h.t.Fatalf("waited for %s in the chat; messages: %q", what, seen)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// noProblems fails t when a page threw, broke its security policy, asked
// for anything off its origin or shows a broken image (the players'
// avatars come through the activity's mapping of Discord's CDN, which the
// bot answers 404 outside Discord: the page must hide them).
func noProblems(t *testing.T, pages ...*browsertest.Page) {
	t.Helper()
	for _, p := range pages {
		if exc, sec := p.Problems(); len(exc)+len(sec) > 0 {
			t.Errorf("a page threw %q and broke its security policy: %q", exc, sec)
		}
		if off := p.OffOrigin(); len(off) > 0 {
			t.Errorf("a page asked for something off its origin (Discord's proxy would block it): %q", off)
		}
		broken := browsertest.Until(p, "the avatars to load or fail", `Array.from(document.images).filter(i => i.getAttribute('src')).every(i => i.complete) ? `+
			`Array.from(document.images).filter(i => i.getAttribute('src') && !i.hidden && i.naturalWidth === 0 && i.getClientRects().length > 0).map(i => i.src) : null`,
			func(b *[]string) bool { return b != nil })
		if len(*broken) > 0 {
			t.Errorf("a page shows broken images: %q", *broken)
		}
	}
}

// Two players on two pages (one a phone) and a spectator on a third play
// a 15×15 game to five in a row by taps. Every tap shows on all three
// pages; the spectator's tap is refused with chat's words, on their page
// only, and changes nothing; the win shows on the pages and in the chat.
// With -soak only (the normal run has TestE2EActivityComputerGame).
func TestE2EActivityBigGameByTaps(t *testing.T) {
	if !*soak {
		t.Skip("a browser with three pages and 15×15 boards drawn for chat at every move: run with -soak, as .ci/run does (without -race)")
	}
	t.Parallel()
	h, base := startLiveBot(t, "127.0.0.1:0", nil)
	alice, bob, sam := h.srv.NewMember("alice"), h.srv.NewMember("bob"), h.srv.NewMember("sam")
	ch := h.srv.NewID()
	h.challengeAccepted(ch, alice, bob, discordtest.Int("size", 15), discordtest.Int("win", 5))
	inst := h.srv.StartActivity(ch, h.guild, alice.User.ID, bob.User.ID, sam.User.ID)

	b := browsertest.New(t)
	pa := b.Open(base, h.pageOf(alice, inst, ch, true))
	pb := b.Open(base, h.pageOf(bob, inst, ch, false))
	ps := b.Open(base, h.pageOf(sam, inst, ch, false))
	pages := []*browsertest.Page{pa, pb, ps}

	st := pa.WaitState("the 15×15 game", func(s web.State) bool { return s.Running })
	if st.Size != 15 || st.Win != 5 || len(st.Moves) != 0 {
		t.Fatalf("alice's page shows %d×%d, %d to win, %d moves; want a new 15×15 game, 5 to win", st.Size, st.Size, st.Win, len(st.Moves))
	}
	you := map[*browsertest.Page]string{}
	for _, p := range pages {
		you[p] = p.WaitState("the game", func(s web.State) bool { return s.Running }).You
	}
	if you[pa] == "" || you[pb] == "" || you[pa] == you[pb] || you[ps] != "" {
		t.Fatalf("sides on the pages: alice %q, bob %q, sam %q; want X and O, and none for the spectator", you[pa], you[pb], you[ps])
	}
	first, second := pa, pb
	if st.Turn != you[pa] {
		first, second = pb, pa
	}
	// The first player makes five in row 8; the second gets four in row 1.
	type tap struct {
		p        *browsertest.Page
		row, col int
	}
	var taps []tap
	for i := range 5 {
		taps = append(taps, tap{first, 8, 4 + i})
		if i < 4 {
			taps = append(taps, tap{second, 1, 1 + i})
		}
	}
	for i, tp := range taps {
		tp.p.Tap(tp.row, tp.col)
		for _, p := range pages {
			p.WaitState("the tap on row "+strconv.Itoa(tp.row)+", column "+strconv.Itoa(tp.col), func(s web.State) bool {
				return len(s.Moves) == i+1 && cellOf(s, tp.row, tp.col) == you[tp.p]
			})
		}
		if i == 2 {
			// The spectator taps a free cell: refused, in chat's words,
			// and the game goes on without that mark.
			ps.Tap(15, 15)
			got := ps.WaitText("#notice", func(s string) bool { return s != "" })
			if !strings.HasPrefix(got, "You're not playing in this game") {
				t.Errorf("the spectator's tap shows %q; want the refusal chat gives", got)
			}
			for _, p := range []*browsertest.Page{pa, pb} {
				if n := p.Notice(); n != "" {
					t.Errorf("a player's page shows %q after the spectator's tap", n)
				}
			}
		}
	}
	won := func(s web.State) bool { return !s.Running && len(s.WinLine) == 5 }
	for _, p := range pages {
		s := p.WaitState("the win", won)
		if cellOf(s, 15, 15) != "" || len(s.Moves) != len(taps) {
			t.Errorf("after the game the page shows %d moves and %q at 15,15; want %d and the spectator's tap nowhere", len(s.Moves), cellOf(s, 15, 15), len(taps))
		}
		for _, m := range s.WinLine {
			if m.Row != 8 || m.Col < 4 || m.Col > 8 {
				t.Errorf("winning line %+v; want row 8, columns 4 to 8", s.WinLine)
				break
			}
		}
	}
	winner := alice
	if first == pb {
		winner = bob
	}
	h.waitChat(ch, "the chat board saying "+winner.User.Username+" won", func(m discordtest.Message) bool {
		return strings.Contains(m.Content, mention(winner)+" wins")
	})
	if dir := screenshotsDir(); dir != "" {
		pa.Screenshot(filepath.Join(dir, "activity-phone.png"))
		pb.Screenshot(filepath.Join(dir, "activity-desktop.png"))
	}
	noProblems(t, pages...)
}

// A game against the computer from the chat board's Open board button to
// its end: the click answers LAUNCH_ACTIVITY and Discord opens the page
// for the channel's instance; a click on a chat cell shows on the page, a
// tap on the page on the chat board, each with the computer's answer.
// Someone not in the activity gets the page's refusal in words instead of
// a board; so does a page whose URL names another channel than its
// activity's.
func TestE2EActivityComputerGame(t *testing.T) {
	t.Parallel()
	h, base := startLiveBot(t, "127.0.0.1:0", map[string]string{"DISCORD_GUILD_ID": ""})
	alice, bob := h.srv.NewMember("alice"), h.srv.NewMember("bob")
	// An avatar, which the page must load through the activity's /cdn
	// mapping, not from Discord's CDN (noProblems: nothing off origin).
	alice.User.Avatar = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
	h.srv.SetAvatar(alice.User.ID, alice.User.Avatar)
	ch := h.srv.NewID()
	start := h.slash(alice, ch, "start", discordtest.Str("difficulty", "easy"))
	wantBoard(t, start, discordgo.InteractionResponseChannelMessageWithSource)
	launch := openBoard(start.Message)
	if launch == "" {
		t.Fatalf("the board has no Open board button: %+v", start.Message.Buttons())
	}
	if r := h.click(alice, ch, start.Message.ID, launch); r.Type != bot.InteractionResponseLaunchActivity {
		t.Fatalf("Open board answered type %d; want LAUNCH_ACTIVITY (12)", r.Type)
	}
	inst := h.srv.StartActivity(ch, h.guild, alice.User.ID)

	b := browsertest.New(t)
	p := b.Open(base, h.pageOf(alice, inst, ch, true))
	st := p.WaitState("the game", func(s web.State) bool { return s.Running })
	if st.Size != 3 || emojiCells(st) != cells(start.Message) {
		t.Fatalf("the page shows %s (%d×%d); the chat board %s", emojiCells(st), st.Size, st.Size, cells(start.Message))
	}
	// Her avatar comes through the activity's /cdn mapping of Discord's
	// CDN, a path on the page's own origin.
	want := web.AvatarPath(alice.User.ID, alice.User.Avatar, 64)
	if !strings.HasPrefix(want, "cdn/avatars/") || !slices.ContainsFunc(st.Players[:], func(u web.User) bool { return u.ID == alice.User.ID && u.Avatar == want }) {
		t.Errorf("the page's players are %+v; want alice with the avatar %s", st.Players, want)
	}

	// A click in chat shows on the page, with the computer's answer.
	r := h.click(alice, ch, start.Message.ID, freeCell(start.Message))
	wantBoard(t, r, discordgo.InteractionResponseUpdateMessage)
	st = p.WaitState("the chat click", func(s web.State) bool { return emojiCells(s) == cells(r.Message) })
	if len(st.Moves) < 2 {
		t.Errorf("after the chat click the page shows %d moves; want alice's and the computer's", len(st.Moves))
	}

	// Taps on the page to the end, each shown on the chat board.
	for st.Running {
		if st.Turn != st.You {
			t.Fatalf("the page shows %s to move, alice is %s: the computer did not answer", st.Turn, st.You)
		}
		row, col := 0, 0
		for i, c := range st.Cells {
			if c == "" {
				row, col = i/st.Size+1, i%st.Size+1
				break
			}
		}
		n := len(st.Moves)
		p.Tap(row, col)
		st = p.WaitState("the tap on row "+strconv.Itoa(row)+", column "+strconv.Itoa(col), func(s web.State) bool {
			return cellOf(s, row, col) == s.You && len(s.Moves) > n && (!s.Running || s.Turn == s.You)
		})
		want := emojiCells(st)
		h.waitChat(ch, "the chat board showing "+want, func(m discordtest.Message) bool { return cells(m) == want })
	}
	end := h.waitChat(ch, "the chat board's ending", func(m discordtest.Message) bool {
		return cells(m) == emojiCells(st) && (strings.Contains(m.Content, " wins") || strings.Contains(m.Content, "Draw"))
	})
	if st.Status == "" || strings.Contains(st.Status, "move") {
		t.Errorf("the page ends saying %q; the chat board %q", st.Status, end.Content)
	}

	// Someone not in the activity is refused, in words.
	catalog, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	pb := b.Launch(base, h.pageOf(bob, inst, ch, false))
	pb.WaitNotice(catalog.For("en-US").T("web.not_in_instance", nil))
	var phase string
	if err := pb.Eval(`tttLive.phase`, &phase); err != nil || phase != "refused" {
		t.Errorf("bob's refused page is in phase %q (%v); want refused", phase, err)
	}
	// The page's launch parameters are not believed: an activity running
	// in another channel, opened with this channel's id in the URL, is
	// refused in words (the server compares the two), and shows no game.
	ch2 := h.srv.NewID()
	inst2 := h.srv.StartActivity(ch2, h.guild, alice.User.ID)
	po := b.Launch(base, h.pageOf(alice, inst2, ch, false))
	po.WaitNotice(catalog.For("en-US").T("web.instance_elsewhere", nil))
	if err := po.Eval(`tttLive.phase`, &phase); err != nil || phase != "refused" {
		t.Errorf("the page of another channel's activity is in phase %q (%v); want refused", phase, err)
	}
	noProblems(t, p, pb, po)
}

// A page whose replica restarts (SQLite, the same file, the same port)
// connects again by itself and shows the game as it is now: a move made
// in chat after the restart.
func TestE2EActivityReconnectsAfterRestart(t *testing.T) {
	if !*soak {
		t.Skip("a browser and a bot restarted on one port: run with -soak, as .ci/run does (without -race)")
	}
	t.Parallel()
	h, base := startLiveBot(t, freeAddr(t), nil)
	alice := h.srv.NewMember("alice")
	ch := h.srv.NewID()
	h.slash(alice, ch, "start", discordtest.Str("difficulty", "easy"))
	inst := h.srv.StartActivity(ch, h.guild, alice.User.ID)
	b := browsertest.New(t)
	p := b.Open(base, h.pageOf(alice, inst, ch, false))
	st := p.WaitState("the game", func(s web.State) bool { return s.Running && s.Turn == s.You })

	h.restart()
	if got := "http://" + h.listening("web"); got != base {
		t.Fatalf("the bot came back on %s; want %s", got, base)
	}
	row, col := 0, 0
	for i, c := range st.Cells {
		if c == "" {
			row, col = i/st.Size+1, i%st.Size+1
			break
		}
	}
	h.slash(alice, ch, "move", discordtest.Int("row", int64(row)), discordtest.Int("col", int64(col)))
	p.WaitState("the move made in chat after the restart", func(s web.State) bool {
		return cellOf(s, row, col) == s.You && len(s.Moves) >= len(st.Moves)+2
	})
	noProblems(t, p)
}

// screenshotsDir is where to write pictures of the real 15×15 game
// (activity-phone.png, activity-desktop.png): TTT_SCREENSHOTS_DIR, else
// none. (The README's pictures are web/page's, made with
// TTT_SCREENSHOTS=1.)
func screenshotsDir() string { return os.Getenv("TTT_SCREENSHOTS_DIR") }

// Two replicas on one PostgreSQL, each serving the live board: alice's
// page on replica A and bob's on replica B see each other's taps (the
// store's change feed, LISTEN/NOTIFY), to the end of a game. With -soak
// only.
func TestE2EActivityTwoReplicas(t *testing.T) {
	if !*soak {
		t.Skip("two bot binaries and a browser: run with -soak, as .ci/run does (without -race)")
	}
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := discordtest.NewServer("activity-replicas-secret-token")
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	procs := startReplicas(t, ctx, func(int) map[string]string {
		return map[string]string{
			"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL, "DISCORD_GUILD_ID": guild,
			"DATABASE_URL": dbURL, "LOG_LEVEL": "debug",
			"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey(),
			"WEB_ADDR": "127.0.0.1:0", "DISCORD_CLIENT_SECRET": srv.ClientSecret(),
		}
	})
	srv.UseEndpoint("http://" + procs[0].listening(t, "interactions") + "/interactions")
	send := publicSender(t, ctx, srv)
	alice, bob := srv.NewMember("alice"), srv.NewMember("bob")
	ch := srv.NewID()
	r := send(srv.SlashCommand(guild, ch, alice, "ttt", discordtest.Sub("start", discordtest.User("opponent", bob))))
	send(srv.Click(guild, ch, bob, r.Message.ID, button(t, r.Message, -1, 0, "accept/")))
	inst := srv.StartActivity(ch, guild, alice.User.ID, bob.User.ID)
	h := &harness{t: t, srv: srv, guild: guild, ctx: ctx}

	b := browsertest.New(t)
	pa := b.Open("http://"+procs[0].listening(t, "web"), h.pageOf(alice, inst, ch, false))
	pb := b.Open("http://"+procs[1].listening(t, "web"), h.pageOf(bob, inst, ch, false))
	sa := pa.WaitState("the game", func(s web.State) bool { return s.Running })
	sb := pb.WaitState("the game", func(s web.State) bool { return s.Running })
	if sa.GameID != sb.GameID || sa.You == sb.You || sa.You == "" || sb.You == "" {
		t.Fatalf("replica A shows alice game %s as %q, replica B bob game %s as %q", sa.GameID, sa.You, sb.GameID, sb.You)
	}
	by := map[string]*browsertest.Page{sa.You: pa, sb.You: pb}
	// X takes the top row; O the middle one.
	cellsOf := map[string][][2]int{"X": {{1, 1}, {1, 2}, {1, 3}}, "O": {{2, 1}, {2, 2}}}
	st := sa
	for i := 0; st.Running; i++ {
		side := st.Turn
		c := cellsOf[side][0]
		cellsOf[side] = cellsOf[side][1:]
		by[side].Tap(c[0], c[1])
		for _, p := range []*browsertest.Page{pa, pb} {
			st = p.WaitState("the tap on row "+strconv.Itoa(c[0])+", column "+strconv.Itoa(c[1]), func(s web.State) bool {
				return len(s.Moves) == i+1 && cellOf(s, c[0], c[1]) == side
			})
		}
	}
	if len(st.Moves) != 5 || len(st.WinLine) != 3 || st.WinLine[0].Row != 1 {
		t.Errorf("the game ended after %d moves with line %+v; want X's top row after 5", len(st.Moves), st.WinLine)
	}
	noProblems(t, pa, pb)
	for _, p := range procs {
		if err := p.stop(ctx); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
}
