package page_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/internal/browsertest"
	"github.com/tttbot/tttbot/web"
	"github.com/tttbot/tttbot/web/page"
)

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// The index is never cached, names its assets by their content's hash,
// carries the client id and the CSP; the assets are immutable, gzipped on
// request, and nothing else is served.
func TestHandlerServesIndexAndHashedAssets(t *testing.T) {
	h := page.Handler(page.Options{ClientID: "12345"})
	w := get(t, h, "GET", "/")
	if w.Code != 200 {
		t.Fatalf("GET / = %d", w.Code)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("index Cache-Control %q, want no-cache", cc)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("index CSP %q", csp)
	}
	if w.Header().Get("Set-Cookie") != "" {
		t.Error("the page sets a cookie")
	}
	body := w.Body.String()
	if !strings.Contains(body, `<meta name="ttt-client-id" content="12345">`) {
		t.Errorf("the client id is not in the index:\n%s", body)
	}
	refs := regexp.MustCompile(`(?:src|href)="(assets/[^"]+)"`).FindAllStringSubmatch(body, -1)
	if len(refs) != 3 {
		t.Fatalf("index refers to %d assets, want 3 (app.css, sdk.js, app.js): %v", len(refs), refs)
	}
	for _, ref := range refs {
		p := "/" + ref[1]
		if !regexp.MustCompile(`^/assets/(app|sdk)\.[0-9a-f]{10}\.(js|css)$`).MatchString(p) {
			t.Errorf("asset %s is not named name.hash.ext", p)
		}
		a := get(t, h, "GET", p)
		if a.Code != 200 {
			t.Fatalf("GET %s = %d", p, a.Code)
		}
		if cc := a.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s Cache-Control %q", p, cc)
		}
		if ct := a.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "text/css") {
			t.Errorf("%s Content-Type %q", p, ct)
		}
		sum := sha256.Sum256(a.Body.Bytes())
		if !strings.Contains(p, "."+hex.EncodeToString(sum[:5])+".") {
			t.Errorf("%s: the name's hash is not its content's", p)
		}
		z := get(t, h, "GET", p, "Accept-Encoding", "br, gzip")
		if z.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not gzipped for a browser that accepts gzip", p)
		} else {
			zr, err := gzip.NewReader(z.Body)
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := io.ReadAll(zr)
			if !bytes.Equal(plain, a.Body.Bytes()) {
				t.Errorf("%s: gzipped body differs", p)
			}
		}
		if z := get(t, h, "GET", p, "Accept-Encoding", "gzip;q=0"); z.Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: gzipped although q=0", p)
		}
	}
	for _, p := range []string{"/assets/app.js", "/assets/app.0000000000.js", "/favicon.ico", "/api/nothing", "/assets/"} {
		if w := get(t, h, "GET", p); w.Code != 404 {
			t.Errorf("GET %s = %d, want 404", p, w.Code)
		}
	}
	if w := get(t, h, "POST", "/"); w.Code != 405 {
		t.Errorf("POST / = %d, want 405", w.Code)
	}
}

// The page's script and CSS, with the SDK: the budget is 250 KB raw.
func TestAssetSizes(t *testing.T) {
	as, err := page.Assets()
	if err != nil {
		t.Fatal(err)
	}
	raw, gz := 0, 0
	for _, a := range as {
		t.Logf("%s: %d bytes, %d gzipped", a.Path, a.Raw, a.Gzip)
		raw += a.Raw
		gz += a.Gzip
	}
	t.Logf("script and CSS: %d bytes, %d gzipped", raw, gz)
	if raw > 250_000 {
		t.Errorf("script and CSS are %d bytes, over the 250 KB budget", raw)
	}
}

// The SDK's bundle is the pinned version's, with its license beside it.
func TestSDKBundlePinnedWithLicenses(t *testing.T) {
	lock, err := os.ReadFile("build/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	if err := json.Unmarshal(lock, &l); err != nil {
		t.Fatal(err)
	}
	version := l.Packages["node_modules/@discord/embedded-app-sdk"].Version
	if version == "" {
		t.Fatal("package-lock.json pins no @discord/embedded-app-sdk")
	}
	lic, err := os.ReadFile("THIRD_PARTY_LICENSES.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(lic), "@discord/embedded-app-sdk "+version+"\n") || !strings.Contains(string(lic), "MIT License") {
		t.Errorf("THIRD_PARTY_LICENSES.txt does not carry the license of @discord/embedded-app-sdk %s", version)
	}
	sdk, err := os.ReadFile("assets/sdk.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sdk, []byte(`"`+version+`"`)) || !bytes.Contains(sdk, []byte("tttDiscord")) {
		t.Errorf("assets/sdk.js is not the bundle of SDK %s (run go generate ./web/page/)", version)
	}
}

