package discord_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// A click whose message holds a component of a type discordgo does not
// know (one Discord added since) arrives over the gateway whole: its
// type, its data and its message, decoded from the event's bytes, not
// the part discordgo filled before it stopped.
func TestGatewayClickOnUnknownComponent(t *testing.T) {
	srv := discordtest.NewServer("undecoded-token")
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
	defer cancel()
	o := discord.Options{Token: srv.Token, APIURL: srv.APIURL}
	gw, err := discord.OpenWith(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	got := make(chan *discordgo.Interaction, 1)
	gw.Handle(func(i *discordgo.Interaction, _ discord.Responder) { got <- i })

	s, err := discord.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	guild, channel := srv.NewID(), srv.NewID()
	msg := clickable(t, s, channel)
	in := srv.Click(guild, channel, srv.NewMember("alice"), msg.ID, "b")
	in.Extra = map[string]any{"message": map[string]any{"id": msg.ID, "channel_id": channel, "type": 0, "content": "click", "flags": 0,
		"components": []any{
			map[string]any{"type": 1, "id": 1, "components": []any{map[string]any{"type": 2, "id": 2, "custom_id": "b", "label": "B", "style": 1}}},
			map[string]any{"type": 99, "id": 3}, // a component type after discordgo v0.29.0
		}}}
	if err := srv.Send(ctx, in); err != nil {
		t.Fatal(err)
	}
	var i *discordgo.Interaction
	select {
	case i = <-got:
	case <-ctx.Done():
		t.Fatal("the click was not delivered")
	}
	if i.Type != discordgo.InteractionMessageComponent || i.ID != in.ID {
		t.Fatalf("delivered %+v; want the click %s, a MESSAGE_COMPONENT", i, in.ID)
	}
	if d := i.MessageComponentData(); d.CustomID != "b" {
		t.Errorf("custom_id = %q; want b", d.CustomID)
	}
	if i.Message == nil || i.Message.ID != msg.ID || i.ChannelID != channel || i.GuildID != guild {
		t.Errorf("message %+v in channel %s of guild %s; want message %s in %s of %s", i.Message, i.ChannelID, i.GuildID, msg.ID, channel, guild)
	}
	select {
	case again := <-got:
		t.Errorf("the click was delivered twice (again: %+v)", again)
	default:
	}
}

// discordgo does not decode an interaction in a program that imports
// discord: the gateway's event reaches *discordgo.Event handlers with
// its bytes, which DecodeInteraction decodes once, and a
// *discordgo.InteractionCreate handler gets nothing (its decoding of the
// clicked message was most of a click's CPU).
func TestDiscordgoDecodesNoInteraction(t *testing.T) {
	srv := discordtest.NewServer("no-discordgo-decoding-token")
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
	defer cancel()
	s, err := discord.NewSession(discord.Options{Token: srv.Token, APIURL: srv.APIURL})
	if err != nil {
		t.Fatal(err)
	}
	// In order, in discordgo's goroutine: the typed handlers of an event
	// run before the *discordgo.Event ones.
	s.SyncEvents = true
	var typed atomic.Int64
	s.AddHandler(func(*discordgo.Session, *discordgo.InteractionCreate) { typed.Add(1) })
	raw := make(chan []byte, 1)
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.Event) {
		if e.Type == "INTERACTION_CREATE" {
			raw <- e.RawData
		}
	})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	guild, channel := srv.NewID(), srv.NewID()
	msg := clickable(t, s, channel)
	in := srv.Click(guild, channel, srv.NewMember("alice"), msg.ID, "b")
	if err := srv.Send(ctx, in); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-raw:
		i, err := discord.DecodeInteraction(b)
		if err != nil || i.ID != in.ID || i.Type != discordgo.InteractionMessageComponent {
			t.Fatalf("the event decodes to %+v, %v; want the click %s", i, err, in.ID)
		}
	case <-ctx.Done():
		t.Fatal("the interaction's event did not arrive")
	}
	if n := typed.Load(); n != 0 {
		t.Errorf("discordgo decoded the interaction for %d *discordgo.InteractionCreate handler(s); want none", n)
	}
}

// clickable posts, through s, a message in channel with one button, "b".
func clickable(t *testing.T, s *discordgo.Session, channel string) *discordgo.Message {
	t.Helper()
	msg, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Content: "click", Components: []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{CustomID: "b", Label: "B", Style: discordgo.PrimaryButton}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}
