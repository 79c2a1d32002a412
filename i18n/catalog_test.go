package i18n

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/text/language"
)

// newCatalog returns the embedded catalog.
func newCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	return c
}

// brokenCatalog returns the catalog of testdata/broken, which has a
// mistake of each kind the checks look for.
func brokenCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := load(os.DirFS("testdata/broken"), ".")
	if err != nil {
		t.Fatalf("load(testdata/broken) = %v", err)
	}
	return c
}

func TestShippedLanguages(t *testing.T) {
	c := newCatalog(t)
	var got []string
	for _, tag := range c.tags {
		got = append(got, tag.String())
	}
	want := []string{"en", "de", "es", "fr", "ja", "pt-BR", "ru", "zh-Hans"}
	if !slices.Equal(got, want) {
		t.Errorf("languages = %v; want %v", got, want)
	}
	// Every language Discord locales are mapped to is shipped: a typo in
	// a file name would otherwise send its players English quietly.
	for locale, tag := range discordLanguages {
		if _, ok := c.langs[tag]; !ok {
			t.Errorf("%s maps to %s, which has no file", locale, tag)
		}
	}
}

// TestCatalog runs every check on the shipped catalog.
func TestCatalog(t *testing.T) {
	c := newCatalog(t)
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			for _, p := range ch.run(c) {
				t.Error(p)
			}
		})
	}
}

