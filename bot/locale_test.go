package bot

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
)

// The bot's own user id in these tests (newTestBot's).
const botID = "1000000000000000001"

// rawKey matches a catalog key shown in place of its text.
var rawKey = regexp.MustCompile(`\b(error|route|option|start|challenge|move|board|status|resign|stop|rematch|button|duration|count|stats|leaderboard|history|level|help|command)\.[a-z_]+`)

// wantWritten fails the test if content shows a placeholder without a
// value or a catalog key instead of its text.
func wantWritten(t *testing.T, what, content string) {
	t.Helper()
	if strings.Contains(content, "<no value>") {
		t.Errorf("%s shows <no value>: %q", what, content)
	}
	if k := rawKey.FindString(content); k != "" {
		t.Errorf("%s shows the key %s: %q", what, k, content)
	}
}

// lang is the catalog's Language for locale.
func lang(t *testing.T, locale string) *i18n.Language {
	t.Helper()
	c, err := catalog()
	if err != nil {
		t.Fatal(err)
	}
	return c.For(locale)
}

// header is the first line of the board of Mason against the bot on a
// 3×3 board, in l's language.
func header(l *i18n.Language) string {
	return l.T("board.header", map[string]any{"MarkX": cellX, "PlayerX": mention(mason), "MarkO": cellO, "PlayerO": mention(botID), "Size": 3, "Win": 3})
}

// TestFlowInEveryLanguage plays the same short game against the computer
// in every language: the public boards are in the guild's language, the
// refusal, which only the player sees, in the player's. A DM has no guild
// locale: everything is in the player's language. Locales the catalog
// does not translate get English.
func TestFlowInEveryLanguage(t *testing.T) {
	shipped := []string{"en-US", "de", "es-ES", "fr", "ja", "pt-BR", "ru", "zh-CN"}
	type flow struct {
		name        string
		user, guild string // the payload's locales; no guild: a DM
		public      string // the locale of the boards
		private     string // the locale of the refusal
	}
	var flows []flow
	for i, guild := range shipped {
		user := shipped[(i+3)%len(shipped)] // the guild de gets the user ja
		flows = append(flows, flow{"guild " + guild + ", user " + user, user, guild, guild, user})
	}
	flows = append(flows,
		flow{"DM, user ja", "ja", "", "ja", "ja"},
		flow{"DM, user ru", "ru", "", "ru", "ru"},
		flow{"untranslated locales", "tlh", "ko", "en-US", "en-US"},
	)
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			pub, priv := lang(t, f.public), lang(t, f.private)
			send := func(sub string, opts ...map[string]any) *discordgo.InteractionResponse {
				t.Helper()
				b.serveIC(context.Background(), decode(t, localized(slashMap(t, sub, opts, nil), f.user, f.guild)))
				r := rec.last(t)
				wantWritten(t, "/ttt "+sub, r.Data.Content)
				return r
			}
			board, otherBoard := header(pub), header(priv)
			wantBoard := func(what string, r *discordgo.InteractionResponse) {
				t.Helper()
				if r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, board) {
					t.Errorf("%s answered %q; want a public board in %s, with %q", what, r.Data.Content, pub.Tag(), board)
				}
				if otherBoard != board && strings.Contains(r.Data.Content, otherBoard) {
					t.Errorf("%s answered %q; want no %s in the board", what, r.Data.Content, priv.Tag())
				}
			}

			wantBoard("/ttt start", send("start"))
			wantBoard("/ttt move", send("move", intOpt("row", 1), intOpt("col", 1)))
			r := send("move", intOpt("row", 1), intOpt("col", 1))
			occupied := map[string]any{"Row": 1, "Col": 1, "Empty": cellEmpty}
			wantEphemeral(t, r, priv.T("move.occupied", occupied))
			if other := pub.T("move.occupied", occupied); other != priv.T("move.occupied", occupied) && strings.Contains(r.Data.Content, other) {
				t.Errorf("the refusal %q is in %s; want %s", r.Data.Content, pub.Tag(), priv.Tag())
			}
			wantBoard("/ttt board", send("board"))
		})
	}
}

// clock is a Config.Now that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newClockedBot is a bot on a memory store whose clock moves only when
// told; its timers are real, so that a test calls what they would.
func newClockedBot(t *testing.T) (*Bot, *recorder, *clock) {
	t.Helper()
	clk := &clock{t: time.Now()}
	b, rec := clockedBotOn(t, new(store.Memory), clk)
	return b, rec, clk
}

// lastEdit returns the content of the last message edit; call it after
// Close, which waits for the edits in flight.
func lastEdit(t *testing.T, rec *recorder) string {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) == 0 {
		t.Fatal("no message was edited")
	}
	content := *rec.edits[len(rec.edits)-1].Content
	wantWritten(t, "the edit", content)
	return content
}

