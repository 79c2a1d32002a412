// Package i18n holds every text players see, in each language the bot
// speaks, and picks the language of an answer from the Discord locales of
// the interaction it answers.
//
// The texts live in locales/active.<lang>.toml, in go-i18n's format, so
// that a translator can edit them without reading Go; they are embedded in
// the binary. English is the source and the fallback: a text missing in a
// language is shown in English, and a key missing everywhere is shown as
// the key itself, so a catalog mistake never fails an answer.
//
// A Catalog is built once and shared; a Localizer is what a handler asks
// for with the locales of its interaction (discordgo gives the guild's as
// a pointer, nil outside a guild):
//
//	var guild string
//	if i.GuildLocale != nil {
//		guild = string(*i.GuildLocale)
//	}
//	l := catalog.For(string(i.Locale), guild)        // an answer to the user
//	everyone := catalog.For(guild, string(i.Locale)) // a message the channel sees (a DM has no guild locale)
//	text := l.T("move.not_your_turn", map[string]any{"Mark": "⭕", "Player": "<@42>"})
package i18n

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bwmarrin/discordgo"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/active.*.toml
var locales embed.FS

// A Catalog holds the texts of every shipped language, parsed once.
//
// Build it with New; the zero Catalog holds nothing and is not usable,
// but a nil *Catalog is: For gives the nil Localizer (every text is its
// key) and Localizations nil, so that a program whose catalog failed to
// parse can still answer while it reports the error. A Catalog never
// changes after New, so it is safe for concurrent use.
type Catalog struct {
	// messages are the parsed files: language, then key. Only the tests
	// and Localizations read them; texts come from the bundle.
	messages map[language.Tag]map[string]*goi18n.Message
	// localizers has one Localizer per loaded language, shared by every
	// For that picks it.
	localizers map[language.Tag]*Localizer
	// tags are the loaded languages, English first, and matcher matches
	// language tags that are not Discord locales against them.
	tags    []language.Tag
	matcher language.Matcher
}

// New parses the embedded catalog: every file, every call, so call it once.
// It fails only if a file cannot be read or parsed, or if English, the
// fallback, is missing; a key missing in some language is not an error
// (the tests check that none is).
func New() (*Catalog, error) {
	return load(locales, "locales")
}

// load parses every active.<lang>.toml in dir of fsys.
func load(fsys fs.FS, dir string) (*Catalog, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "active.*.toml"))
	if err != nil {
		return nil, fmt.Errorf("i18n: list %s: %w", dir, err)
	}
	bundle := goi18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	c := &Catalog{
		messages:   make(map[language.Tag]map[string]*goi18n.Message, len(names)),
		localizers: make(map[language.Tag]*Localizer, len(names)),
	}
	for _, name := range names {
		buf, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("i18n: %w", err)
		}
		f, err := bundle.ParseMessageFileBytes(buf, name)
		if err != nil {
			return nil, fmt.Errorf("i18n: %s: %w", name, err)
		}
		if f.Tag == language.Und {
			return nil, fmt.Errorf("i18n: %s: no language in the file name", name)
		}
		if _, dup := c.messages[f.Tag]; dup {
			return nil, fmt.Errorf("i18n: %s: a second file for %s", name, f.Tag)
		}
		byKey := make(map[string]*goi18n.Message, len(f.Messages))
		for _, m := range f.Messages {
			byKey[m.ID] = m
		}
		c.messages[f.Tag] = byKey
	}
	if _, ok := c.messages[language.English]; !ok {
		return nil, fmt.Errorf("i18n: no active.en.toml in %s: English is the fallback of every text", dir)
	}
	english := goi18n.NewLocalizer(bundle, language.English.String())
	c.tags = append(c.tags, language.English)
	for tag := range c.messages {
		if tag != language.English {
			c.tags = append(c.tags, tag)
		}
	}
	// A fixed order, so that a match never depends on map iteration.
	slices.SortFunc(c.tags[1:], func(a, b language.Tag) int { return strings.Compare(a.String(), b.String()) })
	for _, tag := range c.tags {
		l := &Localizer{
			lang:    tag,
			loc:     goi18n.NewLocalizer(bundle, tag.String()),
			english: english,
			simple:  make(map[string]*simple, len(c.messages[language.English])),
		}
		for key, m := range c.messages[language.English] {
			if own, ok := c.messages[tag][key]; ok {
				m = own
			}
			if s := compile(m); s != nil {
				l.simple[key] = s
			}
		}
		c.localizers[tag] = l
	}
	c.matcher = language.NewMatcher(c.tags)
	return c, nil
}

