package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// Reminders, with the clock moved by hand and the reminder timer's
// callback called as the timer would (remindTurn): the player to move
// hears once, at half time, and the reminder goes once the turn is over.

// remindAfter moves clk to d before the half of m's turn and calls what
// the reminder timer calls when it fires; it waits for the messages that
// follows.
func remindAfter(t *testing.T, b *Bot, clk *clock, m *match, d time.Duration) {
	t.Helper()
	at, ok := remindAt(m)
	if !ok {
		t.Fatalf("the turn of %s has no reminder", m.ID)
	}
	clk.set(at.Add(d))
	b.tables.remindTurn(m.ChannelID)
	b.run.bg.Wait()
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// followups returns what rec sent as follow-ups.
func followups(rec *recorder) ([]*discordgo.WebhookParams, []string, []string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.followups), slices.Clone(rec.followupRefs), slices.Clone(rec.followupDeletes)
}

// A game of 5-minute turns: nothing before half time; at half time, one
// follow-up through the board's token that mentions Mason alone and says
// when his time runs out; not again; kept as the turn's ping, and deleted
// once he moved. Bob's turn gets its own.
func TestReminderOnceAtHalfTime(t *testing.T) {
	b, rec, clk := corrBot(t, 0) // the bot's default: 5 minutes
	m := userChallengeAccepted(t, b, rec)
	remindAfter(t, b, clk, m, -time.Second)
	if sent, _, _ := followups(rec); len(sent) != 0 {
		t.Fatalf("%d reminders a second before half time; want none", len(sent))
	}
	remindAfter(t, b, clk, m, 0)
	remindAfter(t, b, clk, m, time.Minute) // the timer of another process, say
	sent, refs, _ := followups(rec)
	if len(sent) != 1 {
		t.Fatalf("%d reminders at half time; want 1", len(sent))
	}
	want := english().T("move.reminder", map[string]any{"Player": mention(mason), "Deadline": m.Deadline.Unix()})
	if sent[0].Content != want || refs[0] != m.Board.Token {
		t.Errorf("reminder %q through token %q; want %q through the board's token %q", sent[0].Content, refs[0], want, m.Board.Token)
	}
	if am := sent[0].AllowedMentions; am == nil || !slices.Equal(am.Users, []string{mason}) || len(am.Parse) != 0 || len(am.Roles) != 0 {
		t.Errorf("the reminder allows mentions %+v; want Mason alone", sent[0].AllowedMentions)
	}
	if got := current(t, b); got.ping != followupPing+"followup-1" || got.reminded != 1 {
		t.Errorf("the game keeps ping %q, reminded %d; want the reminder, followup-1, and turn 1", got.ping, got.reminded)
	}
	if len(rec.sent) != 0 {
		t.Errorf("%d messages sent to the channel; want none in a short game", len(rec.sent))
	}

	b.serveIC(context.Background(), userClick(t, mason, cell(m, 1, 1)))
	b.run.bg.Wait()
	if _, _, deleted := followups(rec); !slices.Equal(deleted, []string{m.Board.Token + "/followup-1"}) {
		t.Errorf("deleted follow-ups %v; want Mason's reminder, through the token it was sent with", deleted)
	}
	next := current(t, b)
	if next.ping != "" || next.reminded != 1 {
		t.Errorf("after the move the game keeps ping %q, reminded %d; want none, and turn 1", next.ping, next.reminded)
	}
	remindAfter(t, b, clk, next, 0)
	if sent, refs, _ := followups(rec); len(sent) != 2 || refs[1] != next.Board.Token ||
		sent[1].AllowedMentions == nil || !slices.Equal(sent[1].AllowedMentions.Users, []string{bob}) {
		t.Errorf("%d reminders; want bob's too, through his turn's board", len(sent))
	}
}

// Whatever ends the turn deletes its reminder: a move, and each way the
// game can end.
func TestReminderDeletedWhenTheGameEnds(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  func(t *testing.T, b *Bot, clk *clock, m *match)
	}{
		{"move", func(t *testing.T, b *Bot, _ *clock, m *match) {
			b.serveIC(context.Background(), userClick(t, mason, cell(m, 2, 2)))
		}},
		{"resign", func(t *testing.T, b *Bot, _ *clock, _ *match) {
			b.serveIC(context.Background(), install(as(slashPayload(t, "resign", nil, nil), mason), false))
		}},
		{"resign by the other player", func(t *testing.T, b *Bot, _ *clock, _ *match) {
			b.serveIC(context.Background(), install(as(slashPayload(t, "resign", nil, nil), bob), false))
		}},
		{"stop", func(t *testing.T, b *Bot, _ *clock, _ *match) {
			b.serveIC(context.Background(), install(as(slashPayload(t, "stop", nil, nil), "77"), false))
		}},
		{"agreed draw", func(t *testing.T, b *Bot, _ *clock, _ *match) {
			b.serveIC(context.Background(), install(as(slashPayload(t, "draw", nil, nil), bob), false))
			if current(t, b).ping == "" {
				t.Fatal("the offer of a draw deleted the reminder; the turn goes on")
			}
			var yes string
			for _, c := range b.dc.(*recorder).last(t).Data.Components[0].(discordgo.ActionsRow).Components {
				if id := c.(discordgo.Button).CustomID; strings.HasPrefix(id, actDrawYes+"/") {
					yes = id
				}
			}
			b.serveIC(context.Background(), install(as(buttonPayload(t, yes), mason), false))
		}},
		{"timeout", func(t *testing.T, b *Bot, clk *clock, m *match) {
			clk.set(m.Deadline)
			b.tables.expireTurn(fixtureChannel)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, clk := corrBot(t, 0)
			m := userChallengeAccepted(t, b, rec)
			remindAfter(t, b, clk, m, 0)
			if sent, _, _ := followups(rec); len(sent) != 1 {
				t.Fatalf("%d reminders; want 1", len(sent))
			}
			tt.end(t, b, clk, m)
			b.run.bg.Wait()
			if got := current(t, b); tt.name != "move" && !got.Over() {
				t.Fatalf("the game runs on after %s", tt.name)
			}
			if _, _, deleted := followups(rec); !slices.Equal(deleted, []string{m.Board.Token + "/followup-1"}) {
				t.Errorf("deleted follow-ups %v; want the reminder", deleted)
			}
			if got := current(t, b).ping; got != "" {
				t.Errorf("the game keeps ping %q; want none", got)
			}
		})
	}
}

