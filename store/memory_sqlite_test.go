package store

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
)

var rssFlag = flag.Bool("store.rss", false, "TestSQLiteMemory: measure the resident memory a SQLite store costs under a light load")

// TestSQLiteMemory measures what a SQLite store adds to the resident set
// of a process under a light load (lightLoad), for several sizes of
// connection pool and page cache, each in a process of its own:
//
//	go test ./store/ -run TestSQLiteMemory -store.rss -v
func TestSQLiteMemory(t *testing.T) {
	if !*rssFlag {
		t.Skip("set -store.rss to measure a SQLite store's memory")
	}
	// A database of bigGames finished games, which the children share.
	games := 100000
	db := filepath.Join(t.TempDir(), "tttbot.db")
	big := openSQLite(t, db)
	fill(t, bigDB{"sqlite", big}, games)
	big.Close()
	for _, mem := range []memoryUse{
		{readers: 4, cacheKiB: 2000}, // SQLite's default cache
		{readers: 4, cacheKiB: 512},
		{readers: 2, cacheKiB: 512},
		{readers: 2, cacheKiB: 256},
		defaultMemory,
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSQLiteMemoryChild$", "-test.v")
		cmd.Env = append(os.Environ(), fmt.Sprintf("TTT_RSS_CHILD=%d,%d", mem.readers, mem.cacheKiB), "TTT_RSS_DB="+db)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "rss:") && !strings.Contains(line, "TestSQLiteMemoryChild") {
				t.Logf("readers %d, cache %4d KiB: %s", mem.readers, mem.cacheKiB, strings.TrimSpace(line[strings.Index(line, "rss:"):]))
			}
		}
	}
}

// TestSQLiteMemoryChild is the process TestSQLiteMemory measures.
func TestSQLiteMemoryChild(t *testing.T) {
	env := os.Getenv("TTT_RSS_CHILD")
	if env == "" {
		t.Skip("run by TestSQLiteMemory")
	}
	var mem memoryUse
	if _, err := fmt.Sscanf(env, "%d,%d", &mem.readers, &mem.cacheKiB); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	before := procStatus(t)
	s, err := openSQLiteWith(os.Getenv("TTT_RSS_DB"), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lightLoad(t, s)
	peak := procStatus(t)["VmHWM"]
	debug.FreeOSMemory() // what stays is what is kept, not garbage not yet returned
	after := procStatus(t)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// Then every guild's boards, from 4 goroutines at once: every
	// connection's page cache fills up to its bound.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			ctx := context.Background()
			for g := w; g < bigGuilds; g += 4 {
				guild := fmt.Sprintf("guild%d", g)
				s.Leaderboard(ctx, guild, 1, 10)
				s.ComputerLeaderboard(ctx, guild, 10)
				s.History(ctx, guild, fmt.Sprintf("u%d", g), 10)
			}
		})
	}
	wg.Wait()
	debug.FreeOSMemory()
	full := procStatus(t)
	var cache int
	if err := s.reader.QueryRow(`PRAGMA cache_size`).Scan(&cache); err != nil {
		t.Fatal(err)
	}
	t.Logf("rss: after reading every guild: %5.1f MB, anonymous %4.1f MB", mb(full["VmRSS"]), mb(full["RssAnon"]))
	t.Logf("rss: %5.1f MB → %5.1f MB (peak %5.1f MB): anonymous %4.1f → %4.1f MB, file (code) %4.1f → %4.1f MB, shared (WAL index) %4.1f MB; Go heap in use %4.1f MB; cache_size %d",
		mb(before["VmRSS"]), mb(after["VmRSS"]), mb(peak), mb(before["RssAnon"]), mb(after["RssAnon"]),
		mb(before["RssFile"]), mb(after["RssFile"]), mb(after["RssShmem"]), mb(int64(ms.HeapInuse)), cache)
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// lightLoad is a quiet evening on a database of many games: 20 channels
// play 300 games of 3×3 to the end, move by move, each move read back
// first; after each game someone in one of 300 guilds asks for a board,
// stats, the leaderboard, a history.
func lightLoad(t *testing.T, s *SQLite) {
	ctx := context.Background()
	cells := [][2]int{{0, 0}, {1, 1}, {0, 1}, {0, 2}, {2, 0}, {1, 0}, {1, 2}, {2, 1}, {2, 2}} // a draw
	run := time.Now().UnixNano()                                                              // the children share one database
	for i := range 300 {
		ch := fmt.Sprintf("load%d-%d", run, i%20)
		g := newGame(fmt.Sprintf("load%d-%d", run, i), "guild", ch, fmt.Sprintf("u%d", i%37), fmt.Sprintf("u%d", (i+5)%37))
		g.Board = Board{AppID: "app", Token: strings.Repeat("t", 180), At: time.Now()}
		mustSave(t, s, g)
		for n, c := range cells {
			cur, err := s.Current(ctx, ch)
			if err != nil || cur == nil {
				t.Fatalf("Current(%s) = %v, %v", ch, cur, err)
			}
			play(cur, c)
			if n == len(cells)-1 {
				end(cur, game.EndDraw, game.None, 1)
			}
			mustSave(t, s, cur)
		}
		// Someone in one of the database's guilds asks for a board, stats,
		// a history.
		guild, u := fmt.Sprintf("guild%d", i*7%bigGuilds), fmt.Sprintf("u%d", i*13%bigUsers)
		if _, err := s.Current(ctx, fmt.Sprintf("chan%d", (i*7%bigGuilds)*100+i%bigChannels)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stats(ctx, guild, u, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Leaderboard(ctx, guild, 1, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := s.History(ctx, guild, u, 10); err != nil {
			t.Fatal(err)
		}
	}
}

// procStatus returns the sizes /proc/self/status gives, in bytes.
func procStatus(t *testing.T) map[string]int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if !ok || len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		out[k] = n << 10
	}
	return out
}
