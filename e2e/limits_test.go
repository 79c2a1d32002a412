package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store/storetest"
)

// A player's challenges waiting for an answer are counted where both
// replicas see them: alice challenges bob in four channels through replica
// A, and bob accepts each through replica B; none waits any more, so the
// fourth is opened. Three that do wait, opened through either replica,
// make a fourth refused through either.
func TestOpenChallengesOnTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two bot binaries")
	}
	t.Parallel() // it mostly waits for processes
	dbURL := storetest.PostgresURL(t)
	botBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := discordtest.NewServer("limits-replicas-secret-token")
	t.Cleanup(srv.Close)
	guild := srv.NewID()
	procs := httpReplicas(t, ctx, srv, guild, dbURL)
	// send sends in through replica i (0: A, 1: B) and returns its answer.
	send := func(i int, in *discordtest.Interaction) *discordtest.Response {
		t.Helper()
		srv.UseEndpoint("http://" + procs[i].listening(t, "interactions") + "/interactions")
		if err := srv.Send(ctx, in); err != nil {
			t.Fatal(err)
		}
		r, err := in.Response(ctx)
		if err != nil {
			t.Fatalf("%s: %v", describeInteraction(in), err)
		}
		return r
	}
	alice, bob := srv.NewMember("alice"), srv.NewMember("bob")
	challenge := func(i int, ch string) *discordtest.Response {
		t.Helper()
		return send(i, srv.SlashCommand(guild, ch, alice, "ttt", discordtest.Sub("start", discordtest.User("opponent", bob))))
	}
	for n := range 4 {
		ch := srv.NewID()
		r := challenge(0, ch)
		if r.Ephemeral {
			t.Fatalf("challenge %d through A, the others accepted through B, was answered %q; want it open", n+1, r.Message.Content)
		}
		accept := ""
		for _, b := range r.Message.Buttons() {
			if strings.HasPrefix(b.CustomID, "accept/") {
				accept = b.CustomID
			}
		}
		if r := send(1, srv.Click(guild, ch, bob, r.Message.ID, accept)); r.Ephemeral {
			t.Fatalf("bob's accept through B was answered %q; want the board", r.Message.Content)
		}
	}
	for n, i := range []int{0, 0, 1} {
		if r := challenge(i, srv.NewID()); r.Ephemeral {
			t.Fatalf("waiting challenge %d through replica %d was answered %q; want it open", n+1, i, r.Message.Content)
		}
	}
	for i := range 2 {
		r := challenge(i, srv.NewID())
		if want := "You already have 3 challenges waiting"; !r.Ephemeral || !strings.Contains(r.Message.Content, want) {
			t.Errorf("a fourth waiting challenge through replica %d was answered %q; want %q", i, r.Message.Content, want)
		}
	}
	for i, err := range stopBoth(ctx, procs) {
		if err != nil {
			t.Errorf("%s: %v", procs[i].name, err)
		}
	}
}
