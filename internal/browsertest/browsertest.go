// Package browsertest opens the live board's page in a real browser, as
// Discord would: headless Chromium, driven from Go through the DevTools
// protocol (github.com/chromedp/chromedp), with the page in an iframe
// under a parent page that plays Discord's side of the Embedded App SDK.
//
// # Discord's side
//
// Inside Discord the page is an iframe whose parent is Discord's client; the
// SDK in the page talks to it with postMessage: the page sends HANDSHAKE
// [0, {v, encoding, client_id, frame_id, sdk_version}], the parent answers
// with the READY event [1, {cmd: "DISPATCH", evt: "READY", data}], and then
// each command [1, {cmd, args, nonce}] gets a reply
// [1, {cmd, evt: null, nonce, data}] (or evt "ERROR" with {code, message}).
// The parent here (parent.html) does exactly that, for the commands the
// page uses: AUTHORIZE answers with the code the test chose for the user,
// AUTHENTICATE with the user, SUBSCRIBE and CAPTURE_LOG with their empty
// answers; any other command gets Discord's "invalid command" error. It
// keeps every message it got, for tests that check what the page asked.
// The page under test is the real page with the real SDK: nothing in it
// knows it is being tested.
//
// The parent must be on the page's origin (the SDK accepts messages only
// from its own origin and Discord's), so the harness does not serve it: the
// browser's request for <base>/.browsertest/parent.html is answered inside
// the browser (the DevTools Fetch domain). So Open works against any base
// URL: a test's own server, or the real binary.
//
// # Without a browser
//
// Tests that need a browser call New, which skips the test when no
// Chromium is found (Debian's chromium, or TTT_CHROMIUM naming one), unless
// TTT_TEST_BROWSER=1, which CI sets, where it fails instead.
package browsertest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tttbot/tttbot/web"
)

//go:embed parent.html
var parentHTML []byte

// ParentPath is where the parent page appears on the page's origin.
const ParentPath = "/.browsertest/parent.html"

// Timeout bounds each wait of a Page: long enough for a loaded machine,
// short enough that a page that never shows what a test waits for fails.
var Timeout = 30 * time.Second

// Browser is one headless Chromium for one test.
type Browser struct {
	t   testing.TB
	ctx context.Context // the first tab's; new tabs are its children
}

