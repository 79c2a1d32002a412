package discord_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord"
)

// closedAPIURL returns a DISCORD_API_URL on a loopback port nothing
// listens on.
func closedAPIURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/api/v9"
}

// A start that cannot reach DISCORD_API_URL says so with that URL, not
// with the discord.com one discordgo built the request for.
func TestUnreachableAPINamesItsURL(t *testing.T) {
	api := closedAPIURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tt := range []struct {
		name string
		open func(discord.Options) error
		path string
	}{
		{"gateway", func(o discord.Options) error { _, err := discord.OpenWith(ctx, o); return err }, "/gateway"},
		{"auto shards", func(o discord.Options) error {
			o.AutoShards = true
			_, err := discord.OpenWith(ctx, o)
			return err
		}, "/gateway/bot"},
		{"login", func(o discord.Options) error { _, _, err := discord.Login(ctx, o); return err }, "/users/@me"},
	} {
		err := tt.open(discord.Options{Token: "t", APIURL: api})
		if err == nil || !strings.Contains(err.Error(), api+tt.path) || strings.Contains(err.Error(), "discord.com") {
			t.Errorf("%s with DISCORD_API_URL=%s: %v; want an error naming %s%s, not discord.com", tt.name, api, err, api, tt.path)
		}
	}
}
