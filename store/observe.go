package store

import (
	"errors"
	"time"
)

// An Observer hears of each call a store answers for the bot: the call's
// name as the operator's metrics label it ("current", "save",
// "open_challenge"…), how long it took, and how it failed. A lost race,
// ErrConflict, or a limit reached, ErrTooMany, is not a failure: the
// Observer gets nil. It is called on
// the caller's goroutine after each call, so it must be cheap and safe for
// concurrent use.
//
// The calls observed are those of the games, challenges, settings, stats
// and command guilds; Game, CountRunning, Ping and Close are not.
type Observer func(op string, took time.Duration, err error)

// An Option changes how a store is opened.
type Option func(*options)

type options struct {
	observe Observer
}

// Observe makes the store tell o of each call it answers.
func Observe(o Observer) Option {
	return func(opts *options) { opts.observe = o }
}

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// done tells o of the call op, begun at start, that ended with *err. It
// is deferred first thing in each observed method, so that it times the
// whole call, its checks and retries included.
func (o Observer) done(op string, start time.Time, err *error) {
	if o == nil {
		return
	}
	e := *err
	if errors.Is(e, ErrConflict) || errors.Is(e, ErrTooMany) {
		e = nil
	}
	o(op, time.Since(start), e)
}
