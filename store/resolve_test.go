package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// Settings and challenge writes whose COMMIT goes unanswered find out what
// became of it, as saves of games do: when the server committed (its
// answer was lost), the write succeeds; when the COMMIT never reached it,
// the write fails plainly and nothing changed. Neither is told as an
// unknown outcome.
func TestPostgresSettingsAndChallengesCommitLost(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	challenge := func(id string) *Challenge {
		return &Challenge{ID: id, GuildID: "guild", ChannelID: "chan-" + id, From: "alice", To: "bob", Size: 3, Win: 3,
			Expires: at.Add(time.Minute), Message: Board{AppID: "app", Token: "tok", At: at}}
	}
	settings := Settings{GuildID: "guild", TurnTimeout: time.Minute, Channels: []string{"c1", "c2"}, Pictures: true, UpdatedBy: "admin", UpdatedAt: at}
	for _, tc := range []struct {
		name string
		// prepare runs before the proxy is armed; write is the write
		// whose COMMIT is lost; made reads the database directly and says
		// whether the write was made.
		prepare func(t *testing.T, s *Postgres)
		write   func(ctx context.Context, s *Postgres) error
		made    func(t *testing.T, s *Postgres) bool
	}{{
		name:  "SaveSettings",
		write: func(ctx context.Context, s *Postgres) error { return s.SaveSettings(ctx, settings) },
		made: func(t *testing.T, s *Postgres) bool {
			got, err := s.Settings(context.Background(), "guild")
			if err != nil {
				t.Fatal(err)
			}
			return reflect.DeepEqual(got, settings)
		},
	}, {
		name:  "OpenChallenge",
		write: func(ctx context.Context, s *Postgres) error { return s.OpenChallenge(ctx, challenge("c1")) },
		made: func(t *testing.T, s *Postgres) bool {
			got, err := s.Challenge(context.Background(), "chan-c1")
			if err != nil {
				t.Fatal(err)
			}
			return got != nil
		},
	}, {
		name: "CloseChallenge",
		prepare: func(t *testing.T, s *Postgres) {
			if err := s.OpenChallenge(context.Background(), challenge("c1")); err != nil {
				t.Fatal(err)
			}
		},
		write: func(ctx context.Context, s *Postgres) error {
			closed, err := s.CloseChallenge(ctx, "c1")
			if err == nil && !closed {
				return errors.New("CloseChallenge = false, nil; want true: the challenge was open")
			}
			return err
		},
		made: func(t *testing.T, s *Postgres) bool {
			got, err := s.Challenge(context.Background(), "chan-c1")
			if err != nil {
				t.Fatal(err)
			}
			return got == nil
		},
	}} {
		for _, drop := range []bool{false, true} {
			name := tc.name + "/answer-lost"
			if drop {
				name = tc.name + "/commit-lost"
			}
			t.Run(name, func(t *testing.T) {
				s, proxy, direct := proxiedPostgres(t, drop)
				if tc.prepare != nil {
					tc.prepare(t, s)
				}
				proxy.arm()
				short := untilCommit(t, proxy)
				err := tc.write(short, s)
				sentCommit(t, proxy, err)
				made := tc.made(t, openPostgres(t, direct))
				proxy.let()
				switch {
				case errors.Is(err, ErrOutcomeUnknown):
					t.Errorf("%s = %v; want it resolved (the write was made: %v)", tc.name, err, made)
				case drop && made:
					t.Fatalf("%s was made though its COMMIT never reached the server", tc.name)
				case drop && err == nil:
					t.Errorf("%s = nil, and it was not made; want an error", tc.name)
				case !drop && !made:
					t.Fatalf("%s was not made though the server had its COMMIT", tc.name)
				case !drop && err != nil:
					t.Errorf("%s = %v, and it was made; want nil", tc.name, err)
				}
			})
		}
	}
}