// No reminder where it has no use: turns under a minute, the computer's
// turn (and a game against it, whose player moves within the turn the
// board showed), a server that turned reminders off.
func TestReminderNotSent(t *testing.T) {
	t.Run("turns under a minute", func(t *testing.T) {
		b, rec, _ := corrBot(t, 59*time.Second)
		m := userChallengeAccepted(t, b, rec)
		if _, ok := remindAt(m); ok {
			t.Error("a turn of 59 seconds has a reminder")
		}
		b.tables.remindTurn(fixtureChannel)
		b.run.bg.Wait()
		if sent, _, _ := followups(rec); len(sent) != 0 {
			t.Errorf("%d reminders; want none", len(sent))
		}
	})
	t.Run("a minute", func(t *testing.T) {
		b, rec, clk := corrBot(t, time.Minute)
		m := userChallengeAccepted(t, b, rec)
		remindAfter(t, b, clk, m, 0)
		if sent, _, _ := followups(rec); len(sent) != 1 {
			t.Errorf("%d reminders in a turn of a minute; want 1", len(sent))
		}
	})
	t.Run("the computer", func(t *testing.T) {
		b, rec, clk := corrBot(t, 0)
		b.serveIC(context.Background(), install(as(slashPayload(t, "start", nil, nil), mason), false))
		m := current(t, b)
		if m.Computer == 0 || m.Turn() == m.Computer {
			t.Fatalf("game against the computer %+v; want Mason to move", m.Match)
		}
		// Mason's turn is reminded like any player's...
		remindAfter(t, b, clk, m, 0)
		// ...but never the computer's, which has no deadline to remind of.
		bot := m.Clone()
		if _, err := bot.Judge.Play(0, 0, bot.Turn()); err != nil {
			t.Fatal(err)
		}
		if bot.Turn() != bot.Computer {
			t.Fatal("the computer is not to move")
		}
		bot.Deadline = clk.now().Add(time.Hour) // even with one
		if at, ok := remindAt(bot); ok {
			t.Errorf("the computer's turn is reminded at %v", at)
		}
		if sent, _, _ := followups(rec); len(sent) != 1 || !slices.Equal(sent[0].AllowedMentions.Users, []string{mason}) {
			t.Errorf("%d reminders; want Mason's alone", len(sent))
		}
	})
	t.Run("found too late", func(t *testing.T) {
		// The bot was down at half time and is back with 14 seconds
		// left: too late to be of use.
		b, rec, clk := corrBot(t, 0)
		m := userChallengeAccepted(t, b, rec)
		clk.set(m.Deadline.Add(-remindLeast + time.Second))
		b.tables.remindTurn(fixtureChannel)
		b.run.bg.Wait()
		if sent, _, _ := followups(rec); len(sent) != 0 {
			t.Errorf("%d reminders %v before the deadline; want none", len(sent), remindLeast-time.Second)
		}
		clk.set(m.Deadline.Add(-remindLeast))
		b.tables.remindTurn(fixtureChannel)
		b.run.bg.Wait()
		if sent, _, _ := followups(rec); len(sent) != 0 {
			t.Errorf("%d reminders once given up; want none", len(sent))
		}
	})
	t.Run("found late", func(t *testing.T) {
		b, rec, clk := corrBot(t, 0)
		m := userChallengeAccepted(t, b, rec)
		clk.set(m.Deadline.Add(-remindLeast))
		b.tables.remindTurn(fixtureChannel)
		b.run.bg.Wait()
		if sent, _, _ := followups(rec); len(sent) != 1 {
			t.Errorf("%d reminders %v before the deadline; want 1", len(sent), remindLeast)
		}
	})
	t.Run("reminders off", func(t *testing.T) {
		b, rec, clk := newClockedBot(t)
		if err := b.stores.Settings.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, NoReminders: true}); err != nil {
			t.Fatal(err)
		}
		m := userChallengeAccepted(t, b, rec)
		remindAfter(t, b, clk, m, 0)
		remindAfter(t, b, clk, m, time.Second)
		if sent, _, _ := followups(rec); len(sent) != 0 {
			t.Errorf("%d reminders; want none where the server turned them off", len(sent))
		}
		if got := current(t, b); got.reminded != 0 || got.Version != m.Version {
			t.Errorf("the game was saved (version %d, reminded %d); want it untouched at version %d", got.Version, got.reminded, m.Version)
		}
	})
}

// Two processes on one store (replicas) remind a turn once: the one whose
// save claims it first; the other finds it reminded, or, when it read the
// game before that save, loses the race and sends nothing.
func TestReminderOnceAcrossReplicas(t *testing.T) {
	st := new(store.Memory)
	clk := &clock{t: time.Now()}
	replica := func() (*Bot, *recorder) { return clockedBotOn(t, st, clk) }
	a, recA := replica()
	other, recB := replica()
	m := userChallengeAccepted(t, a, recA)
	at, _ := remindAt(m)
	clk.set(at)

	ctx := context.Background()
	ch, err := other.tables.lock(ctx, fixtureChannel, false) // reads the game before a's claim
	if err != nil {
		t.Fatal(err)
	}
	a.tables.remindTurn(fixtureChannel)
	a.run.bg.Wait()
	other.tables.remind(ctx, ch) // its claim conflicts
	other.tables.unlock(ch)
	other.tables.remindTurn(fixtureChannel) // and its timer finds the turn reminded
	other.run.bg.Wait()

	sentA, _, _ := followups(recA)
	sentB, _, _ := followups(recB)
	if len(sentA)+len(sentB) != 1 || len(sentA) != 1 {
		t.Errorf("reminders: %d from a, %d from the other; want 1 from a", len(sentA), len(sentB))
	}
	// The other process plays the move; it deletes a's reminder, kept
	// with the game.
	other.serveIC(ctx, userClick(t, mason, cell(m, 1, 1)))
	other.run.bg.Wait()
	if _, _, deleted := followups(recB); !slices.Equal(deleted, []string{m.Board.Token + "/followup-1"}) {
		t.Errorf("the other process deleted %v; want a's reminder", deleted)
	}
}