// browserPage opens user's page on f in b.
func open(b *browsertest.Browser, f *fakeServer, user string, phone bool) *browsertest.Page {
	return b.Open(f.srv.URL, sessionOf(user, phone))
}

func sessionOf(user string, phone bool) browsertest.Session {
	return browsertest.Session{
		ClientID: clientID, InstanceID: "i-1234", ChannelID: "900", GuildID: "800",
		UserID: user, Username: user, Code: codeFor(user), AccessTokenCheck: "token-" + user, Phone: phone,
	}
}

// Every size from 3×3 to 15×15 is drawn at its size, with its marks, the
// last move, the winning line and the server's words.
func TestPageDrawsEverySize(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, game(3, 3))
	f.marks["alice"] = "X"
	p := open(b, f, "alice", false)
	for n := 3; n <= 15; n++ {
		// X along the main diagonal, O beside it; X's last move wins.
		var moves []web.Move
		for i := 1; i <= 3; i++ {
			moves = append(moves, web.Move{Row: i, Col: i})
			if i < 3 {
				moves = append(moves, web.Move{Row: i, Col: n})
			}
		}
		st := game(n, 3, moves...)
		st.Version = int64(100 + n)
		st.Running, st.Turn = false, ""
		st.WinLine = []web.Move{{Row: 1, Col: 1}, {Row: 2, Col: 2}, {Row: 3, Col: 3}}
		st.Status = "Alice won"
		f.push(st)
		p.WaitState("the "+itoa(n)+"×"+itoa(n)+" state", func(s web.State) bool { return s.Version == st.Version })

		var cells []string
		if err := p.Eval(`Array.from(document.querySelectorAll('#board .cell')).map(c => c.textContent)`, &cells); err != nil {
			t.Fatal(err)
		}
		if len(cells) != n*n {
			t.Fatalf("%d×%d: %d cells drawn", n, n, len(cells))
		}
		for i := range cells {
			if cells[i] != st.Cells[i] {
				t.Fatalf("%d×%d: cell %d,%d shows %q, state has %q", n, n, i/n+1, i%n+1, cells[i], st.Cells[i])
			}
		}
		if got := len(p.Rects("#board .cell.win")); got != 3 {
			t.Errorf("%d×%d: %d cells in the winning line, want 3", n, n, got)
		}
		if got := p.Text("#board .cell.last"); got != "X" {
			t.Errorf("%d×%d: last move shows %q", n, n, got)
		}
		if got := p.Text("#status"); got != "Alice won" {
			t.Errorf("%d×%d: status %q", n, n, got)
		}
		if got := p.Text("#last"); got != "Last move: X 3·3" {
			t.Errorf("%d×%d: last move line %q", n, n, got)
		}
		if got := p.Text("#moves"); !strings.HasPrefix(got, "X 1·1O 1·"+itoa(n)) {
			t.Errorf("%d×%d: move list %q", n, n, got)
		}
		rs := p.Rects("#board .cell")
		first, last := rs[0], rs[len(rs)-1]
		if first.W < 20 || math.Abs(first.W-last.W) > 0.5 || math.Abs(first.W-first.H) > 0.5 {
			t.Errorf("%d×%d: cells not square and alike: first %+v, last %+v", n, n, rs[0], rs[len(rs)-1])
		}
	}
	// The game over: the players' names, no resign, Rematch offered.
	if got := p.Text("#player-x .name") + "/" + p.Text("#player-o .name"); got != "Alice/Bob" {
		t.Errorf("players %q", got)
	}
	p.WaitText("#rematch", func(s string) bool { return s == "Rematch" })
	if shown := p.Rects("#resign"); len(shown) != 1 || shown[0].W != 0 {
		t.Errorf("Resign shown after the game: %+v", shown)
	}

	// A gomoku won on a diagonal, for the README's desktop picture.
	st := game(15, 5,
		web.Move{Row: 5, Col: 5}, web.Move{Row: 6, Col: 5}, web.Move{Row: 6, Col: 6}, web.Move{Row: 7, Col: 6},
		web.Move{Row: 7, Col: 7}, web.Move{Row: 8, Col: 7}, web.Move{Row: 8, Col: 8}, web.Move{Row: 5, Col: 9},
		web.Move{Row: 9, Col: 9})
	st.Version = 200
	st.Running, st.Turn = false, ""
	st.WinLine = []web.Move{{Row: 5, Col: 5}, {Row: 6, Col: 6}, {Row: 7, Col: 7}, {Row: 8, Col: 8}, {Row: 9, Col: 9}}
	st.Status = "Alice won: five in a row."
	f.push(st)
	p.WaitState("the won gomoku", func(s web.State) bool { return s.Version == st.Version })
	if got := len(p.Rects("#board .cell.win")); got != 5 {
		t.Errorf("gomoku: %d cells in the winning line, want 5", got)
	}
	if screenshots() != "" {
		p.Screenshot(filepath.Join(screenshots(), "activity-desktop.png"))
	}
}