// TestChecksFindBrokenCatalog shows that each check finds the mistakes of
// testdata/broken, so that a clean TestCatalog means something.
func TestChecksFindBrokenCatalog(t *testing.T) {
	c := brokenCatalog(t)
	tests := []struct {
		name  string
		check check
		want  []string // each is part of one problem found
	}{
		{"keys", checkKeys, []string{
			"de: key start.race is missing",
			"de: key extra.greeting is not in English",
		}},
		{"placeholders", checkPlaceholders, []string{
			"de: move.not_your_turn (other) has placeholders [Mark Spieler]; want [Mark Player]",
			"de: count.games (one) has placeholders []; want [Count]",
		}},
		{"plural forms", checkPluralForms, []string{
			"ru: count.games lacks the plural form few",
			"ja: count.games has the plural form one, which is never used",
			"de: start.self has the plural form one, which is never used",
		}},
		{"templates", checkTemplates, []string{
			"de: board.header (other): template: :1: unclosed action",
			"ja: move.not_your_turn (other) shows <no value>",
		}},
		{"command schema", checkSchema, []string{
			`de: command.ttt.start.name = "Starten" is not lowercase`,
			`de: command.ttt.start.size.name = "brett größe" is not a Discord name`,
			`de: command.ttt.board.name and command.ttt.move.name are both "zug" under /ttt`,
			"de: command.ttt.move.description is 101 characters long; want 1 to 100",
			`ja: command.ttt.move.row.name = "行の番号を入力してください、盤面に書いてある数字のとおりに入力" is not a Discord name`,
		}},
		{"command references", checkCommandRefs, []string{
			`de: start.self (other) refers to ["opponent"]; want ["gegner"]`,
			`de: option.move_incomplete (other) refers to ["/ttt move row col"]; want ["/ttt zug zeile spalte"]`,
		}},
		{"terms", checkTerms, []string{
			`de: command.ttt.start.size.description (other) says "Brett"; use Spielfeld`,
			`de: option.move_incomplete (other) says "Sie"; use du (not Sie)`,
			`fr: start.self (other) says "Vous"; use tu`,
			`fr: start.self (other) says "plateau"; use grille`,
		}},
		{"French spacing", checkFrenchSpacing, []string{
			`fr: move.not_your_turn (other) has ':' after "as ton tour "`,
			`fr: start.race (other) has '?' after "u réessaies"`,
		}},
		{"many as other", checkManyAsOther, []string{
			`fr: count.games (many) = "{{.Count}} de parties"; want the other form "{{.Count}} parties"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := tt.check(c)
			for _, want := range tt.want {
				if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
					t.Errorf("no problem reads %q; got:\n%s", want, strings.Join(problems, "\n"))
				}
			}
		})
	}
}

func TestLoadRefusesCatalogWithoutEnglish(t *testing.T) {
	_, err := load(os.DirFS("testdata/no-english"), ".")
	if err == nil || !strings.Contains(err.Error(), "no active.en.toml") {
		t.Errorf("load(testdata/no-english) = %v; want an error about active.en.toml", err)
	}
}

func TestFor(t *testing.T) {
	c := newCatalog(t)
	tests := []struct {
		locales []string
		want    string
	}{
		{nil, "en"},
		{[]string{""}, "en"},
		{[]string{"", ""}, "en"},
		{[]string{"en-US"}, "en"},
		{[]string{"en-GB"}, "en"},
		{[]string{"de"}, "de"},
		{[]string{"es-ES"}, "es"},
		{[]string{"es-419"}, "es"},
		{[]string{"fr"}, "fr"},
		{[]string{"ja"}, "ja"},
		{[]string{"pt-BR"}, "pt-BR"},
		{[]string{"ru"}, "ru"},
		{[]string{"zh-CN"}, "zh-Hans"},
		// Traditional Chinese readers get English, not the other script.
		{[]string{"zh-TW"}, "en"},
		// Discord locales the catalog does not translate, even those close
		// to one it does (Ukrainian to Russian, Norwegian to German…).
		{[]string{"uk"}, "en"},
		{[]string{"no"}, "en"},
		{[]string{"ko"}, "en"},
		{[]string{"id"}, "en"},
		{[]string{"it"}, "en"},
		// The user's locale comes first; the guild's fills in for none.
		{[]string{"fr", "de"}, "fr"},
		{[]string{"", "de"}, "de"},
		{[]string{"", "zh-CN"}, "zh-Hans"},
		{[]string{"en-US", "de"}, "en"},
		// The first non-empty locale decides, even untranslated.
		{[]string{"ko", "de"}, "en"},
		// Tags that are no Discord locale: the closest language, if close.
		{[]string{"de-AT"}, "de"},
		{[]string{"fr-CA"}, "fr"},
		{[]string{"es-MX"}, "es"},
		{[]string{"pt"}, "pt-BR"},
		{[]string{"zh"}, "zh-Hans"},
		{[]string{"zh-Hans-CN"}, "zh-Hans"},
		{[]string{"zh-Hant"}, "en"},
		{[]string{"ja-JP"}, "ja"},
		{[]string{"EN-us"}, "en"},
		{[]string{"not a locale"}, "en"},
		{[]string{"xx"}, "en"},
	}
	for _, tt := range tests {
		if got := c.For(tt.locales...).Tag(); got != tt.want {
			t.Errorf("For(%q).Tag() = %q; want %q", tt.locales, got, tt.want)
		}
	}
}

// TestForEveryDiscordLocale covers every locale Discord sends.
func TestForEveryDiscordLocale(t *testing.T) {
	c := newCatalog(t)
	translated := map[string]string{
		"de": "de", "es-ES": "es", "es-419": "es", "fr": "fr", "ja": "ja",
		"pt-BR": "pt-BR", "ru": "ru", "zh-CN": "zh-Hans",
	}
	for locale := range discordLocales {
		want := translated[locale]
		if want == "" {
			want = "en"
		}
		if got := c.For(locale).Tag(); got != want {
			t.Errorf("For(%q).Tag() = %q; want %q", locale, got, want)
		}
	}
	// discordgo's list is a subset of ours.
	for locale := range discordgo.Locales {
		if locale != discordgo.Unknown && !discordLocales[string(locale)] {
			t.Errorf("discordgo locale %q is not in discordLocales", locale)
		}
	}
}

func TestT(t *testing.T) {
	c := newCatalog(t)
	data := map[string]any{"Mark": "⭕", "Player": "<@42>"}
	tests := []struct {
		locale, key string
		data        map[string]any
		want        string
	}{
		{"en-US", "move.not_your_turn", data, "It's not your turn: ⭕ <@42> is to move."},
		{"de", "move.not_your_turn", data, "Du bist nicht dran: ⭕ <@42> ist am Zug."},
		{"en-US", "button.rematch", nil, "Rematch"},
		{"ja", "button.rematch", nil, "再戦"},
		// Discord markdown and line breaks survive.
		{"en-US", "leaderboard.own_row", map[string]any{"Rank": 12, "Player": "<@7>", "Rating": "1500 ± 700"}, "…\n12. <@7> — 1500 ± 700 (you)"},
		// A key nobody has is shown as itself.
		{"de", "no.such.key", nil, "no.such.key"},
		{"en-US", "no.such.key", nil, "no.such.key"},
	}
	for _, tt := range tests {
		if got := c.For(tt.locale).T(tt.key, tt.data); got != tt.want {
			t.Errorf("For(%q).T(%q) = %q; want %q", tt.locale, tt.key, got, tt.want)
		}
	}
}

func TestN(t *testing.T) {
	c := newCatalog(t)
	tests := []struct {
		locale, key string
		count       int
		want        string
	}{
		{"en-US", "count.games", 0, "0 games"},
		{"en-US", "count.games", 1, "1 game"},
		{"en-US", "count.games", 2, "2 games"},
		{"ru", "count.games", 1, "1 игра"},
		{"ru", "count.games", 3, "3 игры"},
		{"ru", "count.games", 5, "5 игр"},
		{"ru", "count.games", 11, "11 игр"},
		{"ru", "count.games", 21, "21 игра"},
		{"ru", "count.games", 22, "22 игры"},
		{"fr", "count.wins", 0, "0 victoire"},
		{"fr", "count.wins", 2, "2 victoires"},
		{"fr", "count.wins", 1_000_000, "1000000 victoires"},
		{"es", "count.games", 2_000_000, "2000000 partidas"},
		{"ru", "count.games", 1_000_000, "1000000 игр"},
		{"ja", "count.wins", 3, "3勝"},
		{"de", "duration.minutes", 1, "1 Minute"},
		{"de", "duration.minutes", 5, "5 Minuten"},
		{"en-US", "duration.seconds", 60, "60 seconds"},
		{"zh-CN", "duration.seconds", 60, "60 秒"},
	}
	for _, tt := range tests {
		if got := c.For(tt.locale).N(tt.key, tt.count, nil); got != tt.want {
			t.Errorf("For(%q).N(%q, %d) = %q; want %q", tt.locale, tt.key, tt.count, got, tt.want)
		}
	}
	// Count from data wins over count, which still picks the form.
	got := c.For("en-US").N("count.games", 1, map[string]any{"Count": "one"})
	if want := "one game"; got != want {
		t.Errorf(`N("count.games", 1, Count: "one") = %q; want %q`, got, want)
	}
	// Other placeholders of a counted text come from data.
	got = c.For("en-US").N("leaderboard.own_unranked", 5, map[string]any{"Rated": 2})
	if want := "You are not ranked yet: 2 of 5 rated games."; got != want {
		t.Errorf(`N("leaderboard.own_unranked", 5, Rated: 2) = %q; want %q`, got, want)
	}
}

// TestFallback shows that a text missing or broken in a language gives the
// English one, and a text missing everywhere gives its key: an answer
// never fails, nor panics, because of the catalog.
func TestFallback(t *testing.T) {
	c := brokenCatalog(t)
	de := c.For("de")
	tests := []struct {
		name, key string
		data      map[string]any
		want      string
	}{
		{"missing in German", "start.race", nil, "Someone started something in this channel at the same moment. Please try again."},
		{"template broken in German", "board.header", map[string]any{"Size": 3}, "3×3"},
		{"missing everywhere", "no.such.key", nil, "no.such.key"},
	}
	for _, tt := range tests {
		if got := de.T(tt.key, tt.data); got != tt.want {
			t.Errorf("%s: T(%q) = %q; want %q", tt.name, tt.key, got, tt.want)
		}
	}
	// A plural form missing in Russian gives its "other" form.
	if got, want := c.For("ru").N("count.games", 3, nil), "3 игры (other)"; got != want {
		t.Errorf("ru N(count.games, 3) without few = %q; want %q", got, want)
	}
	// A missing plural key in English too.
	if got, want := de.N("no.such.key", 3, nil), "no.such.key"; got != want {
		t.Errorf("N(no.such.key) = %q; want %q", got, want)
	}
}

func TestNilLocalizer(t *testing.T) {
	for _, l := range []*Language{nil, {}} {
		if got := l.T("button.accept", nil); got != "button.accept" {
			t.Errorf("%#v.T(button.accept) = %q; want the key", l, got)
		}
		if got := l.N("count.games", 2, nil); got != "count.games" {
			t.Errorf("%#v.N(count.games) = %q; want the key", l, got)
		}
		if got := l.Tag(); got != "en" {
			t.Errorf("%#v.Tag() = %q; want en", l, got)
		}
	}
}

// A nil Catalog, what a program holds when New failed, still answers:
// with keys, and without localizations.
func TestNilCatalog(t *testing.T) {
	var c *Catalog
	if got := c.For("de").T("button.accept", nil); got != "button.accept" {
		t.Errorf("nil Catalog: T(button.accept) = %q; want the key", got)
	}
	if got := c.Localizations("command.ttt.move.name"); got != nil {
		t.Errorf("nil Catalog: Localizations(command.ttt.move.name) = %v; want nil", got)
	}
}

func TestLocalizations(t *testing.T) {
	c := newCatalog(t)
	got := c.Localizations("command.ttt.move.name")
	want := map[discordgo.Locale]string{
		discordgo.German:       "zug",
		discordgo.SpanishES:    "jugada",
		discordgo.SpanishLATAM: "jugada",
		discordgo.French:       "coup",
		discordgo.Japanese:     "打つ",
		discordgo.PortugueseBR: "jogada",
		discordgo.Russian:      "ход",
		discordgo.ChineseCN:    "落子",
	}
	if !mapsEqual(got, want) {
		t.Errorf("Localizations(command.ttt.move.name) = %v; want %v", got, want)
	}
	if got := c.Localizations("no.such.key"); got != nil {
		t.Errorf("Localizations(no.such.key) = %v; want nil", got)
	}
	// A language that lacks the key is left out, for Discord's default.
	broken := brokenCatalog(t)
	if got := broken.Localizations("start.race"); got[discordgo.German] != "" || got[discordgo.Russian] == "" {
		t.Errorf("broken Localizations(start.race) = %v; want ru and ja, without de", got)
	}
}

func mapsEqual(a, b map[discordgo.Locale]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// TestConcurrentUse is for the race detector: handlers share one Catalog.
func TestConcurrentUse(t *testing.T) {
	c := newCatalog(t)
	var wg sync.WaitGroup
	for _, locale := range []string{"en-US", "de", "ru", "ja", "zh-CN", "pt-BR", "es-419", "fr", "ko"} {
		wg.Go(func() {
			for i := range 50 {
				l := c.For(locale, "de")
				l.N("count.games", i, nil)
				l.T("board.header", map[string]any{"MarkX": "❌", "PlayerX": "<@1>", "MarkO": "⭕", "PlayerO": "<@2>", "Size": 3, "Win": 3})
				c.Localizations("command.ttt.start.name")
			}
		})
	}
	wg.Wait()
}

func BenchmarkT(b *testing.B) {
	c := newCatalog(b)
	data := map[string]any{"Mark": "⭕", "Player": "<@42>"}
	b.ReportAllocs()
	for b.Loop() {
		c.For("de", "en-US").T("move.not_your_turn", data)
	}
}

func BenchmarkN(b *testing.B) {
	c := newCatalog(b)
	b.ReportAllocs()
	for b.Loop() {
		c.For("ru").N("count.games", 5, nil)
	}
}

// openCounter is the embedded catalog, counting the times each file is
// opened.
type openCounter struct {
	mu     sync.Mutex
	opened map[string]int
}

func (o *openCounter) Open(name string) (fs.File, error) {
	o.mu.Lock()
	if strings.HasSuffix(name, ".toml") {
		o.opened[path.Base(name)]++
	}
	o.mu.Unlock()
	return locales.Open(name)
}

// files returns the files opened so far, sorted, each with its count.
func (o *openCounter) files() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var s []string
	for name, n := range o.opened {
		s = append(s, fmt.Sprintf("%s×%d", name, n))
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

// A language's file is read when that language is first asked for,
// once, and not before: a bot whose players speak English never holds the
// seven other languages in memory (about 1.6 MB of its heap).
func TestLanguagesParsedOnFirstUse(t *testing.T) {
	files := &openCounter{opened: map[string]int{}}
	c, err := load(files, "locales")
	if err != nil {
		t.Fatalf("load = %v", err)
	}
	c.For("en-US", "ko").T("move.not_your_turn", nil)
	c.For("", "").N("count.games", 2, nil)
	if got, want := files.files(), "active.en.toml×1"; got != want {
		t.Errorf("after New and English texts, files read: %s; want %s", got, want)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := c.For("de-AT").T("button.accept", nil); got == c.For().T("button.accept", nil) {
				t.Errorf("de-AT: T(button.accept) = %q, the English text", got)
			}
			c.For("", "es-419").N("count.games", 5, nil)
		})
	}
	wg.Wait()
	if got, want := files.files(), "active.de.toml×1 active.en.toml×1 active.es.toml×1"; got != want {
		t.Errorf("after German and Spanish texts, files read: %s; want %s", got, want)
	}
}

// Registering the commands asks Localizations for every name and
// description in every language at each start: that parses no language,
// and gives what the parsed languages give, for every key.
func TestLocalizationsParseNoLanguage(t *testing.T) {
	files := &openCounter{opened: map[string]int{}}
	c, err := load(files, "locales")
	if err != nil {
		t.Fatalf("load = %v", err)
	}
	for key := range c.messages(language.English) {
		if strings.HasPrefix(key, "command.") || strings.HasPrefix(key, "level.") {
			runtime.GC() // as may happen while the commands are built
			c.Localizations(key)
		}
	}
	for _, tag := range c.tags[1:] {
		if c.langs[tag].parsed.Load() != nil {
			t.Errorf("%s was parsed for the commands' Localizations", tag)
		}
	}
	want := "active.de.toml×1 active.en.toml×1 active.es.toml×1 active.fr.toml×1 active.ja.toml×1 active.pt-BR.toml×1 active.ru.toml×1 active.zh-Hans.toml×1"
	if got := files.files(); got != want {
		t.Errorf("files read for the commands' Localizations: %s; want each once: %s", got, want)
	}
	all := newCatalog(t)
	for _, tag := range all.tags {
		all.languageOf(tag)
	}
	for key := range c.messages(language.English) {
		if got, want := c.Localizations(key), all.Localizations(key); !mapsEqual(got, want) {
			t.Errorf("Localizations(%s) = %v before its languages are parsed, %v after", key, got, want)
		}
	}
}

// A language whose file cannot be parsed speaks English, and the check
// that TestCatalog runs says why; the other languages are not affected.
func TestUnparsableLanguage(t *testing.T) {
	en, err := fs.ReadFile(locales, "locales/active.en.toml")
	if err != nil {
		t.Fatal(err)
	}
	de, err := fs.ReadFile(locales, "locales/active.de.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := load(fstest.MapFS{
		"active.en.toml": {Data: en},
		"active.de.toml": {Data: de},
		"active.fr.toml": {Data: []byte("[button.accept\nother = \"Accepter\"\n")},
	}, ".")
	if err != nil {
		t.Fatalf("load = %v; want nil (French is not parsed yet)", err)
	}
	if got, want := c.For("fr").T("button.accept", nil), c.For().T("button.accept", nil); got != want {
		t.Errorf("fr: T(button.accept) = %q; want the English %q", got, want)
	}
	if got := c.Localizations("command.ttt.move.name"); got[discordgo.French] != "" || got[discordgo.German] != "zug" {
		t.Errorf("Localizations(command.ttt.move.name) = %v; want de, and no fr", got)
	}
	problems := checkParse(c)
	if len(problems) != 1 || !strings.HasPrefix(problems[0], "fr: i18n: active.fr.toml: ") {
		t.Errorf("checkParse = %q; want one problem with active.fr.toml", problems)
	}
}