// A restart neither repeats a turn's reminder nor loses one: Restore arms
// the reminder of a running game, and a turn reminded before the restart
// is not reminded again.
func TestReminderAcrossRestart(t *testing.T) {
	st := new(store.Memory)
	clk := &clock{t: time.Now()}
	start := func() (*Bot, *recorder) { return clockedBotOn(t, st, clk) }
	first, rec := start()
	m := userChallengeAccepted(t, first, rec)
	first.Close()

	// Restarted before half time: the reminder's timer is armed.
	second, rec2 := start()
	if err := second.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	at, _ := remindAt(m)
	ch, err := second.tables.channels.lock(context.Background(), fixtureChannel)
	if err != nil {
		t.Fatal(err)
	}
	armed, armedAt := ch.remindTimer != nil, ch.remindAt
	second.tables.channels.unlock(ch)
	if !armed || !armedAt.Equal(at.Add(remindBackup)) { // not this process's turn: a backup
		t.Errorf("after Restore the reminder timer is armed %v at %v; want at %v", armed, armedAt, at.Add(remindBackup))
	}
	remindAfter(t, second, clk, m, 0)
	if sent, _, _ := followups(rec2); len(sent) != 1 {
		t.Fatalf("%d reminders after the restart; want 1", len(sent))
	}
	second.Close()

	// Restarted after the reminder: no second one.
	third, rec3 := start()
	if err := third.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	remindAfter(t, third, clk, m, time.Second)
	if sent, _, _ := followups(rec3); len(sent) != 0 {
		t.Errorf("%d reminders after a second restart; want none: the turn was reminded", len(sent))
	}
	// It still deletes the reminder once Mason moves.
	third.serveIC(context.Background(), userClick(t, mason, cell(m, 1, 1)))
	third.run.bg.Wait()
	if _, _, deleted := followups(rec3); !slices.Equal(deleted, []string{m.Board.Token + "/followup-1"}) {
		t.Errorf("deleted %v after the restart; want the reminder sent before it", deleted)
	}
}

// In a correspondence game the reminder goes to the channel, as a reply
// to the board with a link to it, and replaces the turn's ping: one
// message per turn, the one that says when time runs out.
func TestReminderReplacesCorrespondencePing(t *testing.T) {
	b, rec, clk := corrBot(t, 20*time.Hour)
	m := challengeAccepted(t, b, rec) // Mason is pinged: sent-1
	b.run.bg.Wait()
	if got := current(t, b).ping; got != "sent-1" {
		t.Fatalf("the game keeps ping %q; want Mason's, sent-1", got)
	}
	remindAfter(t, b, clk, current(t, b), 0)
	rec.mu.Lock()
	sent, deletes := slices.Clone(rec.sent), slices.Clone(rec.channelDeletes)
	rec.mu.Unlock()
	if len(sent) != 2 {
		t.Fatalf("%d messages sent; want the ping and the reminder", len(sent))
	}
	link := "https://discord.com/channels/" + fixtureGuild + "/" + fixtureChannel + "/" + boardMessage
	want := english().T("move.reminder_board", map[string]any{"Player": mention(mason), "Deadline": m.Deadline.Unix(), "Board": link})
	r := sent[1]
	if r.Content != want || r.Reference == nil || r.Reference.MessageID != boardMessage ||
		r.AllowedMentions == nil || !slices.Equal(r.AllowedMentions.Users, []string{mason}) {
		t.Errorf("reminder %q replying to %+v allowing %+v; want %q replying to the board, Mason alone", r.Content, r.Reference, r.AllowedMentions, want)
	}
	if !slices.Equal(deletes, []string{fixtureChannel + "/sent-1"}) {
		t.Errorf("deleted %v; want the ping the reminder replaces", deletes)
	}
	if got := current(t, b).ping; got != "sent-2" {
		t.Errorf("the game keeps ping %q; want the reminder, sent-2", got)
	}
	if n, _, _ := followups(rec); len(n) != 0 {
		t.Errorf("%d follow-ups; want none: the board's token expires long before the turn", len(n))
	}
}

// A reminder sent through a board's token goes when /ttt board draws the
// turn again on a new message: only that token deletes it, and the game
// keeps the new board's. The turn is not reminded again.
func TestReminderGoesWithItsBoard(t *testing.T) {
	b, rec, clk := corrBot(t, 0)
	m := userChallengeAccepted(t, b, rec)
	remindAfter(t, b, clk, m, 0)
	b.serveIC(context.Background(), install(as(slashPayload(t, "board", nil, nil), bob), false))
	b.run.bg.Wait()
	if _, _, deleted := followups(rec); !slices.Equal(deleted, []string{m.Board.Token + "/followup-1"}) {
		t.Errorf("deleted follow-ups %v; want the reminder of the old board", deleted)
	}
	remindAfter(t, b, clk, m, time.Second)
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders; want 1 for the turn", len(sent))
	}
	if got := current(t, b); got.ping != "" || got.reminded != 1 {
		t.Errorf("the game keeps ping %q, reminded %d; want none, and turn 1", got.ping, got.reminded)
	}
}

// A claim that loses to another process's change of the same turn (here
// the ping it kept) is tried again on the game as it is: the turn is still
// reminded, once.
func TestReminderClaimRetriedAfterAnotherChange(t *testing.T) {
	b, rec, clk := corrBot(t, 0)
	m := userChallengeAccepted(t, b, rec)
	at, _ := remindAt(m)
	clk.set(at)
	ctx := context.Background()
	ch, err := b.tables.lock(ctx, fixtureChannel, false)
	if err != nil {
		t.Fatal(err)
	}
	// Another process saves the game meanwhile, without a move.
	g, err := b.stores.Games.Current(ctx, fixtureChannel)
	if err != nil {
		t.Fatal(err)
	}
	g.Ping = "elsewhere"
	if err := b.stores.Games.Save(ctx, g); err != nil {
		t.Fatal(err)
	}
	b.tables.remind(ctx, ch) // conflicts, and loads the game again
	// Read while the channel is still locked: the timer armed by that
	// load is already due, and would claim the turn once it is unlocked.
	if got := current(t, b); got.reminded != 0 {
		t.Fatalf("the lost claim saved reminded %d", got.reminded)
	}
	b.tables.unlock(ch)
	// What the timer armed by that load does; whether it has fired
	// already or not, the turn is reminded once.
	b.tables.remindTurn(fixtureChannel)
	b.Close()
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders; want 1", len(sent))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Equal(rec.channelDeletes, []string{fixtureChannel + "/elsewhere"}) {
		t.Errorf("deleted through the channel %v; want the ping the reminder replaced", rec.channelDeletes)
	}
}