// For returns the Localizer for the first non-empty locale: pass the
// user's locale, then the guild's (for a message everyone in the channel
// sees, the guild's first: a DM has none). The first non-empty one
// decides even when the catalog does not speak it, and then the answer is
// in English: a player who set Discord to Korean reads English more likely
// than the server's language. Without any locale the answer is in English
// too.
//
// Locales are Discord's codes ("en-US", "es-419", "pt-BR", "zh-CN", …);
// other BCP 47 tags ("de-AT", "pt") are matched to the closest shipped
// language. For costs a map lookup for a Discord locale, a language match
// for any other tag, and allocates nothing.
func (c *Catalog) For(locales ...string) *Localizer {
	if c == nil {
		return nil
	}
	for _, l := range locales {
		if l != "" {
			return c.localizers[c.match(l)]
		}
	}
	return c.localizers[language.English]
}

// discordLanguages maps the Discord locales the catalog translates to
// their language; every other Discord locale gets English.
//
// zh-TW, Traditional Chinese, gets English, not the Simplified Chinese of
// zh-CN: CLDR does not fall back from one script to the other, and many
// readers of Traditional Chinese prefer English to a text in the other
// script. A zh-Hant file, once written, only needs a line here.
var discordLanguages = map[discordgo.Locale]language.Tag{
	discordgo.EnglishUS:    language.English,
	discordgo.EnglishGB:    language.English,
	discordgo.ChineseCN:    language.SimplifiedChinese,
	discordgo.ChineseTW:    language.English,
	discordgo.SpanishES:    language.Spanish,
	discordgo.SpanishLATAM: language.Spanish,
	discordgo.PortugueseBR: language.BrazilianPortuguese,
	discordgo.German:       language.German,
	discordgo.French:       language.French,
	discordgo.Russian:      language.Russian,
	discordgo.Japanese:     language.Japanese,
}

// discordLocales are the Discord locales of every language Discord has
// (discordgo v0.29.0 lacks Indonesian); the ones missing from
// discordLanguages get English without a language match, which could
// otherwise tie them to a loaded language they merely resemble.
var discordLocales = map[string]bool{
	"id": true, "da": true, "de": true, "en-GB": true, "en-US": true, "es-ES": true,
	"es-419": true, "fr": true, "hr": true, "it": true, "lt": true, "hu": true,
	"nl": true, "no": true, "pl": true, "pt-BR": true, "ro": true, "fi": true,
	"sv-SE": true, "vi": true, "tr": true, "cs": true, "el": true, "bg": true,
	"ru": true, "uk": true, "hi": true, "th": true, "zh-CN": true, "ja": true,
	"zh-TW": true, "ko": true,
}

// match returns the loaded language for one non-empty locale.
func (c *Catalog) match(locale string) language.Tag {
	if tag, ok := discordLanguages[discordgo.Locale(locale)]; ok {
		if _, loaded := c.localizers[tag]; loaded {
			return tag
		}
		return language.English
	}
	if discordLocales[locale] {
		return language.English
	}
	tag, err := language.Parse(locale)
	if err != nil {
		return language.English
	}
	_, i, confidence := c.matcher.Match(tag)
	if confidence < language.High {
		return language.English
	}
	return c.tags[i]
}

// Localizations returns the translations of key for every Discord locale
// whose language the catalog translates, for the NameLocalizations and
// DescriptionLocalizations of a command, an option or a choice: es-ES and
// es-419 both get the Spanish text, zh-CN the Chinese one, and so on.
// English locales are left out (the English text is the default name or
// description), and so is a language that lacks key, so that Discord shows
// the default there too. It returns nil if no language has key.
//
// ApplicationCommand takes a pointer to the map; its options and choices
// take the map itself.
func (c *Catalog) Localizations(key string) map[discordgo.Locale]string {
	if c == nil {
		return nil
	}
	var m map[discordgo.Locale]string
	for locale, tag := range discordLanguages {
		if tag == language.English {
			continue
		}
		if _, ok := c.messages[tag][key]; !ok {
			continue
		}
		if m == nil {
			m = make(map[discordgo.Locale]string)
		}
		m[locale] = c.localizers[tag].T(key, nil)
	}
	return m
}
