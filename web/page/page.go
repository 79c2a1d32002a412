// Package page is the live board's web page: the HTML, CSS and script that
// Discord opens as an Activity, embedded in the binary and served by
// Handler, which package web mounts at "/".
//
// # What is served
//
//   - "/" (and "/index.html"): index.html, a template filled once with the
//     app's client id and the hashed names of the assets; never cached,
//     so a new release is picked up at the next open.
//   - "/assets/<name>.<hash>.<ext>": app.js, app.css and sdk.js, named by
//     the SHA-256 of their content (computed at start), served
//     "immutable" for a year, gzipped when the browser accepts it.
//
// Everything else is 404. The page makes no request to anyone but its own
// origin (and Discord, through the SDK's postMessage): inside Discord every
// request goes through the app's proxy, {app_id}.discordsays.com, whose
// URL mapping "/" points at the bot, so every URL in the page is relative
// and the WebSocket is /ws on the same host; the players' avatars are
// paths under the mapping "/cdn" of Discord's CDN (package web's
// AvatarPath), and where an avatar does not load (outside Discord, where
// the bot answers them 404) the page shows the player's initial. A
// Content-Security-Policy on index.html says as much.
//
// # What the page does
//
// app.js creates the SDK's DiscordSDK with the client id, waits for
// ready(), asks authorize() for an OAuth2 code (scope identify), and sends
// it with sdk.instanceId to POST /api/session. The server answers with a
// session (a bearer token, never a cookie) and an access token, which the
// page gives to authenticate(). Then it opens /ws, sends hello with the
// session, and draws every State the server sends (package web's
// protocol.go). A tap on a cell sends a move with the version the page saw;
// Resign, Offer draw, Accept and Decline draw, and Rematch send their
// frames. A refusal (result, ok false) or an error shows its message. When
// the socket closes the page reconnects with backoff and, since hello
// always brings the whole state, shows the current game; when the session
// is refused or has expired (the server ends the socket at its expiry,
// session_expired) it shows why and logs in again first; when the server
// says the user has left the activity (left_instance) it shows why and
// stops.
//
// The page has no words of its own: every text comes from the server in
// the viewer's language: State.status, the refusals, and State.labels, of
// which the page uses these keys: resign, offer_draw, accept_draw,
// decline_draw, rematch (button captions), moves (the move list's title),
// last_move (before the last move) and reconnecting (shown while the
// socket is down). Before the first state it shows "…".
//
// # The SDK
//
// assets/sdk.js is Discord's @discord/embedded-app-sdk, at the version
// pinned by build/package-lock.json, bundled and minified by esbuild's Go
// API (build/gen.go, a module of its own so esbuild stays out of the bot's
// go.mod): `go generate ./web/page/` rebuilds it, with Node's npm. The
// output is committed, so `go run .` needs no Node. The licenses of the SDK
// and of the libraries it carries inside it are in THIRD_PARTY_LICENSES.txt
// and, as a comment, at the end of sdk.js, so every copy served carries
// them.
//
// # Tests
//
// The page is tested in headless Chromium (package internal/browsertest),
// iframed under a test page that plays Discord's side of the SDK, against a
// small server in the tests (fake_test.go) that speaks package web's
// protocol: every board size, the 15×15 board on a 360×640 phone with
// cells of at least 20 px, taps and buttons, refusals, reconnects, refused
// and expired sessions, and no request off the page's origin nor any CSP
// violation. TTT_SCREENSHOTS=1 makes two of them write the README's
// pictures to docs/.
package page

//go:generate sh -c "cd build && npm ci --ignore-scripts --no-audit --no-fund && go run ."

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed index.html assets
var files embed.FS

// Options configure the page.
type Options struct {
	// ClientID is the Discord application's id, which the SDK needs
	// (DiscordSDK(clientId), authorize's client_id).
	ClientID string
}

// CSP is the Content-Security-Policy of index.html: scripts, styles,
// images and connections only to the page's own origin (which, inside
// Discord, is the app's proxy: avatars come through its mapping of
// Discord's CDN, package web's AvatarPath), and data: images.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"