// A phone held upright (360×640 CSS px) shows the whole 15×15 board with
// every cell at least 20 px, and a tap on a cell sends that move.
func TestPhoneShowsWholeBigBoard(t *testing.T) {
	b := browsertest.New(t)
	st := game(15, 5,
		web.Move{Row: 8, Col: 8}, web.Move{Row: 7, Col: 9}, web.Move{Row: 9, Col: 9}, web.Move{Row: 7, Col: 7},
		web.Move{Row: 10, Col: 10}, web.Move{Row: 7, Col: 8}, web.Move{Row: 7, Col: 10}, web.Move{Row: 11, Col: 11},
		web.Move{Row: 6, Col: 6}, web.Move{Row: 8, Col: 9})
	st.Deadline = st.Now + 150_000
	st.Status = "Your move"
	f := newFakeServer(t, st)
	f.marks["alice"] = "X"
	p := open(b, f, "alice", true)

	rs := p.Rects("#board .cell")
	if len(rs) != 225 {
		t.Fatalf("%d cells, want 225", len(rs))
	}
	for i, r := range rs {
		if r.W < 20 || r.H < 20 {
			t.Fatalf("cell %d,%d is %.1f×%.1f px, under 20", i/15+1, i%15+1, r.W, r.H)
		}
		if r.X < 0 || r.Y < 0 || r.X+r.W > 360 || r.Y+r.H > 640 {
			t.Fatalf("cell %d,%d at %+v is outside the 360×640 screen", i/15+1, i%15+1, r)
		}
	}
	t.Logf("15×15 on 360×640: cells %.1f×%.1f px, board from y=%.0f to %.0f", rs[0].W, rs[0].H, rs[0].Y, rs[224].Y+rs[224].H)
	for _, id := range []string{"resign", "offer_draw"} {
		r := p.Rects("#" + id)
		if len(r) != 1 || r[0].H < 20 || r[0].Y+r[0].H > 640 {
			t.Errorf("%s button not on the screen: %+v", id, r)
		}
	}
	// The clock counts down against the server's clock (State.now), not
	// the browser's: 2:30 left when the state was made.
	clock := p.WaitText("#clock", func(s string) bool { return s != "" })
	if !regexp.MustCompile(`^2:[0-3]\d$`).MatchString(clock) {
		t.Errorf("clock shows %q, want about 2:30", clock)
	}
	if screenshots() != "" {
		p.Screenshot(filepath.Join(screenshots(), "activity-phone.png"))
	}

	if exc, sec := p.Problems(); len(exc)+len(sec) > 0 {
		t.Errorf("the page threw %q and broke its security policy: %q", exc, sec)
	}
	p.Tap(15, 15)
	m := f.next(t)
	if m.User != "alice" || m.Msg.Type != "move" || m.Msg.Row != 15 || m.Msg.Col != 15 || m.Msg.Version != st.Version || m.Msg.Seq <= 0 {
		t.Errorf("tap on 15,15 sent %+v", m)
	}
}

