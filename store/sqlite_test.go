package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func openSQLite(t testing.TB, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatalf("OpenSQLite(%s) = %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSQLite(t *testing.T) {
	t.Parallel() // its CPU beside the PostgreSQL tests' waits
	runContract(t, func(t *testing.T) storeUnderTest {
		return openSQLite(t, filepath.Join(t.TempDir(), "data", "tttbot.db"))
	})
}

func TestSQLiteTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	testTwoProcesses(t, openSQLite(t, path), openSQLite(t, path))
}

func TestSQLiteChallengeLimitShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	testChallengeLimitShared(t, openSQLite(t, path), openSQLite(t, path))
}

// A SQLite file deleted, or replaced, while the store has it open: saves
// would go to a file that the next start cannot see. The store refuses
// them with ErrUnavailable, and Ping (/readyz) fails, instead of
// acknowledging moves that a restart loses.
func TestSQLiteFileGone(t *testing.T) {
	for _, tt := range []struct {
		name string
		gone func(t *testing.T, path string)
	}{
		{"deleted", func(t *testing.T, path string) {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + suffix); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"replaced", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "tttbot.db")
			s := openSQLite(t, path)
			g := newGame("g1", "guild", "chan", "alice", "bob")
			mustSave(t, s, g)
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("Ping before = %v; want nil", err)
			}
			tt.gone(t, path)
			if err := s.Save(ctx, play(g, [2]int{0, 0})); !errors.Is(err, ErrUnavailable) {
				t.Errorf("Save after the file was %s = %v; want ErrUnavailable", tt.name, err)
			}
			if err := s.Ping(ctx); !errors.Is(err, ErrUnavailable) {
				t.Errorf("Ping after the file was %s = %v; want ErrUnavailable", tt.name, err)
			}
			if err := s.OpenChallenge(ctx, &Challenge{ID: "c1", ChannelID: "chan2", Expires: t0}); !errors.Is(err, ErrUnavailable) {
				t.Errorf("OpenChallenge after the file was %s = %v; want ErrUnavailable", tt.name, err)
			}
		})
	}
}

func TestSQLiteWebKeyShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	testWebKeyShared(t, openSQLite(t, path), openSQLite(t, path))
}