// A turn's reminder is kept with the game (RemindAt), so that a process
// that never loaded the channel reminds it when the one timing the game
// stopped for good: its sweep arms a timer for it ahead of time, which
// sends it at half time, not before, once.
// Where the guild turned reminders off, the game keeps none, and a sweep
// that finds one anyway (turned off since) sends nothing.
func TestSweepRemindsWhenNoTimerDoes(t *testing.T) {
	replicas := func(t *testing.T) (a, other *Bot, recA, recB *recorder, clk *clock) {
		st := new(store.Memory)
		clk = &clock{t: time.Now()}
		a, recA = clockedBotOn(t, st, clk)
		other, recB = clockedBotOn(t, st, clk)
		return a, other, recA, recB, clk
	}
	sweep := func(t *testing.T, b *Bot) {
		t.Helper()
		if err := b.tables.sweepReminders(context.Background()); err != nil {
			t.Fatal(err)
		}
		b.run.bg.Wait()
	}

	t.Run("the process timing it stopped", func(t *testing.T) {
		a, other, recA, recB, clk := replicas(t)
		m := userChallengeAccepted(t, a, recA)
		a.Close() // its timers with it
		at, _ := remindAt(m)
		g, err := other.stores.Games.Current(context.Background(), fixtureChannel)
		if err != nil || !g.RemindAt.Equal(at.UTC().Truncate(time.Microsecond)) {
			t.Fatalf("stored RemindAt = %v, %v; want %v", g.RemindAt, err, at)
		}

		clk.set(at.Add(-time.Second))
		sweep(t, other)
		if sent, _, _ := followups(recB); len(sent) != 0 {
			t.Fatalf("%d reminders a second before half time; want none", len(sent))
		}
		// The sweep looks ahead: the reminder due before its next run
		// has a timer here.
		ch, err := other.tables.channels.lock(context.Background(), fixtureChannel)
		if err != nil {
			t.Fatal(err)
		}
		armed, armedAt := ch.remindTimer != nil, ch.remindAt
		other.tables.channels.unlock(ch)
		if !armed || !armedAt.Equal(at.Add(remindBackup)) { // a backup
			t.Errorf("after a sweep a second before half time the reminder timer is armed %v at %v; want at %v", armed, armedAt, at.Add(remindBackup))
		}
		clk.set(at)
		other.tables.remindTurn(fixtureChannel) // that timer
		other.run.bg.Wait()
		sweep(t, other)
		sweep(t, other)
		clk.set(at.Add(sweepEvery))
		sweep(t, other)
		sent, refs, _ := followups(recB)
		if len(sent) != 1 {
			t.Fatalf("%d reminders from the sweeps at and after half time; want 1", len(sent))
		}
		want := english().T("move.reminder", map[string]any{"Player": mention(mason), "Deadline": m.Deadline.Unix()})
		if sent[0].Content != want || refs[0] != m.Board.Token {
			t.Errorf("reminder %q through token %q; want %q through the board's token", sent[0].Content, refs[0], want)
		}
		if sentA, _, _ := followups(recA); len(sentA) != 0 {
			t.Errorf("%d reminders from the stopped process; want none", len(sentA))
		}
		got := current(t, other)
		if got.reminded != 1 || got.ping != followupPing+"followup-1" {
			t.Errorf("the game keeps reminded %d, ping %q; want turn 1 and the reminder", got.reminded, got.ping)
		}
		if g, _ := other.stores.Games.Current(context.Background(), fixtureChannel); !g.RemindAt.IsZero() {
			t.Errorf("stored RemindAt = %v after the reminder; want none", g.RemindAt)
		}
	})

	t.Run("reminders off", func(t *testing.T) {
		a, other, recA, recB, clk := replicas(t)
		if err := a.stores.Settings.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, NoReminders: true}); err != nil {
			t.Fatal(err)
		}
		m := userChallengeAccepted(t, a, recA)
		if g, _ := a.stores.Games.Current(context.Background(), fixtureChannel); !g.RemindAt.IsZero() {
			t.Errorf("stored RemindAt = %v where the server has no reminders; want none", g.RemindAt)
		}
		at, _ := remindAt(m)
		clk.set(at)
		sweep(t, other)
		if sent, _, _ := followups(recB); len(sent) != 0 {
			t.Errorf("%d reminders; want none where the server turned them off", len(sent))
		}
	})

	t.Run("reminders turned off since", func(t *testing.T) {
		a, other, recA, recB, clk := replicas(t)
		m := userChallengeAccepted(t, a, recA)
		a.Close()
		if err := other.stores.Settings.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, NoReminders: true}); err != nil {
			t.Fatal(err)
		}
		at, _ := remindAt(m)
		clk.set(at)
		sweep(t, other)
		sweep(t, other)
		if sent, _, _ := followups(recB); len(sent) != 0 {
			t.Errorf("%d reminders; want none where the server turned them off", len(sent))
		}
		if got := current(t, other); got.reminded != 0 || got.Version != m.Version {
			t.Errorf("the game was saved (version %d, reminded %d); want it untouched at version %d", got.Version, got.reminded, m.Version)
		}
	})
}

// restError is what the REST layer returns for a refusal with status.
func restError(status int) error {
	return &discordgo.RESTError{Response: &http.Response{StatusCode: status},
		Message: &discordgo.APIErrorMessage{Message: http.StatusText(status)}}
}

// A reminder that Discord refuses for a while (a rate limit outlasting
// the request's time), or that never left, is not lost: the claim on it is
// released, and it goes on a later try, once. One that Discord will never
// take (a 4xx) is given up for the turn.
func TestReminderRetriedAfterARefusal(t *testing.T) {
	fire := func(t *testing.T, b *Bot, clk *clock) {
		t.Helper()
		at, ok := remindAt(current(t, b))
		if !ok {
			t.Fatal("the turn's reminder is not due again: a refused reminder is lost")
		}
		clk.set(at)
		b.tables.remindTurn(fixtureChannel)
		b.run.bg.Wait()
	}
	b, rec, clk := corrBot(t, 0)
	m := userChallengeAccepted(t, b, rec)
	rec.mu.Lock()
	rec.followupErrs = []error{restError(http.StatusTooManyRequests), fmt.Errorf("POST interaction request: %w", errNotSent)}
	rec.mu.Unlock()
	remindAfter(t, b, clk, m, 0) // a 429
	fire(t, b, clk)              // not sent
	if sent, _, _ := followups(rec); len(sent) != 0 {
		t.Fatalf("%d reminders recorded; want none yet", len(sent))
	}
	fire(t, b, clk) // taken
	remindAfter(t, b, clk, m, time.Minute)
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders; want 1 after two refusals", len(sent))
	}
	if got := current(t, b); got.reminded != 1 || got.ping != followupPing+"followup-1" {
		t.Errorf("the game keeps reminded %d, ping %q; want turn 1 and the reminder", got.reminded, got.ping)
	}
	if _, ok := remindAt(current(t, b)); ok {
		t.Error("the reminder is still due once Discord took it")
	}

	t.Run("refused for good", func(t *testing.T) {
		b, rec, clk := corrBot(t, 0)
		m := userChallengeAccepted(t, b, rec)
		rec.mu.Lock()
		rec.followupErrs = []error{restError(http.StatusForbidden)}
		rec.mu.Unlock()
		remindAfter(t, b, clk, m, 0)
		remindAfter(t, b, clk, m, 10*time.Second)
		remindAfter(t, b, clk, m, time.Minute)
		if sent, _, _ := followups(rec); len(sent) != 0 {
			t.Errorf("%d reminders; want none after a 403", len(sent))
		}
		if _, ok := remindAt(current(t, b)); ok {
			t.Error("a reminder Discord refused with a 403 is due again")
		}
	})
}

