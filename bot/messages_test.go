package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/rating"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// Discord's limits on embeds.
const (
	maxEmbedDesc  = 4096
	maxEmbedTotal = 6000
)

// The longest values the bot puts into a text: ids of 20 digits (Discord's
// are 17 to 19 today), so mentions of 23 characters; names (of options,
// commands) of 32; counts of 4 digits and more.
const (
	longID   = "99999999999999999999"
	longName = "abcdefghijklmnopqrstuvwxyzabcdef"
	bigCount = 99999
)

// catalogLanguages returns the languages of the shipped catalogs, read
// from the files themselves, so that a new catalog is checked as soon as
// it is added.
func catalogLanguages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "i18n", "locales", "active.*.toml"))
	if err != nil || len(files) < 8 {
		t.Fatalf("catalogs = %v, %v; want at least 8", files, err)
	}
	var langs []string
	for _, f := range files {
		langs = append(langs, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "active."), ".toml"))
	}
	return langs
}

// catalogKeys returns every key of the English catalog, the source of
// every other.
func catalogKeys(t *testing.T) []string {
	t.Helper()
	buf, err := os.ReadFile(filepath.Join("..", "i18n", "locales", "active.en.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`(?m)^\[([A-Za-z0-9_.\-]+)\]\s*$`).FindAllStringSubmatch(string(buf), -1) {
		keys = append(keys, m[1])
	}
	if len(keys) < 100 {
		t.Fatalf("read %d keys from active.en.toml; want them all", len(keys))
	}
	return keys
}

// longestValues fills every placeholder of the catalog with the longest value
// the bot gives it, in l's language.
func longestValues(l *i18n.Language) map[string]any {
	m := mention(longID)
	dur := humanDuration(l, 59*time.Minute)
	rec := store.Record{Games: bigCount, Wins: bigCount, Losses: bigCount, Draws: bigCount}
	var ids []string
	for range maxChannels {
		ids = append(ids, longID)
	}
	d := map[string]any{
		"Count": bigCount, "Size": bigCount, "Win": bigCount, "Row": bigCount, "Col": bigCount, "Min": bigCount, "Max": dur,
		"Given": bigCount, "Rank": bigCount, "Rated": bigCount, "MinRated": bigCount, "WinRate": 100,
		"From": m, "To": m, "Player": m, "PlayerX": m, "PlayerO": m, "User": m, "Loser": m, "Winner": m, "By": m,
		"Opponent": l.T("history.computer", map[string]any{"Level": l.T("level.medium", nil)}),
		"Mark":     lastO, "MarkX": lastO, "MarkO": lastO, "Marker": lastO, "WinCell": greenCells, "Empty": cellEmpty,
		"Expires": int64(1 << 40), "Deadline": int64(1 << 40), "When": int64(1 << 40), "Started": int64(1 << 40), "At": int64(1 << 40),
		"Timeout": dur, "TurnTimeout": dur, "ChallengeTimeout": dur,
		"Option": longName, "Command": longName, "Subcommand": longName, "Name": longName,
		"Value": strings.Repeat("x", 100), "Old": strings.Repeat("x", 100), "Setting": strings.Repeat("x", 100),
		"Channels": channelMentions(ids), "Role": "<@&" + longID + ">",
		"Record": record(l, rec), "Games": l.N("count.games", bigCount, nil), "Wins": l.N("count.wins", bigCount, nil),
		"Losses": l.N("count.losses", bigCount, nil), "Draws": l.N("count.draws", bigCount, nil),
		"Streak": l.N("count.wins", bigCount, nil), "Best": l.N("count.wins", bigCount, nil), "StreakN": bigCount, "BestN": bigCount,
		"Rating": "99999 ± 99999", "Level": l.T("level.medium", nil), "Result": l.T("history.result.lost_resignation", nil),
		"Version": strings.Repeat("v", 64), "Servers": "9999999", "Latency": "99999 ms",
		"Invite": InviteURL(longID), "UserInvite": UserInstallURL(longID), "Source": Source,
		"Board": "https://discord.com/channels/" + longID + "/" + longID + "/" + longID,
	}
	return d
}

// checkMessage fails the test if a message breaks one of Discord's limits.
func checkMessage(t *testing.T, what string, d *discordgo.InteractionResponseData) {
	t.Helper()
	if d == nil {
		return
	}
	checkLimits(t, what, view{content: d.Content, components: d.Components})
	total := 0
	for i, e := range d.Embeds {
		n := utf8.RuneCountInString(e.Description)
		if n > maxEmbedDesc {
			t.Errorf("%s: embed %d's description is %d code points; want <= %d", what, i, n, maxEmbedDesc)
		}
		total += n + utf8.RuneCountInString(e.Title)
		if e.Footer != nil {
			total += utf8.RuneCountInString(e.Footer.Text)
		}
		for _, f := range e.Fields {
			total += utf8.RuneCountInString(f.Name) + utf8.RuneCountInString(f.Value)
		}
	}
	if total > maxEmbedTotal {
		t.Errorf("%s: embeds hold %d code points; want <= %d", what, total, maxEmbedTotal)
	}
	wantWritten(t, what, d.Content)
	for _, e := range d.Embeds {
		wantWritten(t, what, e.Description)
	}
}

// fullStore is a memory store whose stats, leaderboards and history are
// as long as they can be: 4-digit counts and more, 20-digit ids, a full
// page of each.
type fullStore struct{ *store.Memory }

func fullStats(userID string, rank int) store.Stats {
	rec := store.Record{Games: bigCount, Wins: bigCount, Losses: bigCount, Draws: bigCount}
	return store.Stats{UserID: userID, People: rec, Computer: rec, Streak: bigCount, BestStreak: bigCount,
		Rating: rating.Rating{R: 99999, RD: 49999}, Rated: bigCount, Rank: rank}
}

func (fullStore) Stats(_ context.Context, _, userID string, _ int) (store.Stats, error) {
	return fullStats(userID, bigCount), nil
}

func (fullStore) Leaderboard(_ context.Context, _ string, _, limit int) ([]store.Stats, error) {
	var top []store.Stats
	for i := range limit {
		top = append(top, fullStats(fmt.Sprintf("%020d", i+1), i+1))
	}
	return top, nil
}

func (s fullStore) ComputerLeaderboard(ctx context.Context, guildID string, limit int) ([]store.Stats, error) {
	return s.Leaderboard(ctx, guildID, 0, limit)
}

func (fullStore) History(_ context.Context, _, userID string, limit int) ([]*store.Game, error) {
	var gs []*store.Game
	for i := range limit {
		gs = append(gs, &store.Game{ID: "a", Players: [3]string{game.X: userID, game.O: longID}, Computer: game.O, Level: game.Medium,
			Size: MaxSize, Win: MaxSize, Moves: make([]store.Move, 99), End: game.EndResigned, Loser: game.X,
			EndedAt: time.Unix(1<<40+int64(i), 0)})
	}
	return gs, nil
}

func (fullStore) CountGames(context.Context) (int, error) { return 1 << 40, nil }

func (fullStore) Settings(_ context.Context, guildID string) (store.Settings, error) {
	return store.Settings{GuildID: guildID, ComputerRanked: true}, nil
}

// sampleBoards are matches of every size in the states a board can show: just
// started, half played, and over in every way, with the longest ids.
func sampleBoards(t *testing.T) map[string]*table.Match {
	t.Helper()
	out := map[string]*table.Match{}
	for n := MinSize; n <= MaxSize; n++ {
		// Fill row by row, X and O alternating so that nobody wins: a
		// draw-like full board, then a win of X on the first row.
		var moves []game.Move
		for i := range n * n / 2 {
			r, c := i/n, i%n
			p := game.X
			if (r+c+r/2)%2 == 1 {
				p = game.O
			}
			moves = append(moves, game.Move{Row: r, Col: c, Player: p})
		}
		g, err := game.New(n)
		if err != nil {
			t.Fatal(err)
		}
		var played []game.Move
		for _, mv := range moves {
			if g.Turn() != mv.Player || g.Status() != game.InProgress {
				continue
			}
			if _, err := g.Play(mv.Row, mv.Col, mv.Player); err != nil {
				continue
			}
			played = append(played, mv)
		}
		mk := func(moves []game.Move) *table.Match {
			m := testMatch(t, n, n, moves...)
			m.Players = [3]string{game.X: longID, game.O: longID}
			return m
		}
		out[fmt.Sprintf("%d×%d new", n, n)] = mk(nil)
		out[fmt.Sprintf("%d×%d midgame", n, n)] = mk(played)
		for _, e := range []game.Ending{game.EndResigned, game.EndTimeout, game.EndStopped, game.EndAgreed, game.EndDecided, game.EndDraw} {
			m := mk(played)
			m.End, m.Loser, m.StoppedBy, m.Deadline = e, game.X, longID, time.Time{}
			out[fmt.Sprintf("%d×%d ended %d", n, n, e)] = m
		}
		// A win on the first row with k = 3.
		win := []game.Move{{Row: 0, Col: 0, Player: game.X}, {Row: 1, Col: 0, Player: game.O}, {Row: 0, Col: 1, Player: game.X},
			{Row: 1, Col: 1, Player: game.O}, {Row: 0, Col: 2, Player: game.X}}
		m := testMatch(t, n, MinWin, win...)
		m.Players = [3]string{game.X: longID, game.O: longID}
		out[fmt.Sprintf("%d×%d won", n, n)] = m
	}
	return out
}

// TestEveryMessageFitsEveryLanguage renders every message the bot can
// send, in every language of the catalog, with the longest values it can
// hold, and checks each against Discord's limits: every text of the
// catalog alone (refusals are single texts), and every message made of
// several (help, about, stats, the leaderboard with its section of games
// against the computer, history, the config summary, boards of every size
// in every state, the pickers of big boards with each row open, the modal
// of their Move… button and the suggestions of /ttt move, challenges, draw
// offers) as the handlers send it.
func TestEveryMessageFitsEveryLanguage(t *testing.T) {
	keys := catalogKeys(t)
	bs := sampleBoards(t)
	for _, lng := range catalogLanguages(t) {
		t.Run(lng, func(t *testing.T) {
			l := lang(t, lng)
			if lng != "en" && l.Tag() == "en" {
				t.Fatalf("the catalog %s is read as English", lng)
			}
			data := longestValues(l)
			for _, key := range keys {
				checkMessage(t, key, &discordgo.InteractionResponseData{Content: l.N(key, bigCount, data)})
				checkMessage(t, key+" (one)", &discordgo.InteractionResponseData{Content: l.N(key, 1, data)})
			}

			// Through the handlers: every answer and edit is checked.
			rec := new(recorder)
			cfg := DefaultConfig()
			cfg.About.Version = strings.Repeat("v", 64)
			cfg.Table.TurnTimeout, cfg.Table.ChallengeTimeout = 59*time.Minute, 14*time.Minute
			b := newBotOnStore(t, fullStore{new(store.Memory)}, rec, cfg)
			send := func(sub string, opts ...map[string]any) string {
				t.Helper()
				ic := decode(t, localized(slashMap(t, sub, opts, nil), lng, lng))
				ic.AppID = longID
				b.serveIC(context.Background(), ic)
				r := rec.last(t)
				checkMessage(t, "/ttt "+sub, r.Data)
				return saidText(r.Data)
			}
			for _, sub := range []string{"help", "about", "stats", "history", "board", "start"} {
				send(sub)
			}
			if got, want := send("leaderboard"), l.T("leaderboard.computer_title", nil); !strings.Contains(got, want) {
				t.Errorf("/ttt leaderboard = %q; want its section %q", got, want)
			}
			send("start", intOpt("size", MaxSize))
			b.Close()

			// The config summary with every setting changed, at its longest.
			prev := store.Settings{GuildID: fixtureGuild, TurnTimeout: 839 * time.Second, ChallengeTimeout: 839 * time.Second,
				Size: 9, Win: 9, Channels: slices.Repeat([]string{longID}, maxChannels), StopRole: longID, ComputerRanked: true, Pictures: true, NoReminders: true}
			next := store.Settings{GuildID: fixtureGuild, TurnTimeout: 838 * time.Second, ChallengeTimeout: 838 * time.Second,
				Size: 10, Win: 10, Channels: slices.Repeat([]string{"8" + longID[1:]}, maxChannels), StopRole: "8" + longID[1:],
				UpdatedBy: longID, UpdatedAt: time.Unix(1<<40, 0)}
			for _, header := range []string{"config.title", "config.saved", "config.reset"} {
				checkMessage(t, header, &discordgo.InteractionResponseData{Content: b.settings.summary(l, header, next, prev, changedSettings(prev, next))})
			}

			// Composed by the renderers the handlers call.
			for _, name := range slices.Sorted(func(yield func(string) bool) {
				for k := range bs {
					if !yield(k) {
						return
					}
				}
			}) {
				m := bs[name]
				for what, v := range map[string]view{
					"board":     renderMatch(l, m),
					"picture":   renderPictured(l, m),
					"overtaken": {content: l.T("move.overtaken", nil) + "\n" + renderMatch(l, m).content},
				} {
					checkMessage(t, name+" "+what, &discordgo.InteractionResponseData{Content: v.content, Components: v.components})
					checkMessage(t, name+" "+what+" with Open board", &discordgo.InteractionResponseData{Content: v.content, Components: v.buttonsFor(true)})
				}
				if !m.Over() {
					v := renderDrawOffer(l, m, game.X)
					checkMessage(t, name+" draw offer", &discordgo.InteractionResponseData{Content: v.content, Components: v.components})
					// The turn's reminder, with and without a link to
					// the board, with the longest ids.
					r := &match{Match: m.Clone(), Board: store.Board{ChannelID: longID, MessageID: longID}}
					r.GuildID, r.Players[r.Turn()], r.Deadline = longID, longID, time.Unix(1<<40, 0)
					checkMessage(t, name+" reminder", &discordgo.InteractionResponseData{Content: reminderText(l, r)})
					r.Board = store.Board{}
					checkMessage(t, name+" reminder without a link", &discordgo.InteractionResponseData{Content: reminderText(l, r)})
				}
			}
			checkPicker(t, l, bs)
			for _, to := range []string{longID, ""} {
				c := &table.Challenge{ID: newID(), From: longID, To: to, Size: MaxSize, Win: MaxSize, Expires: time.Unix(1<<40, 0)}
				for st := challengeOpen; st <= challengeSuperseded; st++ {
					v := renderChallenge(l, c, st, 14*time.Minute)
					checkMessage(t, fmt.Sprintf("challenge to %q, state %d", to, st), &discordgo.InteractionResponseData{Content: v.content, Components: v.components})
				}
			}
		})
	}
}

// Discord's limits on a modal and on autocomplete choices.
const (
	maxModalTitle = 45
	maxInputLabel = 45
	maxChoiceName = 100
)

// checkPicker checks, in l's language, the boards with a picker: every
// sample board bigger than MaxButtonSize still running, with each of its
// rows open in turn, as an emoji board and as a picture's text; the
// pickers of every size up to maxSide, new and with a row open; the modal
// of Move…, and the suggestions of /ttt move.
func checkPicker(t *testing.T, l *i18n.Language, bs map[string]*table.Match) {
	t.Helper()
	for name, m := range bs {
		if !hasPicker(m) {
			continue
		}
		for row := 0; row <= m.Judge.Size(); row++ {
			for _, pic := range []bool{false, true} {
				v := renderPicker(l, m, row, pic)
				checkMessage(t, fmt.Sprintf("%s, row %d open, picture %v", name, row, pic), &discordgo.InteractionResponseData{Content: v.content, Components: v.components})
				checkMessage(t, fmt.Sprintf("%s, row %d open, picture %v, with Open board", name, row, pic), &discordgo.InteractionResponseData{Content: v.content, Components: v.buttonsFor(true)})
			}
		}
	}
	for n := MaxButtonSize + 1; n <= maxSide; n++ {
		g, err := game.New(n, game.WinLength(5))
		if err != nil {
			t.Fatal(err)
		}
		m := &table.Match{ID: newID(), Players: [3]string{game.X: longID, game.O: longID}, Judge: g, Serial: 1 << 30}
		for _, row := range []int{0, 1, n} {
			checkLimits(t, fmt.Sprintf("%d×%d picker, row %d open", n, n, row), view{components: pickerComponents(l, m, row, game.Move{}, false)})
		}
		if rows := len(pickerComponents(l, m, n, game.Move{}, false)); rows != 2+(n+MaxButtonSize-1)/MaxButtonSize {
			t.Errorf("%d×%d picker with a row open: %d action rows", n, n, rows)
		}
	}
	for key, limit := range map[string]int{"modal.move.title": maxModalTitle, "modal.move.label": maxInputLabel} {
		if got := utf8.RuneCountInString(l.T(key, nil)); got == 0 || got > limit {
			t.Errorf("%s is %d code points; want 1 to %d", key, got, limit)
		}
	}
	for key, data := range map[string]map[string]any{"picker.row": {"Row": maxSide}, "picker.col": {"Col": maxSide}} {
		if got := utf8.RuneCountInString(l.T(key, data)); got > maxChoiceName {
			t.Errorf("%s is %d code points; want <= %d", key, got, maxChoiceName)
		}
	}
}

// newBotOnStore is a bot with cfg on st, answering through rec.
func newBotOnStore(t *testing.T, st wholeStore, rec *recorder, cfg Config) *Bot {
	t.Helper()
	b := New(rec, StoresOf(st), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf(botID)
	t.Cleanup(b.Close)
	return b
}

// discordRelative is how Discord writes a <t:…:R> two minutes ahead, by
// the language of the catalog, and what may not stand next to it then:
// words that need a time, not "in 2 minutes" ("until in 2 minutes").
var discordRelative = map[string]struct {
	shown  string
	before []string // words that may not come just before it
	after  []string // nor just after it
}{
	"en":      {"in 2 minutes", []string{"until", "till", "by", "before", "at"}, nil},
	"de":      {"in 2 Minuten", []string{"bis", "um", "vor"}, nil},
	"es":      {"dentro de 2 minutos", []string{"hasta", "a las", "antes de"}, nil},
	"fr":      {"dans 2 minutes", []string{"jusqu'à", "jusqu’à", "avant", "à"}, nil},
	"ja":      {"2 分後", nil, []string{"まで", "までに"}},
	"pt-BR":   {"em 2 minutos", []string{"até", "antes de", "às"}, nil},
	"ru":      {"через 2 минуты", []string{"до", "к", "в"}, nil},
	"zh-Hans": {"2分钟后", nil, []string{"之前", "以前", "前"}},
}

var relativeTime = regexp.MustCompile(`<t:-?\d+:R>`)

// Discord writes a relative time as "in 2 minutes" (or "2 minutes ago"),
// in the reader's language: every text that holds one must read right
// once it is written so, in every language of the catalog.
func TestRelativeTimesRead(t *testing.T) {
	keys := catalogKeys(t)
	for _, lng := range catalogLanguages(t) {
		t.Run(lng, func(t *testing.T) {
			rel, ok := discordRelative[lng]
			if !ok {
				t.Fatalf("no entry for %s in discordRelative: say how Discord writes a relative time in it", lng)
			}
			l := lang(t, lng)
			data := longestValues(l)
			for _, key := range keys {
				text := l.N(key, bigCount, data)
				if !relativeTime.MatchString(text) {
					continue
				}
				shown := relativeTime.ReplaceAllString(text, "\x00")
				for _, part := range strings.Split(shown, "\x00")[1:] {
					next := strings.TrimLeft(part, " *")
					for _, w := range rel.after {
						if strings.HasPrefix(next, w) {
							t.Errorf("%s reads %q after the relative time: %q", key, w, strings.ReplaceAll(shown, "\x00", rel.shown))
						}
					}
				}
				for _, part := range strings.Split(shown, "\x00")[:strings.Count(shown, "\x00")] {
					prev := strings.ToLower(strings.TrimRight(part, " *"))
					for _, w := range rel.before {
						if strings.HasSuffix(prev, " "+w) || prev == w || strings.HasSuffix(prev, "'"+w) {
							t.Errorf("%s reads %q before the relative time: %q", key, w, strings.ReplaceAll(shown, "\x00", rel.shown))
						}
					}
				}
			}
		})
	}
}

// Pressing Join on one's own open challenge names the button that takes
// it back, Withdraw; pressing Accept on one's own challenge to someone,
// Decline: in every language, the button's own label.
func TestOwnChallengeNamesItsButton(t *testing.T) {
	for _, lng := range catalogLanguages(t) {
		t.Run(lng, func(t *testing.T) {
			l := lang(t, lng)
			for _, tt := range []struct {
				name        string
				opts        []map[string]any
				button, not string // the label to name, and one not to
			}{
				{"open", []map[string]any{{"type": 5, "name": "open", "value": true}}, "button.withdraw", "button.decline"},
				{"to someone", []map[string]any{{"type": 6, "name": "opponent", "value": "42"}}, "button.decline", ""},
			} {
				b, rec, _ := newTestBot(t)
				resolved := map[string]any{"users": map[string]any{"42": map[string]any{"id": "42", "username": "bob"}}}
				start := decode(t, localized(slashMap(t, "start", tt.opts, resolved), lng, lng))
				b.serveIC(context.Background(), start)
				r := rec.last(t)
				if len(r.Data.Components) == 0 {
					t.Fatalf("%s: /ttt start answered %q; want a challenge", tt.name, r.Data.Content)
				}
				accept := r.Data.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.Button).CustomID
				ic := buttonPayload(t, accept)
				ic.ChannelID, ic.Locale = start.ChannelID, discordgo.Locale(lng)
				b.serveIC(context.Background(), ic)
				label := l.T(tt.button, nil)
				wantEphemeral(t, rec.last(t), label)
				if o := l.T(tt.not, nil); tt.not != "" && strings.Contains(saidText(rec.last(t).Data), o) {
					t.Errorf("%s: the creator's own click is told %q; want %q, not %q", tt.name, rec.last(t).Data.Content, label, o)
				}
			}
		})
	}
}

// Each thing is said once, the way a player would say it, in every
// language: a board names its last move in one line and marks it on the
// board, with no legend repeating either; a board of buttons says "click
// a cell", without a command that needs row and column labels it does not
// show; a game nobody moved in is not "stopped in 0 moves"; a player with
// no streak has no "streak of 0 wins".
func TestSayEachThingOnce(t *testing.T) {
	X, O := game.X, game.O
	last := []game.Move{{Row: 0, Col: 0, Player: X}, {Row: 1, Col: 1, Player: O}}
	won := []game.Move{{Row: 0, Col: 0, Player: X}, {Row: 1, Col: 0, Player: O}, {Row: 0, Col: 1, Player: X},
		{Row: 1, Col: 1, Player: O}, {Row: 0, Col: 2, Player: X}}
	zero := regexp.MustCompile(`(^|[^\d:])0([^\d]|$)`)
	for _, lng := range catalogLanguages(t) {
		t.Run(lng, func(t *testing.T) {
			l := lang(t, lng)
			command := "/ttt " + l.T("command.ttt.move.name", nil)
			for n := MinSize; n <= MaxSize; n++ {
				for name, moves := range map[string][]game.Move{"running": last, "won": won} {
					m := testMatch(t, n, MinWin, moves...)
					v := renderMatch(l, m)
					lines := strings.Split(v.content, "\n")
					want := 3 // header, last move, status
					if !hasButtons(m) && n <= MaxEmojiSize {
						want += n + 1 // the labelled grid; a bigger board is a picture
					}
					if len(lines) != want {
						t.Errorf("%d×%d %s: %d lines; want %d (header, grid, last move, status):\n%s", n, n, name, len(lines), want, v.content)
					}
					if hasButtons(m) && strings.Contains(v.content, command) {
						t.Errorf("%d×%d %s: a board of buttons without labels says %q:\n%s", n, n, name, command, v.content)
					}
				}
			}

			g := &store.Game{Players: [3]string{game.X: mason, game.O: longID}, Size: 3, Win: 3, End: game.EndStopped, StoppedBy: longID,
				EndedAt: time.Unix(1767225611, 0)}
			if line := historyLine(l, g, mason); zero.MatchString(line) {
				t.Errorf("a game stopped before the first move is listed as %q; want no count of 0 moves", line)
			}

			for _, tt := range []struct{ streak, best, lines int }{{0, 4, 4}, {0, 0, 3}, {2, 4, 4}} {
				st := store.Stats{UserID: mason, People: store.Record{Games: 9, Wins: tt.best, Losses: 9 - tt.best}, Streak: tt.streak, BestStreak: tt.best}
				s := renderStats(l, st)
				if strings.Contains(s, l.N("count.wins", 0, nil)) && tt.best > 0 {
					t.Errorf("streak %d, best %d: %q speaks of %q", tt.streak, tt.best, s, l.N("count.wins", 0, nil))
				}
				if got := strings.Count(s, "\n") + 1; got != tt.lines {
					t.Errorf("streak %d, best %d: %d lines; want %d:\n%s", tt.streak, tt.best, got, tt.lines, s)
				}
			}
		})
	}
}
