package main

import (
	"context"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// gatewayTransport dispatches interactions over the gateway of the fake
// Discord (discord/discordtest), which checks every callback as Discord
// does. The fake keeps everything it is sent, so runs should be short.
// Latency is the fake's: from the dispatch to the callback's arrival.
type gatewayTransport struct {
	srv     *discordtest.Server
	guildID string
}

func newGatewayTransport(token string) *gatewayTransport {
	srv := discordtest.NewServer(token)
	return &gatewayTransport{srv: srv, guildID: srv.NewID()}
}

func (t *gatewayTransport) name() string { return "gateway" }

func (t *gatewayTransport) env() []string {
	return []string{"DISCORD_API_URL=" + t.srv.APIURL}
}

func (t *gatewayTransport) ready(*botProcess, int) error {
	return t.srv.WaitReady(context.Background())
}

func (t *gatewayTransport) close() { t.srv.Close() }

func (t *gatewayTransport) member(p player) discordtest.Member {
	return discordtest.Member{
		User:        &discordgo.User{ID: p.id, Username: p.name, GlobalName: p.name, Discriminator: "0"},
		Permissions: discordtest.DefaultPermissions,
	}
}

func (t *gatewayTransport) send(ctx context.Context, c *chanState) outcome {
	var in *discordtest.Interaction
	switch c.next {
	case stepStart:
		in = t.srv.SlashCommand(t.guildID, c.id, t.member(c.a), "ttt",
			discordtest.Sub("start", discordtest.User("opponent", t.member(c.b)), discordtest.Int("size", int64(c.size))))
	case stepAccept:
		in = t.srv.Click(t.guildID, c.id, t.member(c.b), c.messageID, "accept/"+c.challenge)
	case stepMove:
		row, col, p := c.cell(c.k)
		in = t.srv.SlashCommand(t.guildID, c.id, t.member(p), "ttt",
			discordtest.Sub("move", discordtest.Int("row", int64(row)), discordtest.Int("col", int64(col))))
	default:
		in = t.srv.SlashCommand(t.guildID, c.id, t.member(c.a), "ttt", discordtest.Sub("resign"))
	}
	if err := t.srv.Send(ctx, in); err != nil {
		return outcome{text: err.Error()}
	}
	r, err := in.Response(ctx)
	if err != nil {
		return outcome{text: err.Error()}
	}
	o := outcome{answered: true, latency: r.At, ephemeral: r.Ephemeral, messageID: r.Message.ID}
	content := r.Message.Content
	o.internal = strings.Contains(content, "Something went wrong")
	o.busy = strings.Contains(content, "busy with another")
	o.over = strings.Contains(content, " wins with ") || strings.Contains(content, "Draw:")
	for _, b := range r.Message.Buttons() {
		if id, ok := strings.CutPrefix(b.CustomID, "accept/"); ok {
			o.challenge = id
		}
	}
	if o.ephemeral || o.internal {
		o.text = content[:min(len(content), 100)]
	}
	return o
}
