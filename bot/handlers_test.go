package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// An open challenge pings nobody and offers Join; a passer-by cannot
// decline it for the others; the first to join plays O against its
// challenger.
func TestOpenChallenge(t *testing.T) {
	b, rec, _ := newTestBot(t)
	start := slashPayload(t, "start", []map[string]any{{"type": 5, "name": "open", "value": true}}, nil)
	b.serveIC(context.Background(), start)
	r := rec.last(t)
	if r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, "Anyone can press **Join**") {
		t.Fatalf("/ttt start open:true answered %q; want a public open challenge", r.Data.Content)
	}
	if am := r.Data.AllowedMentions; am == nil || len(am.Users) != 0 || len(am.Parse) != 0 {
		t.Errorf("allowed mentions %+v; want nobody pinged", am)
	}
	var join, withdraw string
	for _, c := range r.Data.Components[0].(discordgo.ActionsRow).Components {
		switch btn := c.(discordgo.Button); btn.Label {
		case "Join":
			join = btn.CustomID
		case "Withdraw":
			withdraw = btn.CustomID
		}
	}
	if join == "" || withdraw == "" {
		t.Fatalf("buttons %+v; want Join and Withdraw", r.Data.Components)
	}
	click := func(user, customID string) *discordgo.InteractionResponse {
		t.Helper()
		ic := buttonPayload(t, customID)
		ic.ChannelID, ic.Member.User.ID = start.ChannelID, user
		b.serveIC(context.Background(), ic)
		return rec.last(t)
	}
	wantEphemeral(t, click("3", withdraw), "open to everyone")
	wantEphemeral(t, click(mason, join), "your own challenge")

	r = click("3", join)
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("Join answered %+v; want the challenge message turned into the board", r)
	}
	ch, err := b.tables.lock(context.Background(), start.ChannelID, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.tables.unlock(ch)
	if m := ch.match; m == nil || m.Players[game.X] != mason || m.Players[game.O] != "3" || m.Computer != game.None {
		t.Fatalf("after Join the game is %+v; want mason X against 3 O", m)
	}
}

// In a DM with the bot there is nobody to challenge: a challenge is
// refused in plain words, and a game against the bot starts.
func TestStartInDM(t *testing.T) {
	b, rec, _ := newTestBot(t)
	dm := func(opts []map[string]any, resolved map[string]any) *discordgo.InteractionCreate {
		m := localized(slashMap(t, "start", opts, resolved), "en-US", "")
		m["context"] = int(discordgo.InteractionContextBotDM)
		return decode(t, m)
	}
	b.serveIC(context.Background(), dm([]map[string]any{{"type": 5, "name": "open", "value": true}}, nil))
	wantEphemeral(t, rec.last(t), "In a DM with me you play me")
	b.serveIC(context.Background(), dm(nil, nil))
	if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, "vs") {
		t.Errorf("/ttt start in a DM answered %q; want a board against the bot", r.Data.Content)
	}
}

// A click on a board that a newer message of the same game replaced (one
// whose deletion failed, say, once its token expired) is refused as out of
// date, and changes nothing.
func TestClickOnReplacedBoard(t *testing.T) {
	b, rec, _ := newTestBot(t)
	start := slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil)
	b.serveIC(context.Background(), start)
	first := rec.last(t)
	b.serveIC(context.Background(), slashPayload(t, "board", nil, nil)) // a newer board message
	cell := first.Data.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.Button).CustomID
	ic := buttonPayload(t, cell)
	ic.ChannelID = start.ChannelID
	before := moves(t, b, ic)
	b.serveIC(context.Background(), ic)
	wantEphemeral(t, rec.last(t), "out of date")
	if after := moves(t, b, ic); after != before {
		t.Errorf("a click on a replaced board changed the game: %d moves; want %d", after, before)
	}
}