// Messages edited without an interaction, or by a later one, stay in the
// language they were drawn in: a turn timeout, a challenge that expired,
// a board replaced by one drawn after the guild changed its language.
func TestEditsKeepTheirLanguage(t *testing.T) {
	ctx := context.Background()
	timeout := func(l *i18n.Language) string {
		return l.T("status.timeout", map[string]any{"Loser": mention(mason), "Mark": cellO, "Winner": mention(botID)})
	}
	for _, tt := range []struct{ name, user, guild, want string }{
		{"guild de", "en-US", "de", "de"},
		{"DM ja", "ja", "", "ja"},
	} {
		t.Run("turn timeout, "+tt.name, func(t *testing.T) {
			b, rec, clk := newClockedBot(t)
			ic := decode(t, localized(slashMap(t, "start", nil, nil), tt.user, tt.guild))
			b.serveIC(ctx, ic)
			clk.advance(b.cfg.Table.TurnTimeout + time.Second)
			b.tables.expireTurn(ic.ChannelID) // what the turn timer does when it fires
			b.Close()
			want := timeout(lang(t, tt.want))
			if got := lastEdit(t, rec); !strings.Contains(got, want) || want == timeout(lang(t, "en-US")) {
				t.Errorf("the board after the timeout says %q; want %q", got, want)
			}
		})
	}

	t.Run("challenge expired, guild fr", func(t *testing.T) {
		b, rec, clk := newClockedBot(t)
		const bob = "42"
		resolved := map[string]any{"users": map[string]any{bob: map[string]any{"id": bob, "username": "bob"}}}
		ic := decode(t, localized(slashMap(t, "start", []map[string]any{{"type": 6, "name": "opponent", "value": bob}}, resolved), "de", "fr"))
		b.serveIC(ctx, ic)
		if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
			t.Fatalf("/ttt start opponent answered %q; want a challenge", r.Data.Content)
		}
		c, err := b.stores.Challenges.Challenge(ctx, ic.ChannelID)
		if err != nil || c == nil {
			t.Fatalf("stored challenge = %v, %v; want one", c, err)
		}
		clk.advance(b.cfg.Table.ChallengeTimeout + time.Second)
		b.tables.expireChallenge(ic.ChannelID, c.ID) // what the challenge timer does when it fires
		b.Close()
		fr := lang(t, "fr")
		want := fr.T("challenge.expired", map[string]any{"From": mention(mason), "To": mention(bob), "Size": 3, "Win": 3,
			"Timeout": humanDuration(fr, b.cfg.Table.ChallengeTimeout)})
		if got := lastEdit(t, rec); got != want {
			t.Errorf("the expired challenge says %q; want %q", got, want)
		}
	})

	t.Run("retired board, guild de then fr", func(t *testing.T) {
		b, rec, _ := newClockedBot(t)
		b.serveIC(ctx, decode(t, localized(slashMap(t, "start", nil, nil), "en-US", "de")))
		b.serveIC(ctx, decode(t, localized(slashMap(t, "resign", nil, nil), "en-US", "de")))
		b.serveIC(ctx, decode(t, localized(slashMap(t, "board", nil, nil), "en-US", "fr")))
		if r := rec.last(t); !strings.Contains(r.Data.Content, header(lang(t, "fr"))) {
			t.Errorf("/ttt board in a French guild answered %q; want a French board", r.Data.Content)
		}
		b.Close()
		rec.mu.Lock()
		deleted := len(rec.deleted)
		rec.mu.Unlock()
		if deleted != 1 {
			t.Errorf("%d boards deleted; want 1, the running board the resignation replaced", deleted)
		}
		// The finished board that the French one replaced keeps its result,
		// in German.
		de := lang(t, "de")
		if got := lastEdit(t, rec); !strings.Contains(got, header(de)) || !strings.Contains(got, de.T("status.resigned", map[string]any{
			"Loser": mention(mason), "Mark": cellO, "Winner": mention(botID)})) {
			t.Errorf("the replaced finished board says %q; want its German result", got)
		}
	})
}

// Japanese and Chinese word a streak around its bare number (現在2連勝),
// not around the count of wins that other languages show ("2 wins").
func TestStreakWordedAroundTheNumber(t *testing.T) {
	st := store.Stats{UserID: "1", People: store.Record{Games: 9, Wins: 6, Losses: 3}, BestStreak: 4}
	for _, c := range []struct {
		locale string
		streak int
		want   string
	}{
		{"ja", 2, "現在2連勝（最高4連勝）"},
		{"ja", 0, "連勝：なし（最高4連勝）"},
		{"zh-CN", 2, "当前连胜 2 场（最高 4 场）"},
		{"zh-CN", 0, "连胜：无（最高 4 场）"},
		{"en-US", 2, "Streak: 2 wins (best 4 wins)"},
	} {
		st.Streak = c.streak
		got := renderStats(lang(t, c.locale), st)
		if !slices.Contains(strings.Split(got, "\n"), c.want) {
			t.Errorf("%s, streak %d: stats\n%s\nwant the line %q", c.locale, c.streak, got, c.want)
		}
	}
}