// A tap sends the move with the version the page saw; the buttons send
// their frames; a refusal shows its text; everything the page asked of
// Discord and of the network stayed on its origin.
func TestTapsButtonsAndRefusals(t *testing.T) {
	b := browsertest.New(t)
	st := game(3, 3, web.Move{Row: 1, Col: 1})
	st.DrawOffer = "O"
	f := newFakeServer(t, st)
	f.marks["alice"], f.marks["bob"] = "X", "O"
	f.answer = func(user string, m web.ClientMsg) []web.ServerMsg {
		if user == "carol" {
			return []web.ServerMsg{{Type: "result", Seq: m.Seq, Message: "You are watching: only Alice and Bob play here."}}
		}
		return []web.ServerMsg{{Type: "result", Seq: m.Seq, OK: true}}
	}
	alice := open(b, f, "alice", false)

	alice.Tap(2, 3)
	if m := f.next(t).Msg; m.Type != "move" || m.Row != 2 || m.Col != 3 || m.Version != st.Version {
		t.Errorf("tap sent %+v", m)
	}
	// Bob offered a draw: Alice can accept or decline it, not offer one.
	if got := alice.WaitText("#accept_draw", func(string) bool { return true }); got != "Accept the draw" {
		t.Errorf("accept button says %q", got)
	}
	if r := alice.Rects("#offer_draw"); r[0].W != 0 {
		t.Error("Offer a draw shown while Bob's offer stands")
	}
	alice.Click("accept_draw")
	if m := f.next(t).Msg; m.Type != "answer_draw" || !m.Accept {
		t.Errorf("accept sent %+v", m)
	}
	alice.Click("decline_draw")
	if m := f.next(t).Msg; m.Type != "answer_draw" || m.Accept {
		t.Errorf("decline sent %+v", m)
	}
	alice.Click("resign")
	if m := f.next(t).Msg; m.Type != "resign" {
		t.Errorf("resign sent %+v", m)
	}

	// A spectator sees the game, no buttons, and the server's refusal on a tap.
	carol := open(b, f, "carol", false)
	if r := carol.Rects("#resign"); r[0].W != 0 {
		t.Error("a spectator is shown Resign")
	}
	carol.Tap(3, 3)
	if m := f.next(t); m.User != "carol" || m.Msg.Type != "move" {
		t.Errorf("spectator's tap sent %+v", m)
	}
	carol.WaitNotice("You are watching: only Alice and Bob play here.")
	// A spectator who leaves closes their socket.
	carol.Close()
	waitFor(t, "carol's socket to close", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		for c := range f.conns {
			if c.user == "carol" {
				return false
			}
		}
		return true
	})

	// What the page said to Discord's side: the handshake with the client
	// id, then AUTHORIZE for identify with a code, then AUTHENTICATE.
	var cmds []string
	for _, raw := range alice.Commands() {
		var msg [2]json.RawMessage
		json.Unmarshal(raw, &msg)
		var d struct {
			Cmd      string `json:"cmd"`
			ClientID string `json:"client_id"`
			Args     struct {
				ClientID string   `json:"client_id"`
				Scope    []string `json:"scope"`
				Token    string   `json:"access_token"`
			} `json:"args"`
		}
		json.Unmarshal(msg[1], &d)
		switch {
		case string(msg[0]) == "0":
			cmds = append(cmds, "HANDSHAKE "+d.ClientID)
		default:
			cmds = append(cmds, d.Cmd+" "+d.Args.ClientID+strings.Join(d.Args.Scope, ",")+d.Args.Token)
		}
	}
	want := []string{"HANDSHAKE " + clientID, "AUTHORIZE " + clientID + "identify", "AUTHENTICATE token-alice"}
	if strings.Join(cmds, "|") != strings.Join(want, "|") {
		t.Errorf("page to Discord: %q, want %q", cmds, want)
	}
	var sdkErrors []any
	alice.Parent(`window.discordErrors`, &sdkErrors)
	if len(sdkErrors) != 0 {
		t.Errorf("Discord's side refused: %v", sdkErrors)
	}
	f.mu.Lock()
	if len(f.sessions) == 0 || f.sessions[0] != (sessionReq{codeFor("alice"), "i-1234"}) {
		t.Errorf("POST /api/session got %+v, want alice's code and instance i-1234", f.sessions)
	}
	f.mu.Unlock()
	if exc, sec := alice.Problems(); len(exc)+len(sec) > 0 {
		t.Errorf("the page threw %q and broke its security policy: %q", exc, sec)
	}
	if off := alice.OffOrigin(); len(off) > 0 {
		t.Errorf("requests off the page's origin: %q", off)
	}
}