// A draw offer goes to the opponent, who declines or accepts it with a
// button; a move withdraws it; an accepted draw ends the game as a draw,
// counted for both, and its board says so. The computer plays on.
func TestDrawOffer(t *testing.T) {
	st := new(store.Memory)
	rec := &recorder{}
	b := newBotOn(t, st, rec)
	defer b.Close()
	channel := slashPayload(t, "board", nil, nil).ChannelID
	if err := st.Save(context.Background(), runningRecord(t, channel, time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	const opponent = "2"
	slash := func(user, sub string, opts ...map[string]any) *discordgo.InteractionResponse {
		t.Helper()
		ic := slashPayload(t, sub, opts, nil)
		ic.Member.User.ID = user
		b.serveIC(context.Background(), ic)
		return rec.last(t)
	}
	click := func(user, customID string) *discordgo.InteractionResponse {
		t.Helper()
		ic := buttonPayload(t, customID)
		ic.ChannelID, ic.Member.User.ID = channel, user
		b.serveIC(context.Background(), ic)
		return rec.last(t)
	}
	offer := func(user string) (yes, no string) {
		t.Helper()
		r := slash(user, "draw")
		if r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, "a draw") {
			t.Fatalf("/ttt draw answered %q; want a public offer", r.Data.Content)
		}
		for _, c := range r.Data.Components[0].(discordgo.ActionsRow).Components {
			switch id := c.(discordgo.Button).CustomID; {
			case strings.HasPrefix(id, actDrawYes+"/"):
				yes = id
			case strings.HasPrefix(id, actDrawNo+"/"):
				no = id
			}
		}
		return yes, no
	}
	stored := func() *store.Game {
		t.Helper()
		g, err := st.Current(context.Background(), channel)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	yes, no := offer(mason)
	if g := stored(); g.DrawOffer != game.X {
		t.Fatalf("stored offer %v; want X's", g.DrawOffer)
	}
	wantEphemeral(t, slash(mason, "draw"), "already waiting")
	wantEphemeral(t, click(mason, yes), "your own offer")
	wantEphemeral(t, click("3", yes), "Only the players")
	if r := click(opponent, no); r.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(r.Data.Content, "declined") {
		t.Fatalf("Decline answered %+v; want the offer message saying it was declined", r)
	}
	if g := stored(); g.DrawOffer != game.None || !g.Running() {
		t.Fatalf("after the decline: offer %v, running %v; want no offer, the game on", g.DrawOffer, g.Running())
	}

	yes, _ = offer(mason)
	slash(mason, "move", intOpt("row", 1), intOpt("col", 1)) // playing on withdraws it
	wantEphemeral(t, click(opponent, yes), "no longer open")

	yes, _ = offer(opponent)
	if r := click(mason, yes); !strings.Contains(r.Data.Content, "accepted") {
		t.Fatalf("Accept draw answered %q; want the offer accepted", r.Data.Content)
	}
	g := stored()
	if g.End != game.EndAgreed || g.DrawOffer != game.None {
		t.Fatalf("after the accepted draw: end %v, offer %v; want agreed, none", g.End, g.DrawOffer)
	}
	b.Close() // waits for the board's edit
	if got := lastEdit(t, rec); !strings.Contains(got, "both players agreed") {
		t.Errorf("the board after the draw says %q; want the agreed draw", got)
	}
	s, err := st.Stats(context.Background(), g.GuildID, mason, 0)
	if err != nil || s.People.Draws != 1 {
		t.Errorf("mason's stats %+v, %v; want one draw", s.People, err)
	}
}

// The computer plays every game out.
func TestNoDrawWithTheComputer(t *testing.T) {
	b, rec, _ := newTestBot(t)
	b.serveIC(context.Background(), slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))
	b.serveIC(context.Background(), slashPayload(t, "draw", nil, nil))
	wantEphemeral(t, rec.last(t), "no draws by agreement")
}

// A finished board that a rematch replaced keeps its final position: on
// a board of buttons, the cells stay (disabled) and only Rematch goes; on
// a bigger board, the grid stays in the text.
func TestRetiredBoardShowsFinalPosition(t *testing.T) {
	for n := MinSize; n <= 6; n++ {
		t.Run(fmt.Sprintf("%d×%d", n, n), func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			serveSlash(t, b, "start", intOpt("size", n))
			serveSlash(t, b, "move", intOpt("row", 1), intOpt("col", 1))
			resign := serveSlash(t, b, "resign")
			finished := rec.last(t).Data
			rematch := ""
			for _, c := range finished.Components {
				for _, bc := range c.(discordgo.ActionsRow).Components {
					if id := bc.(discordgo.Button).CustomID; strings.HasPrefix(id, actRematch+"/") {
						rematch = id
					}
				}
			}
			if rematch == "" {
				t.Fatalf("the finished board has no Rematch button: %+v", finished.Components)
			}
			ic := buttonPayload(t, rematch)
			ic.ChannelID, ic.Token = fixtureChannel, "token-rematch"
			b.serveIC(context.Background(), ic)
			b.Close()

			rec.mu.Lock()
			defer rec.mu.Unlock()
			var e *discordgo.WebhookEdit
			for i, ref := range rec.editRefs {
				if ref == resign.Token {
					e = rec.edits[i]
				}
			}
			if e == nil {
				t.Fatalf("the finished board (token %s) was not edited; edits of %v", resign.Token, rec.editRefs)
			}
			cells, rematches := 0, 0
			for _, c := range *e.Components {
				for _, bc := range c.(discordgo.ActionsRow).Components {
					switch btn := bc.(discordgo.Button); {
					case strings.HasPrefix(btn.CustomID, actRematch+"/"):
						rematches++
					case btn.Emoji != nil:
						cells++
					}
				}
			}
			grid := strings.Count(*e.Content, cellEmpty)
			if rematches != 0 {
				t.Errorf("the replaced board keeps its Rematch button")
			}
			if cells != n*n && grid < n*n-2 {
				t.Errorf("the replaced board shows %d cell buttons and %d empty cells in its text; want its final position:\n%s", cells, grid, *e.Content)
			}
		})
	}
}