// A follow-up reminder whose request Discord may have carried out,
// though the bot did not hear that it did (a 5xx after the request was
// written, a request cut by its deadline mid-flight, an answer the bot
// could not read), is not sent again: the player could hear twice, since
// Discord's webhooks take no nonce.
func TestReminderOfUnknownOutcomeNotSentAgain(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"500", restError(http.StatusInternalServerError)},
		{"504", restError(http.StatusGatewayTimeout)},
		{"cut mid-flight", fmt.Errorf("POST interaction request: %w", context.DeadlineExceeded)},
		{"undecodable answer", fmt.Errorf("decode the message: %w: unexpected end of JSON input", discordgo.ErrJSONUnmarshal)},
	} {
		err := tt.err
		t.Run(tt.name, func(t *testing.T) {
			b, rec, clk := corrBot(t, 0)
			m := userChallengeAccepted(t, b, rec)
			rec.mu.Lock()
			rec.followupErrs = []error{err}
			rec.mu.Unlock()
			remindAfter(t, b, clk, m, 0)
			remindAfter(t, b, clk, m, 10*time.Second)
			remindAfter(t, b, clk, m, time.Minute)
			if sent, _, _ := followups(rec); len(sent) != 0 {
				t.Errorf("%d reminders sent again after %v; want none", len(sent), err)
			}
			if _, ok := remindAt(current(t, b)); ok {
				t.Errorf("the reminder is due again after %v", err)
			}
		})
	}
}

// silentReminders is the upkeep of a process that dies between claiming
// a turn's reminder and sending it.
type silentReminders struct{ upkeep }

func (silentReminders) remind(*match) {}

// A process that times games of one-minute turns dies, before their
// half time or holding the claim of a reminder it never sent; the other
// process, whose sweep runs every sweepEvery at any phase, sends the
// reminder while it is worth sending, once. Time moves by hand: the
// sweeps, the dead process's claim and the survivor's reminder timer run
// in the order of their times.
func TestReminderOfADeadProcess(t *testing.T) {
	for _, holding := range []bool{false, true} {
		for phase := time.Duration(0); phase < sweepEvery; phase += 5 * time.Second {
			name := fmt.Sprintf("holding %v, sweep at +%v", holding, phase)
			t.Run(name, func(t *testing.T) {
				st := new(store.Memory)
				clk := &clock{t: time.Now()}
				ctx := context.Background()
				if err := st.SaveSettings(ctx, store.Settings{GuildID: fixtureGuild, TurnTimeout: time.Minute}); err != nil {
					t.Fatal(err)
				}
				a, recA := clockedBotOn(t, st, clk)
				b, recB := clockedBotOn(t, st, clk)
				m := userChallengeAccepted(t, a, recA)
				a.run.bg.Wait()
				half, ok := remindAt(m)
				if !ok {
					t.Fatal("a turn of a minute has no reminder")
				}
				var claimAt time.Time
				if holding {
					a.tables.upkeep = silentReminders{a.tables.upkeep}
					claimAt = half
				} else {
					a.Close()
				}
				late := m.Deadline.Add(-remindLeast)
				sweepAt := turnStart(m).Add(phase)
				for range 100 {
					ch, err := b.tables.channels.lock(ctx, fixtureChannel)
					if err != nil {
						t.Fatal(err)
					}
					armed, timerAt := ch.remindTimer != nil, ch.remindAt
					b.tables.channels.unlock(ch)
					next, what := sweepAt, "sweep"
					if !claimAt.IsZero() && !claimAt.After(next) {
						next, what = claimAt, "claim"
					}
					if armed && timerAt.Before(next) && (claimAt.IsZero() || timerAt.Before(claimAt)) {
						next, what = timerAt, "timer"
					}
					if next.After(late) {
						break
					}
					if next.After(clk.now()) {
						clk.set(next)
					}
					switch what {
					case "sweep":
						if err := b.tables.sweepReminders(ctx); err != nil {
							t.Fatal(err)
						}
						sweepAt = sweepAt.Add(sweepEvery)
					case "claim":
						a.tables.remindTurn(fixtureChannel)
						a.run.bg.Wait()
						if g, _ := st.Current(ctx, fixtureChannel); g.Reminded != 1 {
							t.Fatalf("the dying process did not claim the reminder: reminded %d", g.Reminded)
						}
						a.Close()
						claimAt = time.Time{}
					case "timer":
						b.tables.remindTurn(fixtureChannel)
					}
					b.run.bg.Wait()
				}
				b.Close()
				if sent, _, _ := followups(recB); len(sent) != 1 {
					t.Errorf("the surviving process sent %d reminders before %v before the deadline; want 1", len(sent), remindLeast)
				}
				if sent, _, _ := followups(recA); len(sent) != 0 {
					t.Errorf("the dead process sent %d reminders", len(sent))
				}
			})
		}
	}
}