// Avatars come through the activity's mapping of Discord's CDN, a path on
// the page's own origin: the page asks nothing of anyone else, breaks no
// policy, and where an avatar does not load (outside Discord the bot
// answers it 404) shows the player's initial instead.
func TestAvatarsThroughTheProxy(t *testing.T) {
	b := browsertest.New(t)
	st := game(3, 3)
	st.Players[0].Avatar = web.AvatarPath("111122223333", "a_0123456789abcdef", 64)
	f := newFakeServer(t, st)
	p := open(b, f, "bob", true)
	p.WaitText("#player-x .initial", func(s string) bool { return s == "A" })
	type shown struct{ XImg, OImg, OInitial bool }
	want := shown{OImg: true} // Alice's initial for her avatar that did not load, Bob's avatar
	browsertest.Until(p, "Alice's initial and Bob's avatar", `({XImg: !document.querySelector('#player-x .avatar').hidden, `+
		`OImg: !document.querySelector('#player-o .avatar').hidden && document.querySelector('#player-o .avatar').naturalWidth > 0, `+
		`OInitial: !document.querySelector('#player-o .initial').hidden})`, func(s shown) bool { return s == want })
	asked := false
	for _, r := range p.Requests() {
		if strings.HasSuffix(r, "/cdn/avatars/111122223333/a_0123456789abcdef.png?size=64") && strings.HasPrefix(r, f.srv.URL) {
			asked = true
		}
	}
	if !asked {
		t.Errorf("Alice's avatar was not asked of the page's origin: %q", p.Requests())
	}
	if off := p.OffOrigin(); len(off) > 0 {
		t.Errorf("requests off the page's origin: %q", off)
	}
	if exc, sec := p.Problems(); len(exc)+len(sec) > 0 {
		t.Errorf("the page threw %q and broke its security policy: %q", exc, sec)
	}
}

// When the socket drops, the page reconnects, says hello again and shows
// the state as it is now.
func TestReconnectRereadsState(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, game(5, 4, web.Move{Row: 3, Col: 3}))
	f.marks["bob"] = "O"
	p := open(b, f, "bob", false)

	now := game(5, 4, web.Move{Row: 3, Col: 3}, web.Move{Row: 2, Col: 2}, web.Move{Row: 4, Col: 4})
	f.mu.Lock()
	f.state = now // changed while the page is not told
	f.mu.Unlock()
	f.drop()
	p.WaitState("the state after reconnecting", func(s web.State) bool { return s.Version == now.Version })
	if got := p.Text("#board .cell.last"); got != "X" {
		t.Errorf("last move after reconnecting shows %q", got)
	}
	f.mu.Lock()
	hellos, sessions := f.hellos, len(f.sessions)
	f.mu.Unlock()
	if hellos != 2 || sessions != 1 {
		t.Errorf("%d hellos and %d logins, want 2 hellos on one session", hellos, sessions)
	}
}

// A session the server refuses shows the server's reason.
func TestRefusedSessionShowsWhy(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, game(3, 3))
	f.refuse["mallory"] = [2]string{"not_in_instance", "You are not in this activity."}
	p := b.Launch(f.srv.URL, sessionOf("mallory", false))
	p.WaitText("#notice", func(s string) bool { return s == "You are not in this activity." })
	var phase string
	p.Eval(`tttLive.phase`, &phase)
	if phase != "refused" {
		t.Errorf("phase %q after a refused session, want refused", phase)
	}
}

// screenshots is where to write the README's pictures: the repository's
// docs/ when TTT_SCREENSHOTS=1, else "" (none).
func screenshots() string {
	if os.Getenv("TTT_SCREENSHOTS") != "1" {
		return ""
	}
	return filepath.Join("..", "..", "docs")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// With no game in the channel the page shows the server's words and no
// board; when a game starts it appears.
func TestNoGameThenAGame(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, web.State{ChannelID: "900", Status: "No game here: start one with /ttt start.", Now: 1, Labels: labels})
	p := open(b, f, "alice", false)
	if got := p.Text("#status"); got != "No game here: start one with /ttt start." {
		t.Errorf("status %q", got)
	}
	if n := len(p.Rects("#board .cell")); n != 0 {
		t.Errorf("%d cells drawn with no game", n)
	}
	if r := p.Rects("#player-x"); r[0].W != 0 {
		t.Error("a player is shown with no game")
	}
	f.marks["alice"] = "X"
	f.push(game(4, 3))
	p.WaitState("the new game", func(s web.State) bool { return s.GameID != "" })
	if n := len(p.Rects("#board .cell")); n != 16 {
		t.Errorf("%d cells for a 4×4 game", n)
	}
}

