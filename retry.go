package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// startBackoff is how long the bot waits after each failed try to reach
// Discord at start before the next: 1+2+4+8+16+30+30 s, so it gives up
// after eight tries over about a minute and a half. A container restarted
// by Docker (--restart unless-stopped) then tries again.
var startBackoff = []time.Duration{
	1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
	16 * time.Second, 30 * time.Second, 30 * time.Second,
}

// sleeper waits d, or less if ctx ends first (then it returns ctx's
// error). Tests pass one that does not wait.
type sleeper func(ctx context.Context, d time.Duration) error

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryStart calls try until it succeeds, fails for a reason that trying
// again cannot mend (see transient), ctx ends, or startBackoff runs out;
// each failure that will be tried again is one log line. what says what
// try does, for those lines.
func retryStart(ctx context.Context, wait sleeper, log *slog.Logger, what string, try func() error) error {
	var waited time.Duration
	for n := 1; ; n++ {
		err := try()
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
		if n > len(startBackoff) {
			return fmt.Errorf("%w (gave up after %d tries over %s)", err, n, waited.Round(time.Second))
		}
		d := startBackoff[n-1]
		log.Warn("cannot "+what+"; trying again", "try", n, "of", len(startBackoff)+1, "in", d, "err", err)
		if err := wait(ctx, d); err != nil {
			return err
		}
		waited += d
	}
}

// transient says whether err may go away by itself: the network failed
// (no answer, a refused or dropped connection, a timeout) or Discord
// answered with a server error or a rate limit. A refused token, a bad
// shard setting or any other answer is final.
func transient(err error) bool {
	var rerr *discordgo.RESTError
	if errors.As(err, &rerr) && rerr.Response != nil {
		code := rerr.Response.StatusCode
		return code >= 500 || code == 429
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return false // the gateway's close codes name the problem: 4004, 4010, …
	}
	var uerr *url.Error
	var nerr net.Error
	return errors.As(err, &uerr) || errors.As(err, &nerr) || errors.Is(err, websocket.ErrBadHandshake) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