// A reminder that waits its turn to be sent behind a busy Discord past
// the end of its claim still goes, once: the timer at the claim's end
// does not claim it again here, and the send renews the claim before it
// goes.
func TestReminderQueuedPastItsClaim(t *testing.T) {
	b, rec, clk := corrBot(t, time.Minute)
	m := userChallengeAccepted(t, b, rec)
	b.run.bg.Wait()
	release := fillEditWorkers(b) // the reminder waits in the queue
	at, _ := remindAt(m)
	clk.set(at)
	b.tables.remindTurn(fixtureChannel)
	claimed := current(t, b)
	end, ok := remindAt(claimed)
	if !ok || claimed.reminded != 1 {
		t.Fatalf("after the claim the turn has reminded %d, due again %v; want a claim that ends", claimed.reminded, ok)
	}
	clk.set(end.Add(time.Second))
	b.tables.remindTurn(fixtureChannel) // the timer at the claim's end
	// The queued send owns the turn's reminder: no timer here fires for
	// it meanwhile (one at the claim's end, now past, would fire at once,
	// read the store and arm itself again, without end).
	if armed, at := remindTimerOf(t, b); armed {
		t.Errorf("a reminder timer is armed at %v (now %v) while the turn's reminder waits to be sent", at, clk.now())
	}
	clk.set(end.Add(5 * time.Second)) // and the queue is slower still
	release()
	b.run.bg.Wait()
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders; want 1", len(sent))
	}
	if got := current(t, b); got.reminded != 1 || got.ping != followupPing+"followup-1" {
		t.Errorf("the game keeps reminded %d, ping %q; want turn 1 and the reminder", got.reminded, got.ping)
	}
	if _, ok := remindAt(current(t, b)); ok {
		t.Error("the reminder is still due once Discord took it")
	}
}

// remindTimerOf says whether the fixture channel has a reminder timer
// armed, and for when.
func remindTimerOf(t *testing.T, b *Bot) (bool, time.Time) {
	t.Helper()
	ch, err := b.tables.channels.lock(context.Background(), fixtureChannel)
	if err != nil {
		t.Fatal(err)
	}
	defer b.tables.channels.unlock(ch)
	return ch.remindTimer != nil, ch.remindAt
}

// unreadableStore fails every read of a game while failing is set, as a
// store that times out or lost its connection does.
type unreadableStore struct {
	store.Memory
	failing atomic.Bool
}

func (s *unreadableStore) Current(ctx context.Context, channelID string) (*store.Game, error) {
	if s.failing.Load() {
		return nil, errors.New("connection reset by peer")
	}
	return s.Memory.Current(ctx, channelID)
}

// A reminder that Discord refused while the store could not be read is
// not lost to this process: once its claim ends, it is claimed and sent
// again here, once the store answers again.
func TestReminderSettledWhenTheStoreFails(t *testing.T) {
	st := new(unreadableStore)
	clk := &clock{t: time.Now()}
	if err := st.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, TurnTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	b, rec := clockedBotOn(t, st, clk)
	m := userChallengeAccepted(t, b, rec)
	b.run.bg.Wait()
	release := fillEditWorkers(b) // the reminder waits in the queue
	rec.mu.Lock()
	rec.followupErrs = []error{restError(http.StatusTooManyRequests)}
	rec.mu.Unlock()
	at, _ := remindAt(m)
	clk.set(at)
	b.tables.remindTurn(fixtureChannel)
	claimed := current(t, b)
	end, ok := remindAt(claimed)
	if !ok || claimed.reminded != 1 {
		t.Fatalf("after the claim the turn has reminded %d, due again %v; want a claim that ends", claimed.reminded, ok)
	}
	st.failing.Store(true) // the refusal cannot be written down
	release()
	b.run.bg.Wait()
	st.failing.Store(false)
	clk.set(end.Add(time.Second))
	b.tables.remindTurn(fixtureChannel) // the timer at the claim's end
	b.run.bg.Wait()
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders once the claim ended and the store answered again; want 1", len(sent))
	}
}

// A reminder that waited a few seconds in the queue, less than its whole
// claim, renews the claim before it goes, so that its request has the
// time a fresh claim gives: one cut short by the claim's end might
// reach Discord unheard, and is not sent again.
func TestReminderRenewedAfterAWait(t *testing.T) {
	b, rec, clk := corrBot(t, time.Minute)
	m := userChallengeAccepted(t, b, rec)
	b.run.bg.Wait()
	release := fillEditWorkers(b) // the reminder waits in the queue
	at, _ := remindAt(m)
	clk.set(at)
	b.tables.remindTurn(fixtureChannel)
	claimed := current(t, b)
	end, ok := remindAt(claimed)
	if !ok || claimed.reminded != 1 {
		t.Fatalf("after the claim the turn has reminded %d, due again %v; want a claim that ends", claimed.reminded, ok)
	}
	clk.set(end.Add(-remindMargin - minRemindLease/2 - 100*time.Millisecond)) // just more than the old bound left
	release()
	b.run.bg.Wait()
	got := current(t, b)
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders; want 1", len(sent))
	}
	// The claim, its renewal, and the ping kept.
	if got.Version != claimed.Version+2 {
		t.Errorf("the game was saved %d times after the claim; want 2: the claim renewed, the ping kept", got.Version-claimed.Version)
	}
}

