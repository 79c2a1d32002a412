package store

import (
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
	runContract(t, func(t *testing.T) storeUnderTest {
		return openSQLite(t, filepath.Join(t.TempDir(), "data", "tttbot.db"))
	})
}

func TestSQLiteTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	testTwoProcesses(t, openSQLite(t, path), openSQLite(t, path))
}
