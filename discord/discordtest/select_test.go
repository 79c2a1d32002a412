package discordtest

import (
	"errors"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// A select menu and a modal, as a picker uses them: the choice carries its
// values and the message; a value that is not an option, or a menu that
// is not there, is refused; the modal's submit carries the typed fields
// and the message it was opened on, may be answered by UPDATE_MESSAGE of
// it, and is submitted once.
func TestSelectAndModal(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	in := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("start", User("opponent", g.bob)))
	i := g.send(t, in)
	menu := discordgo.SelectMenu{MenuType: discordgo.StringSelectMenu, CustomID: "row/1", Placeholder: "Pick a row",
		Options: []discordgo.SelectMenuOption{{Label: "Row 1", Value: "1"}, {Label: "Row 2", Value: "2"}}}
	comps := []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{menu}},
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "Move…", Style: discordgo.PrimaryButton, CustomID: "type/1"}}},
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "board", Components: comps}); err != nil {
		t.Fatal(err)
	}
	r, err := in.Response(g.ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg := r.Message

	for _, bad := range []*Interaction{
		g.srv.Select(g.guild, g.channel, g.bob, msg.ID, "row/1", "3"),
		g.srv.Select(g.guild, g.channel, g.bob, msg.ID, "row/2", "1"),
		g.srv.Select(g.guild, g.channel, g.bob, msg.ID, "type/1", "1"),
	} {
		if err := g.srv.Send(g.ctx, bad); !errors.Is(err, ErrUnknownComponent) {
			t.Errorf("Send(select %q %v) = %v; want ErrUnknownComponent", bad.CustomID, bad.Values, err)
		}
	}
	sel := g.srv.Select(g.guild, g.channel, g.bob, msg.ID, "row/1", "2")
	i = g.send(t, sel)
	if d := i.MessageComponentData(); d.ComponentType != discordgo.SelectMenuComponent || d.CustomID != "row/1" || len(d.Values) != 1 || d.Values[0] != "2" ||
		i.Message == nil || i.Message.ID != msg.ID {
		t.Fatalf("select = %+v on %+v; want row/1 = [2] on the board", d, i.Message)
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "row 2 open", Components: comps}); err != nil {
		t.Fatal(err)
	}

	// A modal cannot be submitted before the bot opened one.
	open := g.srv.Click(g.guild, g.channel, g.bob, msg.ID, "type/1")
	if err := g.srv.Send(g.ctx, g.srv.SubmitModal(open, map[string]string{"cell": "1 2"})); !errors.Is(err, ErrNoModal) {
		t.Errorf("Send(submit before the modal) = %v; want ErrNoModal", err)
	}
	i = g.send(t, open)
	modal := &discordgo.InteractionResponseData{CustomID: "typed/1", Title: "Move", Components: []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.TextInput{CustomID: "cell", Label: "Row and column", Style: discordgo.TextInputShort, Required: true}}},
	}}
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, modal); err != nil {
		t.Fatal(err)
	}
	if _, err := open.Response(g.ctx); err != nil {
		t.Fatal(err)
	}
	for _, fields := range []map[string]string{{}, {"cell": "1 2", "other": "x"}} {
		if err := g.srv.Send(g.ctx, g.srv.SubmitModal(open, fields)); !errors.Is(err, ErrNoModal) {
			t.Errorf("Send(submit %v) = %v; want ErrNoModal", fields, err)
		}
	}
	submit := g.srv.SubmitModal(open, map[string]string{"cell": "1 2"})
	i = g.send(t, submit)
	d := i.ModalSubmitData()
	var typed string
	for _, c := range d.Components {
		if row, ok := c.(*discordgo.ActionsRow); ok {
			for _, cc := range row.Components {
				if ti, ok := cc.(*discordgo.TextInput); ok && ti.CustomID == "cell" {
					typed = ti.Value
				}
			}
		}
	}
	if i.Type != discordgo.InteractionModalSubmit || d.CustomID != "typed/1" || typed != "1 2" || i.Message == nil || i.Message.ID != msg.ID ||
		i.Member.User.ID != g.bob.User.ID {
		t.Fatalf("submit = %+v, typed %q, on %+v; want bob's typed/1 with cell = \"1 2\" on the board", d, typed, i.Message)
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, modal); err == nil {
		t.Error("a modal submit answered with a modal was accepted; Discord refuses it")
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "moved"}); err != nil {
		t.Fatalf("UPDATE_MESSAGE of a modal submit from a component = %v", err)
	}
	r, err = submit.Response(g.ctx)
	if err != nil || r.Type != discordgo.InteractionResponseUpdateMessage || r.Message.ID != msg.ID || r.Message.Content != "moved" {
		t.Fatalf("Response() = %+v, %v; want the board updated", r, err)
	}
	if err := g.srv.Send(g.ctx, g.srv.SubmitModal(open, map[string]string{"cell": "2 2"})); !errors.Is(err, ErrNoModal) {
		t.Errorf("Send(second submit) = %v; want ErrNoModal", err)
	}
	if got := g.srv.Rejected(); len(got) != 1 {
		t.Errorf("Rejected() = %v; want the modal answering a modal", got)
	}
}