// Replicas do not all compete for every reminder at the same instant:
// the process that saved the move that began the turn arms its timer at
// half time, another that a sweep told of the turn a little later, still
// well inside the part of the turn a reminder is of use in.
func TestBackupReminderTimersLater(t *testing.T) {
	st := new(store.Memory)
	clk := &clock{t: time.Now()}
	if err := st.SaveSettings(context.Background(), store.Settings{GuildID: fixtureGuild, TurnTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	a, recA := clockedBotOn(t, st, clk)
	b, _ := clockedBotOn(t, st, clk)
	m := userChallengeAccepted(t, a, recA)
	at, _ := remindAt(m)
	clk.set(at.Add(-time.Second))
	if err := b.tables.sweepReminders(context.Background()); err != nil {
		t.Fatal(err)
	}
	if armed, when := remindTimerOf(t, a); !armed || when.Sub(at).Abs() > time.Millisecond { // at, as stored
		t.Errorf("the process whose turn it is armed %v at %v; want at half time, %v", armed, when, at)
	}
	armed, when := remindTimerOf(t, b)
	if !armed || when.Sub(at) < time.Second || !when.Before(m.Deadline.Add(-remindLeast)) {
		t.Errorf("the other process armed %v at %v; want after half time (%v), before %v", armed, when, at, m.Deadline.Add(-remindLeast))
	}
}

// limited is a request not sent because a rate limit holds for after, as
// REST says it when told not to wait (discordgo.WithRetryOnRatelimit).
type limited struct{ after time.Duration }

func (limited) Error() string               { return "request not sent: rate limited" }
func (limited) NotSent() bool               { return true }
func (l limited) RetryAfter() time.Duration { return l.after }

// A reminder that meets a rate limit does not wait it out on a worker:
// its claim is released, and it is due again once the limit has passed
// (not before: a try then would only meet it again), and then sent once.
func TestReminderRetriedAfterTheRateLimit(t *testing.T) {
	b, rec, clk := corrBot(t, 10*time.Minute)
	m := userChallengeAccepted(t, b, rec)
	rec.mu.Lock()
	rec.followupErrs = []error{limited{20 * time.Second}}
	rec.mu.Unlock()
	remindAfter(t, b, clk, m, 0)
	at, ok := remindAt(current(t, b))
	if want := clk.now().Add(20 * time.Second); !ok || at.Sub(want).Abs() > time.Millisecond {
		t.Fatalf("after a rate limit of 20 s the reminder is due again %v at %v; want at %v", ok, at, want)
	}
	clk.set(at)
	b.tables.remindTurn(fixtureChannel)
	b.run.bg.Wait()
	if sent, _, _ := followups(rec); len(sent) != 1 {
		t.Errorf("%d reminders once the limit passed; want 1", len(sent))
	}
}

// noPause is a reminder's pause between tries that does not wait; it
// records the pauses asked for.
func noPause(b *Bot) *[]time.Duration {
	var mu sync.Mutex
	var pauses []time.Duration
	b.boards.pause = func(ctx context.Context, d time.Duration) bool {
		mu.Lock()
		defer mu.Unlock()
		pauses = append(pauses, d)
		return ctx.Err() == nil
	}
	return &pauses
}

// A correspondence game's reminder, which goes to the channel with the
// turn's nonce, is tried again when its outcome is unknown (a 5xx, taken
// or not, no answer, an answer the bot could not read) within its claim,
// with the same nonce: Discord creates its message once, and every try
// gets it. The player hears once, and the game keeps the reminder as the
// turn's ping, to be deleted when the turn ends.
func TestCorrespondenceReminderOfUnknownOutcomeTriedAgain(t *testing.T) {
	for _, tt := range []struct {
		name string
		errs []error
	}{
		{"500 before Discord took it", []error{restError(http.StatusInternalServerError)}},
		{"500 after Discord took it", []error{taken{restError(http.StatusInternalServerError)}}},
		{"no answer, taken", []error{taken{fmt.Errorf("POST channel message: %w", io.ErrUnexpectedEOF)}}},
		{"undecodable answer", []error{taken{fmt.Errorf("decode the message: %w: unexpected end of JSON input", discordgo.ErrJSONUnmarshal)}}},
		{"502, 503, then a rate limit", []error{restError(http.StatusBadGateway), taken{restError(http.StatusServiceUnavailable)}, limited{time.Second}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, clk := corrBot(t, 20*time.Hour)
			pauses := noPause(b)
			m := challengeAccepted(t, b, rec) // Mason is pinged: sent-1
			b.run.bg.Wait()
			rec.mu.Lock()
			rec.sendErrs, rec.nonceSends = slices.Clone(tt.errs), 0 // the ping went
			rec.mu.Unlock()
			remindAfter(t, b, clk, m, 0)
			remindAfter(t, b, clk, m, time.Minute) // another timer
			sent, nonces, tries := rec.nonceSent()
			if sent != 2 || len(nonces) != 2 || nonces[1] == "" {
				t.Fatalf("%d messages sent (nonces %q); want the ping and one reminder, with a nonce", sent, nonces)
			}
			if want := len(tt.errs) + 1; tries != want {
				t.Errorf("the reminder was sent %d times; want %d, the last taken", tries, want)
			}
			if nonces[1] != reminderNonce(m) || len(nonces[1]) > 25 {
				t.Errorf("the reminder's nonce is %q; want the turn's, %q, of at most 25 characters", nonces[1], reminderNonce(m))
			}
			if nonces[0] != turnNonce("ping", m) || nonces[0] == nonces[1] {
				t.Errorf("the turn's ping went with nonce %q; want the turn's ping's, %q, not the reminder's", nonces[0], turnNonce("ping", m))
			}
			if got := current(t, b); got.ping != "sent-2" || got.reminded != 1 {
				t.Errorf("the game keeps ping %q, reminded %d; want the reminder, sent-2, and turn 1", got.ping, got.reminded)
			}
			if _, ok := remindAt(current(t, b)); ok {
				t.Error("the reminder is due again once Discord took it")
			}
			if len(*pauses) != len(tt.errs) || (*pauses)[0] != remindFirstPause {
				t.Errorf("paused %v between tries; want %d pauses, the first %v", *pauses, len(tt.errs), remindFirstPause)
			}
		})
	}
}

// A reminder whose outcome stays unknown is tried at most remindTries
// times, with a doubling pause, and then given up for the turn: a try
// after the claim could come after Discord forgot the nonce. One whose
// first try meets a rate limit is released, as ever, and one Discord
// took and someone deleted since (Unknown Message to the next try) is
// not sent again.
func TestCorrespondenceReminderTriesBounded(t *testing.T) {
	b, rec, clk := corrBot(t, 20*time.Hour)
	pauses := noPause(b)
	m := challengeAccepted(t, b, rec)
	b.run.bg.Wait()
	var errs []error
	for range remindTries + 2 {
		errs = append(errs, restError(http.StatusInternalServerError))
	}
	rec.mu.Lock()
	rec.sendErrs, rec.nonceSends = errs, 0
	rec.mu.Unlock()
	remindAfter(t, b, clk, m, 0)
	remindAfter(t, b, clk, m, time.Minute)
	rec.mu.Lock()
	sent, tries := len(rec.sent), rec.nonceSends
	rec.mu.Unlock()
	if sent != 1 || tries != remindTries {
		t.Errorf("%d messages, %d tries of the reminder; want the ping alone, after %d tries", sent, tries, remindTries)
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second}
	if len(*pauses) != remindTries-1 || !slices.Equal((*pauses)[:len(want)], want) || slices.Max(*pauses) != remindMaxPause {
		t.Errorf("paused %v; want %d pauses doubling from %v to %v", *pauses, remindTries-1, remindFirstPause, remindMaxPause)
	}
	if _, ok := remindAt(current(t, b)); ok {
		t.Error("a reminder of unknown outcome is due again after its tries")
	}

	t.Run("rate limited first", func(t *testing.T) {
		b, rec, clk := corrBot(t, 20*time.Hour)
		noPause(b)
		challengeAccepted(t, b, rec)
		b.run.bg.Wait()
		rec.mu.Lock()
		rec.sendErrs, rec.nonceSends = []error{limited{5 * time.Second}}, 0
		rec.mu.Unlock()
		remindAfter(t, b, clk, current(t, b), 0)
		at, ok := remindAt(current(t, b))
		if want := clk.now().Add(5 * time.Second); !ok || at.Sub(want).Abs() > time.Millisecond { // as stored
			t.Fatalf("after a rate limit of 5 s the reminder is due again %v at %v; want 5 s from now", ok, at)
		}
		clk.set(at)
		b.tables.remindTurn(fixtureChannel)
		b.run.bg.Wait()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.sent) != 2 || rec.nonceSends != 2 {
			t.Errorf("%d messages after %d tries; want the ping and the reminder after 2", len(rec.sent), rec.nonceSends)
		}
	})

	t.Run("taken and deleted", func(t *testing.T) {
		b, rec, clk := corrBot(t, 20*time.Hour)
		noPause(b)
		m := challengeAccepted(t, b, rec)
		b.run.bg.Wait()
		rec.mu.Lock()
		rec.sent, rec.sentTo, rec.nonces = append(rec.sent, &discordgo.MessageSend{}), append(rec.sentTo, fixtureChannel), []string{"", reminderNonce(m)}
		rec.channelDeletes = append(rec.channelDeletes, fixtureChannel+"/sent-2")
		rec.sendErrs, rec.nonceSends = []error{restError(http.StatusInternalServerError)}, 0
		rec.mu.Unlock()
		remindAfter(t, b, clk, current(t, b), 0)
		rec.mu.Lock()
		tries := rec.nonceSends
		rec.mu.Unlock()
		if tries != 2 {
			t.Errorf("%d tries; want 2, the second answered Unknown Message", tries)
		}
		if got := current(t, b); got.ping == "sent-2" {
			t.Error("the game keeps the deleted reminder as its ping")
		}
		if _, ok := remindAt(current(t, b)); ok {
			t.Error("a reminder Discord took is due again")
		}
	})
}

// In a short turn of a server that installed the bot, which reaches the
// channel, the reminder goes to the channel with the turn's nonce, not as
// a follow-up (Discord's webhooks take no nonce): one whose outcome is
// unknown (a 500 after Discord took it) is tried again with the same
// nonce, and the player hears once. The move that ends the turn deletes
// it through the channel, with the bot's token.
func TestShortTurnReminderToAReachedChannel(t *testing.T) {
	b, rec, clk := corrBot(t, 0) // the bot's default: 5 minutes
	noPause(b)
	m := challengeAccepted(t, b, rec)
	if !m.Board.Reached {
		t.Fatal("the board of a game in a server that installed the bot does not say the bot reaches its channel")
	}
	rec.mu.Lock()
	rec.sendErrs = []error{taken{restError(http.StatusInternalServerError)}}
	rec.mu.Unlock()
	remindAfter(t, b, clk, m, 0)
	remindAfter(t, b, clk, m, time.Minute) // another timer
	sent, nonces, tries := rec.nonceSent()
	if fu, _, _ := followups(rec); len(fu) != 0 || sent != 1 || nonces[0] != reminderNonce(m) {
		t.Fatalf("%d follow-ups, %d messages to the channel (nonces %q); want one reminder to the channel with the turn's nonce", len(fu), sent, nonces)
	}
	if tries != 2 {
		t.Errorf("the reminder was sent %d times; want 2, the first of unknown outcome", tries)
	}
	want := english().T("move.reminder", map[string]any{"Player": mention(mason), "Deadline": m.Deadline.Unix()})
	if rec.sent[0].Content != want || rec.sentTo[0] != fixtureChannel {
		t.Errorf("reminder %q to %s; want %q to %s", rec.sent[0].Content, rec.sentTo[0], want, fixtureChannel)
	}
	if got := current(t, b); got.ping != "sent-1" || got.reminded != 1 {
		t.Errorf("the game keeps ping %q, reminded %d; want the reminder, sent-1, and turn 1", got.ping, got.reminded)
	}
	b.serveIC(context.Background(), click(t, mason, cell(m, 1, 1)))
	b.run.bg.Wait()
	rec.mu.Lock()
	deleted := slices.Clone(rec.channelDeletes)
	rec.mu.Unlock()
	if want := []string{fixtureChannel + "/sent-1"}; !slices.Equal(deleted, want) {
		t.Errorf("deleted through the channel %v; want the reminder, %v", deleted, want)
	}
}

// Where the bot does not reach the channel (apps that the users
// installed), a short turn's reminder is a follow-up through the board's
// token, as the only way there: the board does not say the bot reaches
// the channel.
func TestShortTurnReminderAsAFollowUpElsewhere(t *testing.T) {
	b, rec, clk := corrBot(t, 0)
	m := userChallengeAccepted(t, b, rec)
	if m.Board.Reached {
		t.Fatal("the board of a game of user installs says the bot reaches its channel")
	}
	remindAfter(t, b, clk, m, 0)
	if fu, refs, _ := followups(rec); len(fu) != 1 || refs[0] != m.Board.Token || len(rec.sent) != 0 {
		t.Errorf("%d follow-ups, %d messages to the channel; want the reminder as a follow-up through the board's token", len(fu), len(rec.sent))
	}
}

// A reminder whose delete fails for a while (a 500) at the turn's end is
// deleted again after a pause: the channel does not keep a reminder of a
// turn that is over.
func TestReminderDeletedAgainAfterAFailure(t *testing.T) {
	b, rec, clk := corrBot(t, 0)
	m := challengeAccepted(t, b, rec)
	remindAfter(t, b, clk, m, 0)
	rec.mu.Lock()
	rec.deleteErrs = []error{restError(http.StatusInternalServerError), restError(http.StatusBadGateway)}
	rec.edited = make(chan struct{}, 64)
	rec.mu.Unlock()
	b.serveIC(context.Background(), click(t, mason, cell(m, 1, 1)))
	want := fixtureChannel + "/sent-1"
	deadline := time.After(time.Minute)
	for {
		rec.mu.Lock()
		deleted := slices.Contains(rec.channelDeletes, want)
		rec.mu.Unlock()
		if deleted {
			break
		}
		select {
		case <-rec.edited:
		case <-deadline:
			t.Fatalf("the reminder %s was not deleted after its delete failed; want it deleted again", want)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.deleteErrs) != 0 {
		t.Errorf("%d failures left; want both met", len(rec.deleteErrs))
	}
}