// asset is one file of assets/, with its hashed name.
type asset struct {
	name  string // e.g. app.3f2a1b9c0d.js
	ctype string
	raw   []byte
	gz    []byte // nil when gzip does not make it smaller
}

// Handler serves the page: index.html at "/" and the hashed assets under
// "/assets/". It builds everything once; it panics only if the embedded
// files are broken, which the package's tests rule out.
func Handler(o Options) http.Handler {
	h, err := newHandler(o)
	if err != nil {
		panic(err)
	}
	return h
}

type handler struct {
	index  []byte
	etag   string
	assets map[string]*asset // by hashed name
}

func newHandler(o Options) (*handler, error) {
	h := &handler{assets: map[string]*asset{}}
	byName := map[string]string{} // app.js → app.<hash>.js
	entries, err := fs.ReadDir(files, "assets")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		raw, err := files.ReadFile("assets/" + e.Name())
		if err != nil {
			return nil, err
		}
		a := &asset{name: hashedName(e.Name(), raw), ctype: contentType(e.Name()), raw: raw}
		if z := gzipped(raw); len(z) < len(raw) {
			a.gz = z
		}
		h.assets[a.name] = a
		byName[e.Name()] = a.name
	}
	src, err := files.ReadFile("index.html")
	if err != nil {
		return nil, err
	}
	t, err := template.New("index").Option("missingkey=error").Funcs(template.FuncMap{
		"asset": func(name string) (string, error) {
			hashed, ok := byName[name]
			if !ok {
				return "", fmt.Errorf("page: no asset %q", name)
			}
			// Relative, so it works behind any URL mapping.
			return "assets/" + hashed, nil
		},
	}).Parse(string(src))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ ClientID, Lang string }{o.ClientID, "en"}); err != nil {
		return nil, err
	}
	h.index = b.Bytes()
	sum := sha256.Sum256(h.index)
	h.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
	return h, nil
}

// hashedName puts the first 10 hex digits of the content's SHA-256 before
// the extension: app.js → app.3f2a1b9c0d.js.
func hashedName(name string, content []byte) string {
	sum := sha256.Sum256(content)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:5]) + ext
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	}
	return "application/octet-stream"
}

func gzipped(raw []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(raw)
	w.Close()
	return b.Bytes()
}

// Asset is a file of the page as served: its path under the handler and
// its size, raw and gzipped.
type Asset struct {
	Path      string
	Raw, Gzip int
}

// Assets lists the page's script and style files as Handler serves them.
func Assets() ([]Asset, error) {
	h, err := newHandler(Options{})
	if err != nil {
		return nil, err
	}
	var out []Asset
	for _, a := range h.assets {
		gz := len(a.gz)
		if a.gz == nil {
			gz = len(gzipped(a.raw))
		}
		out = append(out, Asset{Path: "/assets/" + a.name, Raw: len(a.raw), Gzip: gz})
	}
	return out, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	switch p := r.URL.Path; {
	case p == "/" || p == "/index.html":
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Cache-Control", "no-cache")
		hd.Set("Content-Security-Policy", CSP)
		hd.Set("ETag", h.etag)
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(h.index))
	case strings.HasPrefix(p, "/assets/"):
		a := h.assets[strings.TrimPrefix(p, "/assets/")]
		if a == nil {
			http.NotFound(w, r)
			return
		}
		hd.Set("Content-Type", a.ctype)
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
		hd.Add("Vary", "Accept-Encoding")
		body := a.raw
		if a.gz != nil && acceptsGzip(r) {
			hd.Set("Content-Encoding", "gzip")
			body = a.gz
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	default:
		http.NotFound(w, r)
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			continue
		}
		params = strings.ReplaceAll(params, " ", "")
		q, weighted := strings.CutPrefix(params, "q=")
		return !weighted || strings.Trim(q, "0.") != "" // q=0 refuses it
	}
	return false
}
