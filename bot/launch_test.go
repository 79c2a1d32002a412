package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// The values discordgo lacks are the ones Discord documents: the command
// type PRIMARY_ENTRY_POINT 4 and the handlers APP_HANDLER 1 and
// DISCORD_LAUNCH_ACTIVITY 2 in "Application Command Types" and "Entry
// Point Command Handler Types" of developers/interactions/
// application-commands.mdx, the callback type LAUNCH_ACTIVITY 12 in
// "Interaction Callback Type" of developers/interactions/
// receiving-and-responding.mdx (github.com/discord/discord-api-docs,
// c98d64bc, August 2026). They do not collide with discordgo's own.
func TestActivityConstantsAreDiscords(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"PRIMARY_ENTRY_POINT", int(PrimaryEntryPointCommand), 4},
		{"LAUNCH_ACTIVITY", int(InteractionResponseLaunchActivity), 12},
		{"APP_HANDLER", int(EntryPointAppHandler), 1},
		{"DISCORD_LAUNCH_ACTIVITY", int(EntryPointDiscordLaunchActivity), 2},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d; Discord documents %d", c.name, c.got, c.want)
		}
	}
	for _, known := range []discordgo.ApplicationCommandType{discordgo.ChatApplicationCommand,
		discordgo.UserApplicationCommand, discordgo.MessageApplicationCommand} {
		if known == PrimaryEntryPointCommand {
			t.Errorf("PRIMARY_ENTRY_POINT collides with discordgo's command type %d", known)
		}
	}
	for _, known := range []discordgo.InteractionResponseType{discordgo.InteractionResponsePong,
		discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource,
		discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseUpdateMessage,
		discordgo.InteractionApplicationCommandAutocompleteResult, discordgo.InteractionResponseModal} {
		if known == InteractionResponseLaunchActivity {
			t.Errorf("LAUNCH_ACTIVITY collides with discordgo's callback type %d", known)
		}
	}
}

// launchIn returns the custom_id of the Open board button in comps, and
// the row it is in; "" and -1 if there is none.
func launchIn(comps []discordgo.MessageComponent) (string, int) {
	for i, c := range comps {
		row, ok := c.(discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, bc := range row.Components {
			if b, ok := bc.(discordgo.Button); ok {
				if r, err := parseRoute(b.CustomID); err == nil && r.action == actLaunch {
					return b.CustomID, i
				}
			}
		}
	}
	return "", -1
}

// Every current board has an Open board button where the bot serves the
// live board: in a row of its own under the cells up to 4×4, in the row of
// Move… under a picker, in the row of Rematch once the game is over. A
// running 5×5 board's cells fill the five rows a message may have: it has
// none. A retired board has none (like Rematch, it belongs to the newest
// board). Without the live board no board has it, and the components are
// those drawn before it existed.
func TestOpenBoardButton(t *testing.T) {
	l := english()
	won := func(n int) *game.Judge {
		t.Helper()
		m := testMatch(t, n, 3, game.Move{Row: 0, Col: 0, Player: game.X}, game.Move{Row: 1, Col: 0, Player: game.O},
			game.Move{Row: 0, Col: 1, Player: game.X}, game.Move{Row: 1, Col: 1, Player: game.O}, game.Move{Row: 0, Col: 2, Player: game.X})
		return m.Judge
	}
	for _, tt := range []struct {
		name    string
		n       int
		over    bool
		retired bool
		wantRow int // -1: no button
	}{
		{"3×3 running", 3, false, false, 3},
		{"4×4 running", 4, false, false, 4},
		{"5×5 running", 5, false, false, -1},
		{"3×3 over", 3, true, false, 3},
		{"5×5 over", 5, true, false, 0},
		{"5×5 retired", 5, true, true, -1},
		{"3×3 retired", 3, true, true, -1},
		{"9×9 running", 9, false, false, 1},
		{"15×15 over", 15, true, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := testMatch(t, tt.n, 3, game.Move{Row: 0, Col: 0, Player: game.X})
			if tt.over {
				m = testMatch(t, tt.n, 3)
				m.Judge = won(tt.n)
				m.End = game.EndWon
			}
			v := renderMatch(l, m)
			if tt.retired {
				v = renderRetired(l, m)
			}
			if !reflect.DeepEqual(v.buttonsFor(false), v.buttons()) {
				t.Errorf("without the live board the buttons are %+v; want those drawn without it, %+v", v.buttonsFor(false), v.buttons())
			}
			if id, _ := launchIn(v.buttonsFor(false)); id != "" {
				t.Errorf("without the live board: an Open board button %q", id)
			}
			with := v.buttonsFor(true)
			checkLimits(t, tt.name, v)
			id, row := launchIn(with)
			if row != tt.wantRow {
				t.Fatalf("Open board in row %d of %d; want %d", row, len(with), tt.wantRow)
			}
			if row < 0 {
				if !reflect.DeepEqual(with, v.buttons()) {
					t.Errorf("with no room for Open board the buttons changed: %+v", with)
				}
				return
			}
			if want := (route{action: actLaunch, id: m.ID}).String(); id != want {
				t.Errorf("Open board's custom_id %q; want %q", id, want)
			}
			if got := with[row].(discordgo.ActionsRow).Components; got[len(got)-1].(discordgo.Button).Label != "Open board" {
				t.Errorf("the last button of row %d is %+v; want Open board", row, got[len(got)-1])
			}
			// The rest is the board as drawn without it.
			if len(with) == len(v.components) {
				base := with[row].(discordgo.ActionsRow).Components
				if !reflect.DeepEqual(base[:len(base)-1], v.components[row].(discordgo.ActionsRow).Components) {
					t.Errorf("row %d is %+v; want %+v and Open board", row, base, v.components[row])
				}
			} else if !reflect.DeepEqual(with[:len(with)-1], v.components) {
				t.Errorf("Open board's row of its own changed the rows above it")
			}
		})
	}
	// Every row of every open picker keeps room for it.
	for n := MaxButtonSize + 1; n <= MaxSize; n++ {
		m := testMatch(t, n, 5, game.Move{Row: 0, Col: 0, Player: game.X})
		for row := 0; row <= n; row++ {
			v := renderPicker(l, m, row, false)
			if _, at := launchIn(v.buttonsFor(true)); at < 0 {
				t.Errorf("%d×%d picker with row %d open: no Open board", n, n, row)
			}
			checkLimits(t, "picker", v)
		}
	}
}

