package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// A signed /ttt start that replica A acted on, replayed within the
// signature's window to replica B on the same PostgreSQL, is answered
// that it came twice and starts nothing: the replicas share what they
// acted on through the database.
func TestE2EReplayToTheOtherReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := discordtest.NewServer("replay-secret-token")
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	procs := startReplicas(t, ctx, func(int) map[string]string {
		return map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL, "DISCORD_GUILD_ID": guild,
			"DATABASE_URL": dbURL, "INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey()}
	})
	srv.UseEndpoint("http://" + procs[0].listening(t, "interactions") + "/interactions")

	alice, channel := srv.NewMember("alice"), srv.NewID()
	send := func(in *discordtest.Interaction) *discordtest.Response {
		t.Helper()
		if err := srv.Send(ctx, in); err != nil {
			t.Fatal(err)
		}
		r, err := in.Response(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	start := srv.SlashCommand(guild, channel, alice, "ttt", discordtest.Sub("start", computerLevel()))
	wantBoard(t, send(start), discordgo.InteractionResponseChannelMessageWithSource)
	wantBoard(t, send(srv.SlashCommand(guild, channel, alice, "ttt", discordtest.Sub("resign"))), discordgo.InteractionResponseChannelMessageWithSource)

	body, err := start.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+procs[1].listening(t, "interactions")+"/interactions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = srv.Sign(body, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data struct {
			Content string                 `json:"content"`
			Flags   discordgo.MessageFlags `json:"flags"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatalf("the replay's answer: %v", err)
	}
	if answer.Type != discordgo.InteractionResponseChannelMessageWithSource || answer.Data.Flags&discordgo.MessageFlagsEphemeral == 0 ||
		!strings.Contains(answer.Data.Content, "twice") {
		t.Errorf("the replay to replica B was answered %+v; want an ephemeral message that it came twice", answer)
	}
	db, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.CountGames(ctx); err != nil || n != 1 {
		t.Errorf("games after the replay = %d, %v; want 1", n, err)
	}
}
