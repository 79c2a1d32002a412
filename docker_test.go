package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// imageEnv returns the ENV settings of the Dockerfile's last stage, the
// image users run.
func imageEnv(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "FROM":
			clear(env) // a new stage starts from its base image
		case len(f) == 2 && f[0] == "ENV":
			k, v, ok := strings.Cut(f[1], "=")
			if !ok {
				t.Fatalf("Dockerfile: %q: want ENV KEY=value", strings.TrimSpace(line))
			}
			env[k] = v
		}
	}
	return env
}

// envFile reads path as docker run --env-file does: each line literally,
// KEY=value with no quotes or comments after the value, "#" lines and
// blank lines skipped, and a bare KEY taken from the caller's environment
// (here: nothing).
func envFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return env
}

// The README's Docker recipe: docker run --env-file .env with .env copied
// from .env.example and only the token filled in. The file's lines win
// over the image's ENV, and the bot must still keep its games in the
// volume (/data/tttbot.db, not /data/data/tttbot.db below the image's
// working directory) and serve the HEALTHCHECK's /readyz on :9090.
func TestDockerRecipeEnvironment(t *testing.T) {
	img := imageEnv(t)
	if img["DATABASE_URL"] != "/data/tttbot.db" || img["METRICS_ADDR"] != ":9090" {
		t.Fatalf("the image's ENV is %v; want DATABASE_URL=/data/tttbot.db and METRICS_ADDR=:9090, which this test checks", img)
	}
	env := img
	for k, v := range envFile(t, ".env.example") {
		env[k] = v
	}
	env["DISCORD_TOKEN"] = "filled-in-by-the-user"
	cfg, err := loadConfig(settings(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil))
	if err != nil {
		t.Fatalf("loadConfig with the image's ENV and .env.example: %v", err)
	}
	if cfg.database.kind != "sqlite" || cfg.database.target != "/data/tttbot.db" {
		t.Errorf("database = %s %s; want sqlite /data/tttbot.db (the image's DATABASE_URL)", cfg.database.kind, cfg.database.target)
	}
	if cfg.metricsAddr != ":9090" {
		t.Errorf("METRICS_ADDR = %q; want :9090 (the image's), which HEALTHCHECK asks", cfg.metricsAddr)
	}
}

// An empty variable is unset, in the environment and in .env alike: it
// neither hides .env's value nor replaces a default.
func TestSettingsEmptyIsUnset(t *testing.T) {
	environ := map[string]string{"A": "", "B": " ", "C": "env", "E": ""}
	dotenv := map[string]string{"A": "file", "B": "file", "C": "file", "D": "file", "E": ""}
	get := settings(func(k string) (string, bool) { v, ok := environ[k]; return v, ok }, dotenv)
	for k, want := range map[string]string{"A": "file", "B": "file", "C": "env", "D": "file", "E": "", "F": ""} {
		if got := get(k); got != want {
			t.Errorf("setting %s = %q; want %q (environment %q, .env %q)", k, got, want, environ[k], dotenv[k])
		}
	}
}