// newLaunchBot is a test bot answering through rec, with the live board
// served or not.
func newLaunchBot(t *testing.T, activity bool) (*Bot, *recorder) {
	t.Helper()
	rec := new(recorder)
	cfg := DefaultConfig()
	cfg.Activity = activity
	b := New(rec, StoresOf(new(store.Memory)), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	t.Cleanup(b.Close)
	return b, rec
}

// entryPointPayload is the interaction of the app's entry point command,
// named as Discord names the one it creates.
func entryPointPayload(t *testing.T) *discordgo.InteractionCreate {
	t.Helper()
	m := fixture(t, "slash_command_interaction.json")
	m["data"] = map[string]any{"id": "1300000000000000000", "name": "launch", "type": int(PrimaryEntryPointCommand)}
	return decode(t, m)
}

// With the live board, a new game's board has Open board; a click on it
// and the entry point command are answered with LAUNCH_ACTIVITY, no data.
// Without, the board has no such button, and an old button or the entry
// point command is told, in plain words, that there is no live board;
// the game is unchanged.
func TestLaunchActivity(t *testing.T) {
	for _, activity := range []bool{true, false} {
		b, rec := newLaunchBot(t, activity)
		start := slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil)
		b.serveIC(context.Background(), start)
		board := rec.last(t)
		id, _ := launchIn(board.Data.Components)
		if activity != (id != "") {
			t.Fatalf("activity %v: the new board has Open board %q", activity, id)
		}
		if id == "" {
			id = route{action: actLaunch, id: "abc123"}.String() // an old board's
		}
		click := buttonPayload(t, id)
		click.ChannelID = start.ChannelID
		before := moves(t, b, click)
		b.serveIC(context.Background(), click)
		clicked := rec.last(t)
		b.serveIC(context.Background(), entryPointPayload(t))
		entry := rec.last(t)
		for what, r := range map[string]*discordgo.InteractionResponse{"Open board": clicked, "the entry point command": entry} {
			if activity {
				if r.Type != InteractionResponseLaunchActivity || r.Data != nil {
					t.Errorf("%s answered type %d %+v; want LAUNCH_ACTIVITY (12) without data", what, r.Type, r.Data)
				}
				continue
			}
			wantEphemeral(t, r, "live board isn't set up")
		}
		if after := moves(t, b, click); after != before {
			t.Errorf("activity %v: opening the live board changed the game: %d moves; want %d", activity, after, before)
		}
	}
}

