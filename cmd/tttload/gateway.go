package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// gatewayTransport dispatches interactions over the gateway of the fake
// Discord (discord/discordtest), which checks every callback as Discord
// does. The fake keeps everything it is sent, so runs should be short.
// Latency is the fake's: from the dispatch to the callback's arrival.
//
// The fake serves REST over plain HTTP/1.1, on which the bot's HTTP client
// (two idle connections per host) dials a new connection for most calls
// under load; discord.com speaks HTTP/2 over TLS, one connection for all.
// With restTLS the bot's REST calls go through a TLS, HTTP/2 reverse proxy
// in this process instead, so that the bot's side costs what it would in
// production.
type gatewayTransport struct {
	srv     *discordtest.Server
	guildID string
	proxy   *http.Server
	apiURL  string
	caFile  string
}

func newGatewayTransport(token string, restTLS bool, dir string) (*gatewayTransport, error) {
	srv := discordtest.NewServer(token)
	t := &gatewayTransport{srv: srv, guildID: srv.NewID(), apiURL: srv.APIURL}
	if !restTLS {
		return t, nil
	}
	target, err := url.Parse(srv.APIURL)
	if err != nil {
		srv.Close()
		return nil, err
	}
	target.Path = ""
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, err
	}
	t.caFile = filepath.Join(dir, "proxy-ca.pem")
	tlsConfig, err := selfSigned(t.caFile)
	if err != nil {
		ln.Close()
		srv.Close()
		return nil, err
	}
	t.proxy = &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: tlsConfig}
	go func() { _ = t.proxy.ServeTLS(ln, "", "") }()
	t.apiURL = "https://" + ln.Addr().String() + "/api/v9"
	return t, nil
}

func (t *gatewayTransport) env() []string {
	env := []string{"DISCORD_API_URL=" + t.apiURL}
	if t.caFile != "" {
		env = append(env, "SSL_CERT_FILE="+t.caFile)
	}
	return env
}

func (t *gatewayTransport) ready(*botProcess, int) error {
	return t.srv.WaitReady(context.Background())
}

func (t *gatewayTransport) close() {
	if t.proxy != nil {
		_ = t.proxy.Close()
	}
	t.srv.Close()
}

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
		if c.clicks || c.picker { // a picker's cell is a button of the row picked
			in = t.srv.Click(t.guildID, c.id, t.member(p), c.messageID, cellID(c.cells, row, col))
			break
		}
		in = t.srv.SlashCommand(t.guildID, c.id, t.member(p), "ttt",
			discordtest.Sub("move", discordtest.Int("row", int64(row)), discordtest.Int("col", int64(col))))
	case stepPick:
		row, _, p := c.cell(c.k)
		in = t.srv.Select(t.guildID, c.id, t.member(p), c.messageID, c.rows, strconv.Itoa(row))
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
		if o.cells == "" {
			o.cells = cellsOf(b.CustomID)
		}
	}
	for _, m := range r.Message.SelectMenus() {
		if strings.HasPrefix(m.CustomID, "row/") {
			o.rows = m.CustomID
		}
	}
	if o.ephemeral || o.internal {
		o.text = shorten(content, 100)
	}
	return o
}