// ExecPath finds Chromium: TTT_CHROMIUM, else chromium, chromium-browser,
// google-chrome on PATH. It returns "" when there is none.
func ExecPath() string {
	if p := os.Getenv("TTT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Required says whether a browser test must run (TTT_TEST_BROWSER=1, as CI
// sets) rather than skip when there is no browser.
func Required() bool { return os.Getenv("TTT_TEST_BROWSER") == "1" }

// New starts a headless Chromium for t, stopped when t ends; it skips t
// when there is no Chromium, or fails it when Required.
func New(t testing.TB) *Browser {
	t.Helper()
	path := ExecPath()
	if path == "" {
		if Required() {
			t.Fatal("TTT_TEST_BROWSER=1 but no Chromium found: apt-get install chromium, or set TTT_CHROMIUM")
		}
		t.Skip("no Chromium found (apt-get install chromium, or set TTT_CHROMIUM): browser tests skipped")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root here and in CI
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("font-render-hinting", "none"),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// Start the browser now, on a context without a deadline (a deadline
	// on the first run would stop the whole browser).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	return &Browser{t: t, ctx: ctx}
}

// Session is who opens the page and how, as Discord would launch it.
type Session struct {
	ClientID   string // the app's id (the handshake must carry it)
	InstanceID string // the activity instance (query param instance_id)
	ChannelID  string
	GuildID    string // "" in a DM
	UserID     string
	Username   string
	// Code is what AUTHORIZE answers: the OAuth2 code the server exchanges.
	// Empty, AUTHORIZE fails as when the user declines Discord's dialog.
	Code string
	// AccessTokenCheck, when set, is the access token AUTHENTICATE must be
	// given (else it answers an error, as Discord would).
	AccessTokenCheck string
	// Phone opens the page at 360×640 CSS px with touch, as a phone held
	// upright; else in a 1280×800 desktop window.
	Phone bool
	// Width and Height override the viewport.
	Width, Height int64
}

// Page is the page of one user in one tab.
type Page struct {
	t    testing.TB
	ctx  context.Context
	base string
	s    Session

	mu         sync.Mutex
	requests   []string // every URL the tab asked for
	logs       []string // exceptions and console lines, shown when the test fails
	exceptions []string // uncaught JavaScript exceptions
	security   []string // the browser's security messages: CSP violations
}

// Open opens the page at baseURL (the origin serving the page at "/") in
// a new tab, inside the parent that plays Discord, and waits until the page
// has drawn its first state.
func (b *Browser) Open(baseURL string, s Session) *Page {
	b.t.Helper()
	p := b.Launch(baseURL, s)
	p.WaitState("the first state", func(web.State) bool { return true })
	return p
}

// Launch is Open without the wait: for a page that is not to get a state
// (a refused session, say).
func (b *Browser) Launch(baseURL string, s Session) *Page {
	t := b.t
	t.Helper()
	base := strings.TrimRight(baseURL, "/")
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	p := &Page{t: t, ctx: ctx, base: base, s: s}

	if err := chromedp.Listen(ctx, p.event); err != nil {
		t.Fatalf("listening to the tab: %v", err)
	}
	w, h := s.Width, s.Height
	var vopts []chromedp.EmulateViewportOption
	if s.Phone {
		if w == 0 {
			w, h = 360, 640
		}
		vopts = append(vopts, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	} else if w == 0 {
		w, h = 1280, 800
	}
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			// A test never reaches Discord: should the page ask Discord's
			// CDN itself (it must not: avatars come through the proxy's
			// mapping, package web's AvatarPath), the request fails, and
			// OffOrigin names it.
			if _, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{
				{URLPattern: "https://cdn.discordapp.com/*", Block: true},
				{URLPattern: "https://media.discordapp.net/*", Block: true},
			}}); err != nil {
				return err
			}
			if _, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{
				Patterns: []*fetch.RequestPattern{{URLPattern: "*" + ParentPath + "*"}},
			})
			return err
		}),
		chromedp.EmulateViewport(w, h, vopts...),
		chromedp.Navigate(base+ParentPath+"?"+p.query().Encode()),
	)
	if err != nil {
		t.Fatalf("opening %s: %v", base, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			p.mu.Lock()
			defer p.mu.Unlock()
			for _, l := range p.logs {
				t.Logf("page of %s: %s", s.Username, l)
			}
		}
	})
	return p
}

// query is what the parent needs: the page's launch parameters, which it
// passes on to the iframe as Discord does, and the test's answers.
func (p *Page) query() url.Values {
	s := p.s
	platform := "desktop"
	if s.Phone {
		platform = "mobile"
	}
	q := url.Values{}
	q.Set("frame_id", "frame-"+s.UserID)
	q.Set("instance_id", s.InstanceID)
	q.Set("platform", platform)
	q.Set("channel_id", s.ChannelID)
	if s.GuildID != "" {
		q.Set("guild_id", s.GuildID)
	}
	q.Set("location_id", "gc-"+s.GuildID+"-"+s.ChannelID)
	// For the parent only (it removes them from the iframe's URL):
	q.Set("bt_client_id", s.ClientID)
	q.Set("bt_user_id", s.UserID)
	q.Set("bt_username", s.Username)
	q.Set("bt_code", s.Code)
	q.Set("bt_access_token", s.AccessTokenCheck)
	return q
}

