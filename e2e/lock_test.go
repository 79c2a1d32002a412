package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store/storetest"
)

// Process A is connected to the gateway with its lock in PostgreSQL; the
// backend that holds the lock is terminated (as by a restart, a failover
// or an idle-connection killer), and process B, the same bot on the same
// database, starts at once. Never do both answer: either A took its lock
// again and B is refused, or B got the lock first and A stopped its
// gateway connection and exited with the reason, naming B's session.
// Either way the bot still answers, once.
func TestE2EGatewayLockLost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := discordtest.NewServer("lock-e2e-secret-token-" + fmt.Sprint(time.Now().UnixNano()))
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	env := map[string]string{
		"DISCORD_TOKEN":    srv.Token,
		"DISCORD_API_URL":  srv.APIURL,
		"DISCORD_GUILD_ID": guild,
		"DATABASE_URL":     dbURL,
		"LOG_LEVEL":        "debug",
	}
	a := startBotProcess(t, "A", env)
	if err := a.waitReady(ctx); err != nil {
		t.Fatalf("%v\n%s", err, a.tail(4000))
	}

	// The lock's connection is named after the lock, which is named after
	// a hash of the token (main's gatewayLocks).
	sum := sha256.Sum256([]byte(srv.Token))
	app := "tttbot lock gateway-" + hex.EncodeToString(sum[:4])
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var pid int
	if err := db.QueryRow(ctx, "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&pid); err != nil || pid == 0 {
		t.Fatalf("the backend of A's gateway lock: %d, %v", pid, err)
	}
	var ok bool
	if err := db.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
	}
	killed := time.Now()
	b := startBotProcess(t, "B", env)

	bReady := make(chan error, 1)
	go func() { bReady <- b.waitReady(ctx) }()
	var answering *botProcess
	select {
	case <-b.exited:
		if !strings.Contains(b.tail(4000), "another tttbot process is already connected to the gateway as this bot") || b.err == nil {
			t.Errorf("B exited (%v) without saying that A has the gateway:\n%s", b.err, b.tail(4000))
		}
		if err := a.waitLog(ctx, "took the gateway lock again"); err != nil {
			t.Fatalf("B was refused, and A did not take its lock again: %v\n%s", err, a.tail(4000))
		}
		t.Logf("B was refused %v after the kill", time.Since(killed).Round(time.Millisecond)) // a figure, not a verdict
		if n := len(srv.Identifies()); n != 1 {
			t.Errorf("%d gateway connections identified; want A's alone", n)
		}
		answering = a
	case err := <-bReady:
		if err != nil {
			t.Fatalf("B neither started nor was refused: %v\n%s", err, b.tail(4000))
		}
		// B took the lock before A could: A must have stopped.
		select {
		case <-a.exited:
		case <-ctx.Done():
			t.Fatalf("B runs, and so does A:\nA:\n%s\nB:\n%s", a.tail(4000), b.tail(4000))
		}
		if a.err == nil || !strings.Contains(a.logs.String(), "another tttbot process took the gateway lock") {
			t.Errorf("A exited (%v) without saying that B took its lock:\n%s", a.err, a.tail(4000))
		}
		// A stops only for a lock that B's session holds, not for its own
		// old session, which the server may still hold a moment after it
		// said that it ended: A names the holder, and B holds it now.
		var holder int
		if err := db.QueryRow(ctx, `SELECT coalesce(max(a.pid), 0) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
			WHERE a.application_name = $1 AND l.locktype = 'advisory' AND l.granted`, app).Scan(&holder); err != nil || holder == 0 || holder == pid {
			t.Fatalf("the gateway lock's holder once B runs: %d, %v (A's killed session was %d)", holder, err, pid)
		}
		if want := fmt.Sprintf("by the session of server process [%d]", holder); !strings.Contains(a.logs.String(), want) {
			t.Errorf("A stopped, but not for B's session (server process %d): its log does not say %q:\n%s", holder, want, a.tail(4000))
		}
		answering = b
	}
	t.Logf("the gateway stayed with %s", answering.name)

	alice := srv.NewMember("alice")
	in := srv.SlashCommand(guild, srv.NewID(), alice, "ttt", discordtest.Sub("about"))
	if err := srv.Send(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Response(ctx); err != nil {
		t.Fatalf("/ttt about after the lock was lost: %v", err)
	}
	stop, cancelStop := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelStop()
	if err := answering.stop(stop); err != nil {
		t.Errorf("%s exited with %v; want status 0 after SIGTERM", answering.name, err)
	}
}
