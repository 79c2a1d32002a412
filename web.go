// The live board (package web) in the process: served on WEB_ADDR.

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/web"
	"github.com/tttbot/tttbot/web/page"
)

// liveBoard is the handler of WEB_ADDR: it listens from the start (a
// taken port is a clear error at once) and, until the bot is ready,
// answers that it is starting; then the web server answers.
type liveBoard struct {
	srv      atomic.Pointer[web.Server]
	catalog  *i18n.Catalog // the texts of both
	starting http.Handler
}

// newLiveBoard makes WEB_ADDR's handler, which says it is starting.
func newLiveBoard() (*liveBoard, error) {
	cat, err := i18n.New()
	if err != nil {
		return nil, err
	}
	starting, err := web.Starting(cat)
	if err != nil {
		return nil, err
	}
	return &liveBoard{catalog: cat, starting: starting}, nil
}

func (l *liveBoard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s := l.srv.Load(); s != nil {
		s.ServeHTTP(w, r)
		return
	}
	l.starting.ServeHTTP(w, r)
}

// start makes the web server of the bot b, with the session key kept in
// the store st, for the application appID, and serves it.
func (l *liveBoard) start(ctx context.Context, cfg config, b *bot.Bot, st any, appID string, log *slog.Logger) error {
	games, ok := webGames(b)
	if !ok {
		return errors.New("WEB_ADDR is set, but the bot has no live board")
	}
	key, err := webKey(ctx, st)
	if err != nil {
		return err
	}
	api := cfg.apiURL
	if api == "" {
		api = web.DefaultAPIURL
	}
	s, err := web.New(web.Config{
		Games:        games,
		Feed:         games,
		Key:          key,
		ClientID:     appID,
		ClientSecret: string(cfg.clientSecret),
		BotToken:     string(cfg.token),
		APIURL:       api,
		Page:         webPage(appID),
		Catalog:      l.catalog,
		Log:          log,
	})
	if err != nil {
		return err
	}
	l.srv.Store(s)
	return nil
}

// close closes the pages' sockets, telling them to come back.
func (l *liveBoard) close() {
	if s := l.srv.Load(); s != nil {
		s.Close()
	}
}

// liveGames is what the web server needs of the bot.
type liveGames interface {
	web.Games
	web.Feed
}

// The bot says what a failed action did (web.Failer): the page is told
// it, as chat is.
var _ web.Failer = (*bot.Live)(nil)

// webGames returns the bot's games and feed for the live board (a
// variable, so that a test of the wiring may give its own).
var webGames = func(b *bot.Bot) (liveGames, bool) { return b.Live(), true }

// webKey returns the live board's session key, which the store keeps
// (made once, shared by every replica on the database). The store is
// asked for a method WebKey(ctx) ([]byte, error).
var webKey = func(ctx context.Context, st any) ([]byte, error) {
	keeper, ok := st.(interface {
		WebKey(context.Context) ([]byte, error)
	})
	if !ok {
		return nil, errors.New("WEB_ADDR is set, but this build's store keeps no session key for the live board")
	}
	key, err := keeper.WebKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("the live board's session key: %w", err)
	}
	return key, nil
}

// webPage is the page and its assets, for the application appID.
var webPage = func(appID string) http.Handler { return page.Handler(page.Options{ClientID: appID}) }