// event runs on the tab's reader: it answers the parent page's request and
// keeps what the page asked for and what went wrong in it.
func (p *Page) event(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		id := ev.RequestID
		go func() {
			_, err := chromedp.Call(p.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID:    id,
				ResponseCode: 200,
				ResponseHeaders: []*fetch.HeaderEntry{
					{Name: "Content-Type", Value: "text/html; charset=utf-8"},
					{Name: "Cache-Control", Value: "no-store"},
				},
				Body: parentHTML,
			})
			if err != nil && p.ctx.Err() == nil {
				p.log("fulfilling the parent page: " + err.Error())
			}
		}()
	case *network.EventRequestWillBeSent:
		p.mu.Lock()
		p.requests = append(p.requests, ev.Request.URL)
		p.mu.Unlock()
	case *network.EventWebSocketCreated:
		p.mu.Lock()
		p.requests = append(p.requests, ev.URL)
		p.mu.Unlock()
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg = d.Exception.Description
		}
		p.log("exception: " + msg)
		p.mu.Lock()
		p.exceptions = append(p.exceptions, msg)
		p.mu.Unlock()
	case *cdplog.EventEntryAdded:
		e := ev.Entry
		p.log("browser " + string(e.Source) + " " + string(e.Level) + ": " + e.Text)
		if e.Source == cdplog.EntrySourceSecurity {
			p.mu.Lock()
			p.security = append(p.security, e.Text)
			p.mu.Unlock()
		}
	case *runtime.EventConsoleAPICalled:
		var parts []string
		for _, a := range ev.Args {
			if a.Value != nil {
				parts = append(parts, string(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		p.log("console." + string(ev.Type) + ": " + strings.Join(parts, " "))
	}
}

func (p *Page) log(s string) {
	p.mu.Lock()
	p.logs = append(p.logs, s)
	p.mu.Unlock()
}

// Problems are the uncaught exceptions of the tab and its security
// messages (a Content-Security-Policy violation: a request or script the
// page's policy forbids), so far.
func (p *Page) Problems() (exceptions, security []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.exceptions...), append([]string(nil), p.security...)
}

// Requests is every URL the tab has asked for so far (documents, assets,
// fetches, WebSockets), the parent's included.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// OffOrigin is every URL the tab has asked for so far that is not on the
// page's origin (the base URL Open was given), data: URLs aside: inside
// Discord each would be a third-party request, which Discord's proxy
// blocks.
func (p *Page) OffOrigin() []string {
	base, err := url.Parse(p.base)
	if err != nil {
		p.t.Fatalf("the page's base %q: %v", p.base, err)
	}
	var off []string
	for _, r := range p.Requests() {
		u, err := url.Parse(r)
		if err == nil && u.Scheme == "data" {
			continue
		}
		if err != nil || u.Host != base.Host {
			off = append(off, r)
		}
	}
	return off
}

// Eval evaluates a JavaScript expression in the page under test (inside the
// iframe) and decodes its JSON value into out (nil to ignore it).
func (p *Page) Eval(expr string, out any) error {
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	js := `(() => { const w = document.querySelector('iframe').contentWindow; ` +
		`return JSON.stringify((function () { with (w) { return (` + expr + `); } }).call(w) ?? null); })()`
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal([]byte(raw), out)
}

// Parent evaluates an expression in the parent page (Discord's side).
func (p *Page) Parent(expr string, out any) error {
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify((`+expr+`) ?? null)`))
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal([]byte(raw), out)
}

// Until waits until cond, given the value of the JavaScript expression in
// the page (decoded from JSON into T), is true, reading it every 20 ms: a
// wait for a condition, never a sleep that hopes. It fails the test after
// Timeout, saying what it waited for and what it saw last.
func Until[T any](p *Page, what, expr string, cond func(T) bool) T {
	p.t.Helper()
	deadline := time.Now().Add(Timeout)
	var last T
	var lastErr error
	for {
		var v T
		lastErr = p.Eval(expr, &v)
		if lastErr == nil {
			last = v
			if cond(v) {
				return v
			}
		}
		if time.Now().After(deadline) {
			var notice string
			_ = p.Eval(`document.getElementById('notice') && document.getElementById('notice').textContent`, &notice)
			p.t.Fatalf("page of %s: waited %v for %s; last value %+v (err %v); notice %q",
				p.s.Username, Timeout, what, last, lastErr, notice)
		}
		select {
		case <-p.ctx.Done():
			p.t.Fatalf("page of %s: tab closed while waiting for %s", p.s.Username, what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// WaitState waits until the page has drawn a State for which fn is true,
// and returns it.
func (p *Page) WaitState(what string, fn func(web.State) bool) web.State {
	p.t.Helper()
	st := Until(p, what, `tttLive.phase === 'live' ? tttLive.state : null`, func(s *web.State) bool {
		return s != nil && fn(*s)
	})
	return *st
}

// Text is the text of the element matched by a CSS selector in the page
// ("" when there is none).
func (p *Page) Text(selector string) string {
	p.t.Helper()
	var s string
	if err := p.Eval(`(document.querySelector(`+jsString(selector)+`) || {}).textContent || ''`, &s); err != nil {
		p.t.Fatalf("reading %s: %v", selector, err)
	}
	return s
}

// WaitText waits until the element matched by selector is shown and its
// text satisfies fn, and returns the text.
func (p *Page) WaitText(selector string, fn func(string) bool) string {
	p.t.Helper()
	expr := `(() => { const e = document.querySelector(` + jsString(selector) + `); ` +
		`return e && !e.hidden && e.getClientRects().length > 0 ? e.textContent : null; })()`
	s := Until(p, "the text of "+selector, expr, func(s *string) bool { return s != nil && fn(*s) })
	return *s
}

// Notice is the refusal or error the page shows now, "" when none.
func (p *Page) Notice() string {
	p.t.Helper()
	var s string
	if err := p.Eval(`(() => { const n = document.getElementById('notice'); return n && !n.hidden ? n.textContent : ''; })()`, &s); err != nil {
		p.t.Fatalf("reading the notice: %v", err)
	}
	return s
}

// WaitNotice waits until the page shows the notice text.
func (p *Page) WaitNotice(text string) {
	p.t.Helper()
	p.WaitText("#notice", func(s string) bool { return s == text })
}

// Close closes the tab, as a user who leaves the Activity.
func (p *Page) Close() {
	p.t.Helper()
	if err := chromedp.Cancel(p.ctx); err != nil && p.ctx.Err() == nil {
		p.t.Errorf("closing the tab: %v", err)
	}
}

// Rect is an element's box in CSS px of the viewport.
type Rect struct{ X, Y, W, H float64 }

// Rects are the boxes of all elements matched by selector, in the
// viewport's coordinates (the iframe's offset added).
func (p *Page) Rects(selector string) []Rect {
	p.t.Helper()
	var rs []Rect
	expr := `Array.from(document.querySelectorAll(` + jsString(selector) + `)).map(e => { ` +
		`const f = frameElement.getBoundingClientRect(), r = e.getBoundingClientRect(); ` +
		`return {X: r.x + f.x, Y: r.y + f.y, W: r.width, H: r.height}; })`
	if err := p.Eval(expr, &rs); err != nil {
		p.t.Fatalf("measuring %s: %v", selector, err)
	}
	return rs
}

// Tap taps the cell at row, col (1-based) as a person would: a touch on
// a phone, a mouse click on a desktop, at the middle of the cell.
func (p *Page) Tap(row, col int) {
	p.t.Helper()
	p.TapSelector(fmt.Sprintf(`#board .cell[data-row="%d"][data-col="%d"]`, row, col))
}

// Click taps a button of the page by its id (resign, offer_draw,
// accept_draw, decline_draw, rematch), which must be shown.
func (p *Page) Click(id string) {
	p.t.Helper()
	p.WaitText("#"+id, func(string) bool { return true })
	p.TapSelector("#" + id)
}

// TapSelector taps the middle of the first element matched by selector.
func (p *Page) TapSelector(selector string) {
	p.t.Helper()
	rs := p.Rects(selector)
	if len(rs) == 0 {
		p.t.Fatalf("page of %s: nothing to tap at %s", p.s.Username, selector)
	}
	x, y := rs[0].X+rs[0].W/2, rs[0].Y+rs[0].H/2
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	var err error
	if p.s.Phone {
		err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{
				Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}},
			}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{
				Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{},
			})
			return err
		}))
	} else {
		err = chromedp.Do(ctx, chromedp.MouseClickXY(x, y))
	}
	if err != nil {
		p.t.Fatalf("tapping %s: %v", selector, err)
	}
}

// Screenshot writes a PNG of the tab's viewport to path.
func (p *Page) Screenshot(path string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// Commands is what the page sent to Discord's side (the parent), in order:
// each as [opcode, payload].
func (p *Page) Commands() []json.RawMessage {
	p.t.Helper()
	var out []json.RawMessage
	if err := p.Parent(`window.discordLog`, &out); err != nil {
		p.t.Fatalf("reading the parent's log: %v", err)
	}
	return out
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