// Registering /ttt globally keeps the app's entry point command, as its
// owner left it (id, name, handler): Discord refuses a bulk overwrite
// that drops it (50240). Through the real session and the fake Discord,
// whose entry point is renamed and handed to the app (APP_HANDLER), then
// sent by the user: the bot opens the live board. An app without
// Activities has no entry point, and gets /ttt alone.
func TestRegisterKeepsEntryPoint(t *testing.T) {
	srv := discordtest.NewServer("register-test-token")
	t.Cleanup(srv.Close)
	s, err := discord.NewSession(discord.Options{Token: srv.Token, APIURL: srv.APIURL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Activity = true
	b := New(discord.REST{Session: s}, StoresOf(new(store.Memory)), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(b.Close)
	ctx := context.Background()

	if err := b.Register(ctx, srv.AppID); err != nil {
		t.Fatalf("Register without Activities = %v", err)
	}
	if cmds := srv.Commands(""); len(cmds) != 1 || cmds[0].Name != "ttt" {
		t.Fatalf("registered %v; want /ttt alone", cmds)
	}

	id := srv.EnableActivities(int(EntryPointAppHandler))
	// Its owner renames it, in two languages.
	u := discordgo.EndpointApplicationGlobalCommands(srv.AppID)
	entry := map[string]any{"id": id, "type": 4, "name": "play", "name_localizations": map[string]string{"de": "spielen"},
		"description": "Open the live board", "handler": int(EntryPointAppHandler)}
	have, err := discord.REST{Session: s}.ApplicationCommandsJSON(srv.AppID, "")
	if err != nil || len(have) != 2 {
		t.Fatalf("ApplicationCommandsJSON = %d commands, %v; want /ttt and the entry point", len(have), err)
	}
	if _, err := s.RequestWithBucketID("PUT", u, []any{have[0], entry}, u); err != nil {
		t.Fatalf("renaming the entry point: %v", err)
	}
	for range 2 {
		if err := b.Register(ctx, srv.AppID); err != nil {
			t.Fatalf("Register with an entry point = %v", err)
		}
		c, handler, ok := srv.EntryPoint()
		if !ok || c.ID != id || c.Name != "play" || c.NameLocalizations == nil || (*c.NameLocalizations)["de"] != "spielen" ||
			handler != int(EntryPointAppHandler) {
			t.Fatalf("after Register the entry point is %+v, handler %d, %v; want play (spielen), id %s, APP_HANDLER", c, handler, ok, id)
		}
		if n := len(srv.Commands("")); n != 2 {
			t.Fatalf("%d global commands; want /ttt and the entry point", n)
		}
	}

	// The session's gateway brings the interaction, as the gateway
	// transport would.
	s.AddHandler(func(s *discordgo.Session, e *discordgo.Event) {
		if e.Type != "INTERACTION_CREATE" {
			return
		}
		i, err := discord.DecodeInteraction(e.RawData)
		if err != nil {
			t.Errorf("decode an interaction: %v", err)
			return
		}
		b.Handle(i, viaDiscord{discord.REST{Session: s}, i})
	})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	in := srv.EntryPointCommand(srv.NewID(), srv.NewID(), srv.NewMember("ada"))
	if err := srv.Send(wait, in); err != nil {
		t.Fatal(err)
	}
	r, err := in.Response(wait)
	if err != nil || r.Type != InteractionResponseLaunchActivity {
		t.Fatalf("the entry point command got %+v, %v; want LAUNCH_ACTIVITY", r, err)
	}
}

// BenchmarkOpenBoard measures what the Open board button adds to drawing a
// running board: finding its place and label (launchPlace, on every board
// drawn), and the components with it (buttonsFor), for a 4×4 board of
// buttons and a 10×10 board under a picker. Run it with:
// go test -run '^$' -bench OpenBoard -benchmem ./bot
func BenchmarkOpenBoard(b *testing.B) {
	l := english()
	for _, n := range []int{4, 10} {
		g, err := game.New(n, game.WinLength(3))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Play(0, 0, game.X); err != nil {
			b.Fatal(err)
		}
		m := &table.Match{ID: "a1b2c3d4e5f6", Players: [3]string{game.X: longX, game.O: longO}, Judge: g, Serial: 1}
		v := renderMatch(l, m)
		b.Run(fmt.Sprintf("%dx%d/place", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				launchPlace(l, m, v.components)
			}
		})
		b.Run(fmt.Sprintf("%dx%d/draw", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				renderMatch(l, m)
			}
		})
		for _, activity := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%d/buttons-activity-%v", n, n, activity), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					v.buttonsFor(activity)
				}
			})
		}
	}
}
