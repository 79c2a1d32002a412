package main

import "testing"

// Boards get the Open board button only when the bot serves the live
// board and can sign its users in: WEB_ADDR and DISCORD_CLIENT_SECRET
// both set (one without the other is refused, TestLoadConfig).
func TestLoadConfigActivity(t *testing.T) {
	for _, tt := range []struct {
		web, secret string
		want        bool
	}{
		{"", "", false},
		{" ", " ", false},
		{":8081", "s3cret", true},
	} {
		env := map[string]string{"DISCORD_TOKEN": "abc", "WEB_ADDR": tt.web, "DISCORD_CLIENT_SECRET": tt.secret}
		c, err := loadConfig(func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("WEB_ADDR %q, DISCORD_CLIENT_SECRET %q: %v", tt.web, tt.secret, err)
		}
		if c.bot.Activity != tt.want {
			t.Errorf("WEB_ADDR %q, DISCORD_CLIENT_SECRET %q: Activity %v; want %v", tt.web, tt.secret, c.bot.Activity, tt.want)
		}
	}
}
