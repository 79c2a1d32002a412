package web

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/tttbot/tttbot/i18n"
)

// Starting is what WEB_ADDR answers before the bot is ready (package main
// listens from the start, so that a taken port is a clear error at once):
// 503 with Retry-After, saying that the bot is starting in the language
// of the request (Accept-Language: inside Discord, the client's). A
// request of the API (POST /api/session, /ws) gets it in JSON as every
// refusal of the API, which the page shows while it tries again; a
// request of the page itself gets a small HTML page that says it and
// reloads itself a few seconds later (inside Discord, with the same launch
// parameters). catalog nil: i18n.New's.
func Starting(catalog *i18n.Catalog) (http.Handler, error) {
	if catalog == nil {
		c, err := i18n.New()
		if err != nil {
			return nil, err
		}
		catalog = c
	}
	return starting{catalog}, nil
}

type starting struct{ catalog *i18n.Catalog }

// startingRetry is the Retry-After, and the page's reload, in seconds.
const startingRetry = "5"

var startingPage = template.Must(template.New("starting").Parse(`<!doctype html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="` + startingRetry + `">
<title>{{.Message}}</title>
</head>
<body style="font-family: sans-serif; margin: 2rem; text-align: center">
<p>{{.Message}}</p>
</body>
</html>
`))

func (s starting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l := s.catalog.For(acceptLanguage(r))
	h := w.Header()
	h.Set("Retry-After", startingRetry)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	p := strings.TrimPrefix(r.URL.Path, "/.proxy")
	if strings.HasPrefix(p, "/api/") || p == "/ws" {
		writeJSON(w, http.StatusServiceUnavailable, apiError{Error: "starting", Message: text(l, "starting")})
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Nothing to load but this document (its one style attribute
	// allowed, no script).
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")
	w.WriteHeader(http.StatusServiceUnavailable)
	if r.Method == http.MethodHead {
		return
	}
	_ = startingPage.Execute(w, struct{ Lang, Message string }{l.Tag(), text(l, "starting")})
}
