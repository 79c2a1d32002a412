package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
)

// The binary, built and started as a user starts it (go build, a .env file
// in the working directory), connects to the fake Discord, answers, and
// exits 0 on SIGTERM.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := botBinary(t)
	srv := discordtest.NewServer("binary-secret-token")
	defer srv.Close()
	guild := srv.NewID()
	env := fmt.Sprintf("DISCORD_TOKEN=%s\nDISCORD_API_URL=%s\nDISCORD_GUILD_ID=%s\nMETRICS_ADDR=127.0.0.1:0\n", srv.Token, srv.APIURL, guild)
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(env), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var logs logtest.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.WaitCommands(ctx, guild); err != nil {
		t.Fatalf("commands: %v\nlog:\n%s", err, logs.String())
	}
	in := srv.SlashCommand(guild, srv.NewID(), srv.NewMember("alice"), "ttt", discordtest.Sub("start"))
	if err := srv.Send(ctx, in); err != nil {
		t.Fatal(err)
	}
	r, err := in.Response(ctx)
	if err != nil || r.Ephemeral || !strings.Contains(r.Message.Content, "to move") {
		t.Fatalf("/ttt start: %v %+v; want a board", err, r)
	}
	// The ready line comes after registration and restore: SIGTERM
	// after it checks a plain shutdown (TestBinaryStopsDuringStartup the
	// other case).
	if err := logs.WaitFor(ctx, "msg=ready"); err != nil {
		t.Fatal(err)
	}
	// Docker's HEALTHCHECK: the binary asks the running bot's /readyz.
	addr := logtest.ReadyAddr(t, logs.String(), "metrics")
	check := exec.Command(bin, "-healthcheck")
	check.Env = []string{"METRICS_ADDR=" + addr}
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), "ready") {
		t.Errorf("tttbot -healthcheck (METRICS_ADDR=%s) = %v, %q; want exit 0, ready", addr, err, out)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM the bot exited with %v; want 0\nlog:\n%s", err, logs.String())
		}
	case <-ctx.Done():
		t.Fatalf("the bot did not exit after SIGTERM\nlog:\n%s", logs.String())
	}
	// The ready line says where the games are kept, as an absolute path
	// (./data is relative to the directory the bot started in), and how
	// to invite the bot.
	readyLine := logs.String()[strings.Index(logs.String(), "msg=ready"):]
	readyLine, _, _ = strings.Cut(readyLine, "\n")
	if want := "database=" + filepath.Join(dir, "data", "tttbot.db"); !strings.Contains(readyLine, want) {
		t.Errorf("ready line %q; want %s", readyLine, want)
	}
	if want := `invite="https://discord.com/oauth2/authorize?client_id=` + srv.AppID; !strings.Contains(readyLine, want) {
		t.Errorf("ready line %q; want %s…", readyLine, want)
	}
	if s := logs.String(); !strings.Contains(s, "msg=ready") || !strings.Contains(s, "shutting down") || strings.Contains(s, srv.Token) {
		t.Errorf("log = %q; want ready and shutting down, without the token", s)
	}
}

// SIGTERM while the binary is still starting (connected, not yet ready)
// ends it with status 0, and the default SQLite file is in ./data.
func TestBinaryStopsDuringStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := discordtest.NewServer("binary-startup-token")
	defer srv.Close()
	p := startBotProcess(t, "bot", map[string]string{
		"PATH": os.Getenv("PATH"), "DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.WaitReady(ctx); err != nil {
		t.Fatalf("never identified: %v\nlog:\n%s", err, p.logs.String())
	}
	if err := p.stop(ctx); err != nil {
		t.Errorf("SIGTERM during start-up: %v; want exit 0\nlog:\n%s", err, p.logs.String())
	}
	if _, err := os.Stat(filepath.Join(p.cmd.Dir, "data", "tttbot.db")); err != nil {
		t.Errorf("default database: %v; want data/tttbot.db in the working directory", err)
	}
}
