package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// firstCell returns the custom_id of the top left cell of a board answer.
func firstCell(t *testing.T, r *discordgo.InteractionResponse) string {
	t.Helper()
	if len(r.Data.Components) == 0 {
		t.Fatalf("the answer %q has no buttons", r.Data.Content)
	}
	return r.Data.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.Button).CustomID
}

// clickIn is a click on customID in channelID, with a token of its own.
func clickIn(t *testing.T, channelID, customID string) *discordgo.InteractionCreate {
	t.Helper()
	ic := buttonPayload(t, customID)
	ic.ChannelID, ic.Token = channelID, "token-"+ic.ID
	return ic
}

// Every refusal names the real reason: a board of another channel is not
// "a game that is over", a board of a game that /ttt stop just ended does
// not "continue in a newer message".
func TestRefusalsAreTrue(t *testing.T) {
	l := english()
	t.Run("board of another channel", func(t *testing.T) {
		b, rec, _ := newTestBot(t)
		serveSlash(t, b, "start")
		cell := firstCell(t, rec.last(t))
		b.serveIC(context.Background(), clickIn(t, "777", cell)) // no game there
		wantEphemeral(t, rec.last(t), l.T("move.not_here", nil))

		other := slashPayload(t, "start", nil, nil)
		other.ChannelID = "778"
		b.serveIC(context.Background(), other) // a game of its own there
		b.serveIC(context.Background(), clickIn(t, "778", cell))
		wantEphemeral(t, rec.last(t), l.T("move.other_game", nil))
	})
	t.Run("old board after stop", func(t *testing.T) {
		b, rec, _ := newTestBot(t)
		serveSlash(t, b, "start")
		cell := firstCell(t, rec.last(t))
		serveSlash(t, b, "stop")
		b.serveIC(context.Background(), clickIn(t, fixtureChannel, cell))
		wantEphemeral(t, rec.last(t), l.T("move.game_over", nil))
	})
}

// replicas are two processes sharing one store, each answering through a
// Discord of its own.
func replicas(t *testing.T, st wholeStore) (a, b *Bot, ra, rb *recorder) {
	t.Helper()
	ra, rb = new(recorder), new(recorder)
	a, b = newBotOn(t, st, ra), newBotOn(t, st, rb)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	return a, b, ra, rb
}

// wantBoardAnswer checks that r answers typ with the public board of the
// game in the fixture's channel, not a refusal.
func wantBoardAnswer(t *testing.T, r *discordgo.InteractionResponse, typ discordgo.InteractionResponseType) {
	t.Helper()
	if r.Type != typ || r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, header(english())) {
		t.Errorf("the second process answered type %d %q; want type %d with the board", r.Type, r.Data.Content, typ)
	}
}

// When Discord delivers one interaction to two replicas, the one that
// comes second finds the move already made, by the interaction itself: it
// answers with the board, as the first did, not "it's not your turn" nor
// "someone else was faster", and plays nothing more.
func TestSameInteractionOnTwoReplicas(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		ic   func(t *testing.T, cell string) *discordgo.InteractionCreate
		typ  discordgo.InteractionResponseType
	}{
		{"click", func(t *testing.T, cell string) *discordgo.InteractionCreate { return clickIn(t, fixtureChannel, cell) },
			discordgo.InteractionResponseUpdateMessage},
		{"/ttt move", func(t *testing.T, _ string) *discordgo.InteractionCreate {
			ic := slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil)
			ic.Token = "token-" + ic.ID
			return ic
		}, discordgo.InteractionResponseChannelMessageWithSource},
	} {
		t.Run(tt.name+", one after the other", func(t *testing.T) {
			a, b, ra, rb := replicas(t, new(store.Memory))
			serveSlash(t, a, "start")
			ic := tt.ic(t, firstCell(t, ra.last(t)))
			a.serveIC(ctx, ic)
			before := moves(t, a, ic)
			b.serveIC(ctx, ic)
			wantBoardAnswer(t, rb.last(t), tt.typ)
			if after := moves(t, b, ic); after != before {
				t.Errorf("%d moves after the second delivery; want %d", after, before)
			}
		})
		for _, held := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, the first saves while the second plays, held %v", tt.name, held), func(t *testing.T) {
				st := &saveHook{Memory: new(store.Memory)}
				a, b, ra, rb := replicas(t, st)
				serveSlash(t, a, "start")
				ic := tt.ic(t, firstCell(t, ra.last(t)))
				// b holds the game from a load of its own, or loads it for
				// this move; a saves the same interaction's move just
				// before b saves its.
				if held {
					if err := b.tables.catchUp(ctx, fixtureChannel); err != nil {
						t.Fatal(err)
					}
				}
				st.before = func() { a.serveIC(ctx, ic) }
				b.serveIC(ctx, ic)
				if st.before != nil {
					t.Fatal("the second process saved nothing")
				}
				wantBoardAnswer(t, rb.last(t), tt.typ)
				if got, want := moves(t, b, ic), moves(t, a, ic); got != want {
					t.Errorf("%d moves seen by the second process; want %d", got, want)
				}
			})
		}
	}
}

// saveHook is a memory store that calls before, once, ahead of the next
// save.
type saveHook struct {
	*store.Memory
	before func()
}

func (s *saveHook) Save(ctx context.Context, g *store.Game) error {
	if f := s.before; f != nil {
		s.before = nil
		f()
	}
	return s.Memory.Save(ctx, g)
}

// Every text a refusal map names is in the catalog.
func TestRefusalMapsNameTexts(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range catalogKeys(t) {
		keys[k] = true
	}
	for _, rs := range []refusals{moveRefusals, resignRefusals, offerDrawRefusals, answerDrawRefusals,
		acceptRefusals, joinRefusals, declineRefusals, withdrawRefusals, rematchRefusals} {
		for _, r := range rs {
			if !keys[r.key] {
				t.Errorf("the refusal of %v is %q, which the catalog does not have", r.err, r.key)
			}
		}
	}
}