// A session the server no longer accepts makes the page log in again (a
// new code, a new session) and carry on.
func TestExpiredSessionLogsInAgain(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, game(3, 3))
	f.answer = func(user string, m web.ClientMsg) []web.ServerMsg {
		return []web.ServerMsg{{Type: "error", Code: "session_expired", Message: "Your session has expired."}}
	}
	p := open(b, f, "alice", false)
	gate := make(chan struct{})
	f.mu.Lock()
	f.loginGate = gate // the next login waits, so the reason can be seen
	f.mu.Unlock()
	p.Tap(1, 1)
	f.next(t)
	p.WaitNotice("Your session has expired.")
	f.mu.Lock()
	f.answer = nil
	f.mu.Unlock()
	close(gate)
	Until := browsertest.Until[int]
	Until(p, "a second login", `tttLive.phase === 'live' ? 1 : 0`, func(v int) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return v == 1 && len(f.sessions) == 2 && f.hellos == 2
	})
	if n := p.Notice(); n != "" {
		t.Errorf("after logging in again the page still says %q", n)
	}

	// At its session's expiry the server ends an idle page's socket
	// (no tap): the page shows why and logs in again by itself.
	gate = make(chan struct{})
	f.mu.Lock()
	f.loginGate = gate
	f.mu.Unlock()
	f.end("alice", "session_expired", "Your session has expired. Signing you in again…")
	p.WaitNotice("Your session has expired. Signing you in again…")
	close(gate)
	Until(p, "a third login", `tttLive.phase === 'live' ? 1 : 0`, func(v int) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return v == 1 && len(f.sessions) == 3 && f.hellos == 3
	})
	if n := p.Notice(); n != "" {
		t.Errorf("after logging in again the page still says %q", n)
	}
}

// A user who left the activity has their socket ended with
// left_instance: the page shows why and stops, asking neither Discord
// nor the bot again.
func TestLeftInstanceStops(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, game(3, 3))
	p := open(b, f, "alice", false)
	f.end("alice", "left_instance", "You are no longer in this activity.")
	p.WaitNotice("You are no longer in this activity.")
	// Once its socket has closed (where a retry would be set going), the
	// page is still refused.
	browsertest.Until(p, "the socket to close", `tttLive.closed`, func(n int) bool { return n == 1 })
	var phase string
	if p.Eval(`tttLive.phase`, &phase); phase != "refused" {
		t.Errorf("after left_instance the page is in phase %q; want refused", phase)
	}
	var authorizes int
	p.Parent(`discordLog.filter(m => m[0] === 1 && m[1].cmd === 'AUTHORIZE').length`, &authorizes)
	f.mu.Lock()
	logins, hellos := len(f.sessions), f.hellos
	f.mu.Unlock()
	if authorizes != 1 || logins != 1 || hellos != 1 {
		t.Errorf("after left_instance: %d AUTHORIZE, %d logins, %d hellos; want 1 each", authorizes, logins, hellos)
	}
	if n := p.Notice(); n != "You are no longer in this activity." {
		t.Errorf("the page says %q", n)
	}
}

// waitFor waits until cond is true, checking every 10 ms, for at most
// browsertest.Timeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(browsertest.Timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", browsertest.Timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A user who declines Discord's authorization is not asked again and again:
// the page says what Discord said and stops, and asks the bot for nothing.
func TestDeclinedAuthorizationStops(t *testing.T) {
	b := browsertest.New(t)
	f := newFakeServer(t, game(3, 3))
	s := sessionOf("dave", false)
	s.Code = ""
	p := b.Launch(f.srv.URL, s)
	p.WaitText("#notice", func(s string) bool { return strings.Contains(s, "access_denied") })
	browsertest.Until(p, "the page to stop", `tttLive.phase`, func(ph string) bool { return ph == "refused" })
	var authorizes int
	p.Parent(`discordLog.filter(m => m[0] === 1 && m[1].cmd === 'AUTHORIZE').length`, &authorizes)
	f.mu.Lock()
	logins := len(f.sessions)
	f.mu.Unlock()
	if authorizes != 1 || logins != 0 {
		t.Errorf("%d AUTHORIZE and %d logins after a declined authorization, want 1 and 0", authorizes, logins)
	}
}
