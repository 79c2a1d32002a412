package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/tttbot/store/storetest"
)

// observed records what an Observer hears.
type observed struct {
	mu    sync.Mutex
	calls []string // op, or op+"!" for one that failed
}

func (o *observed) observe(op string, took time.Duration, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		op += "!"
	}
	o.calls = append(o.calls, op)
}

// Every store tells its Observer of each call the bot makes, once, under
// the name the operator's metrics give it; a lost race is no failure, a
// refused save is; the calls main makes for the operator are not told.
func TestObserve(t *testing.T) {
	opens := map[string]func(t *testing.T, o Option) storeUnderTest{
		"memory": func(t *testing.T, o Option) storeUnderTest { return NewMemory(o) },
		"sqlite": func(t *testing.T, o Option) storeUnderTest {
			s, err := OpenSQLite(filepath.Join(t.TempDir(), "tttbot.db"), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T, o Option) storeUnderTest {
			if os.Getenv(storetest.PostgresEnv) == "" {
				postgresSchema(t) // skips, saying how to run
			}
			s, err := OpenPostgres(context.Background(), postgresSchema(t), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, kind := range []string{"memory", "sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			rec := new(observed)
			s := opens[kind](t, Observe(rec.observe))
			ctx := context.Background()
			g := newGame("g1", "guild", "c1", "alice", "bob")
			c := &Challenge{ID: "ch1", GuildID: "guild", ChannelID: "c1", From: "alice", To: "bob", Size: 3, Win: 3,
				Expires: t0.Add(time.Minute), Message: Board{AppID: "app", Token: "secret", At: t0}}
			calls := []func() error{
				func() error { return s.Save(ctx, g) },
				func() error { return s.Save(ctx, newGame("g2", "guild", "c1", "alice", "bob")) }, // the channel's game runs: a lost race
				func() error { return s.Save(ctx, &Game{ID: "bad"}) },                             // refused: no channel, no size
				func() error { _, err := s.Current(ctx, "c1"); return err },
				func() error { _, err := s.Running(ctx); return err },
				func() error { _, err := s.Due(ctx, t0); return err },
				func() error { _, err := s.DueReminders(ctx, t0); return err },
				func() error { _, err := s.Stats(ctx, "guild", "alice", 1); return err },
				func() error { _, err := s.Leaderboard(ctx, "guild", 1, 10); return err },
				func() error { _, err := s.History(ctx, "guild", "alice", 10); return err },
				func() error { _, err := s.ComputerLeaderboard(ctx, "guild", 10); return err },
				func() error { _, err := s.CountGames(ctx); return err },
				func() error { _, err := s.Settings(ctx, "guild"); return err },
				func() error { return s.SaveSettings(ctx, Settings{GuildID: "guild"}) },
				func() error { _, err := s.CommandGuilds(ctx); return err },
				func() error { return s.SetCommandGuild(ctx, "guild", true) },
				func() error { return s.OpenChallenge(ctx, c) },
				func() error { _, err := s.Challenge(ctx, "c1"); return err },
				func() error { _, err := s.Challenges(ctx); return err },
				func() error { _, err := s.ChallengesFrom(ctx, "alice"); return err },
				func() error { _, err := s.CloseChallenge(ctx, "ch1"); return err },
				// Not the bot's: not told.
				func() error { _, err := s.Game(ctx, "g1"); return err },
				func() error { _, err := s.CountRunning(ctx); return err },
				func() error { return s.Ping(ctx) },
			}
			for i, call := range calls {
				if err := call(); err != nil && i != 1 && i != 2 {
					t.Fatalf("call %d: %v", i, err)
				} else if (i == 1 && !errors.Is(err, ErrConflict)) || (i == 2 && err == nil) {
					t.Fatalf("call %d = %v; want a conflict, then a refusal", i, err)
				}
			}
			want := []string{"save", "save", "save!", "current", "running", "due", "due_reminders", "stats", "leaderboard", "history",
				"computer_leaderboard", "count_games", "settings", "save_settings", "command_guilds", "set_command_guild",
				"open_challenge", "challenge", "challenges", "challenges_from", "close_challenge"}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if !slices.Equal(rec.calls, want) {
				t.Errorf("observed\n%s\nwant\n%s", strings.Join(rec.calls, " "), strings.Join(want, " "))
			}
		})
	}
}

// A store opened without an Observer tells nobody, and works.
func TestObserveNone(t *testing.T) {
	if err := NewMemory().Save(context.Background(), newGame("g1", "guild", "c1", "alice", "bob")); err != nil {
		t.Fatal(err)
	}
}
