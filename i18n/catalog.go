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
// A Catalog is built once and shared; a Language is what a handler asks
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
	"sync"
	"sync/atomic"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/bwmarrin/discordgo"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/active.*.toml
var locales embed.FS

// unmarshal reads the catalog's files.
var unmarshal = map[string]goi18n.UnmarshalFunc{"toml": toml.Unmarshal}

// A Catalog holds the texts of every shipped language. English, the
// fallback, is parsed by New; every other language when it
// is first asked for, so that a bot whose players all speak one language
// keeps one language in memory (each parsed language holds about 0.25 MB).
//
// Build it with New; the zero Catalog holds nothing and is not usable,
// but a nil *Catalog is: For gives the nil Language (every text is its
// key) and Localizations nil, so that a program whose catalog failed to
// parse can still answer while it reports the error. A Catalog is safe
// for concurrent use.
type Catalog struct {
	fsys fs.FS
	// tags are the shipped languages, English first, and matcher matches
	// language tags that are not Discord locales against them.
	tags    []language.Tag
	matcher language.Matcher
	// langs has one entry per shipped language; the map never changes
	// after New, its entries parse themselves once.
	langs   map[language.Tag]*lang
	english *Language

	// mu guards bundle: go-i18n's Bundle must not change while a
	// Language reads it, and a language parsed late adds its texts.
	mu     sync.RWMutex
	bundle *goi18n.Bundle
}

// A lang is one shipped language of a Catalog.
type lang struct {
	tag  language.Tag
	file string // its path in Catalog.fsys

	mu     sync.Mutex             // held while parsing
	parsed atomic.Pointer[parsed] // nil until parsed
	// texts are what Localizations read of the file while the language
	// is not parsed: the plain strings of its texts (about 70 kB, a
	// third of a parsed language), kept for textsKeptFor because
	// registering the commands asks for dozens of keys in a row, at
	// start, and nothing after. Guarded by mu.
	texts map[string]fileText
}

// parsed is a language once parsed: its messages and its Language, or
// why its file could not be parsed (then For gives English).
type parsed struct {
	messages messageSet
	loc      *Language
	err      error
}

// A messageSet is a file's messages, by key.
type messageSet map[string]*goi18n.Message

// New reads the embedded catalog: the list of languages, and English's
// texts. It fails only if a file name names no language, two files name
// the same one, or English, the fallback, is missing or cannot be parsed.
// Another language's file is parsed when the language is first asked for;
// if it cannot be, that language gets English (the tests parse every
// file, and check that no key is missing in any).
func New() (*Catalog, error) {
	return load(locales, "locales")
}

// load reads every active.<lang>.toml in dir of fsys, and parses English's.
func load(fsys fs.FS, dir string) (*Catalog, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "active.*.toml"))
	if err != nil {
		return nil, fmt.Errorf("i18n: list %s: %w", dir, err)
	}
	c := &Catalog{
		fsys:   fsys,
		langs:  make(map[language.Tag]*lang, len(names)),
		bundle: goi18n.NewBundle(language.English),
	}
	for _, name := range names {
		code := strings.TrimSuffix(strings.TrimPrefix(path.Base(name), "active."), ".toml")
		tag, err := language.Parse(code)
		if err != nil || tag == language.Und {
			return nil, fmt.Errorf("i18n: %s: no language in the file name", name)
		}
		if _, dup := c.langs[tag]; dup {
			return nil, fmt.Errorf("i18n: %s: a second file for %s", name, tag)
		}
		c.langs[tag] = &lang{tag: tag, file: name}
		if tag != language.English {
			c.tags = append(c.tags, tag)
		}
	}
	en, ok := c.langs[language.English]
	if !ok {
		return nil, fmt.Errorf("i18n: no active.en.toml in %s: English is the fallback of every text", dir)
	}
	// A fixed order, so that a match never depends on map iteration.
	slices.SortFunc(c.tags, func(a, b language.Tag) int { return strings.Compare(a.String(), b.String()) })
	c.tags = slices.Insert(c.tags, 0, language.English)
	c.matcher = language.NewMatcher(c.tags)
	p := c.parse(en)
	if p.err != nil {
		return nil, p.err
	}
	c.english = p.loc
	return c, nil
}

// parse returns l parsed, parsing it on the first call.
func (c *Catalog) parse(l *lang) *parsed {
	if p := l.parsed.Load(); p != nil {
		return p
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.parsed.Load(); p != nil {
		return p
	}
	p := &parsed{}
	var f *goi18n.MessageFile
	p.messages, f, p.err = c.read(l)
	if p.err == nil {
		c.mu.Lock()
		p.err = c.bundle.AddMessages(l.tag, f.Messages...)
		c.mu.Unlock()
	}
	if p.err != nil {
		p.messages = nil
		l.parsed.Store(p)
		return p
	}
	// Every language has a simple text for each English key: its own,
	// or English's where it lacks the key. New parses English first.
	base, english := p.messages, (*goi18n.Localizer)(nil)
	if c.english != nil {
		base, english = c.langs[language.English].parsed.Load().messages, c.english.loc
	}
	loc := &Language{
		tag:     l.tag,
		loc:     goi18n.NewLocalizer(c.bundle, l.tag.String()),
		english: english,
		mu:      &c.mu,
		simple:  make(map[string]*simple, len(base)),
	}
	if loc.english == nil {
		loc.english = loc.loc
	}
	for key, m := range base {
		if own, ok := p.messages[key]; ok {
			m = own
		}
		if s := compile(m); s != nil {
			loc.simple[key] = s
		}
	}
	p.loc = loc
	l.texts = nil
	l.parsed.Store(p)
	return p
}

// read parses l's file, by key.
func (c *Catalog) read(l *lang) (messageSet, *goi18n.MessageFile, error) {
	buf, err := fs.ReadFile(c.fsys, l.file)
	if err != nil {
		return nil, nil, fmt.Errorf("i18n: %w", err)
	}
	f, err := goi18n.ParseMessageFileBytes(buf, l.file, unmarshal)
	if err != nil {
		return nil, nil, fmt.Errorf("i18n: %s: %w", l.file, err)
	}
	if f.Tag != l.tag {
		return nil, nil, fmt.Errorf("i18n: %s: go-i18n reads the language %s from the file name, not %s", l.file, f.Tag, l.tag)
	}
	byKey := make(messageSet, len(f.Messages))
	for _, m := range f.Messages {
		byKey[m.ID] = m
	}
	return byKey, f, nil
}

// languageOf returns the Language of a shipped language, parsing the
// language if need be, or English's if it cannot be parsed.
func (c *Catalog) languageOf(tag language.Tag) *Language {
	l := c.langs[tag]
	if l == nil {
		return c.english
	}
	if p := c.parse(l); p.loc != nil {
		return p.loc
	}
	return c.english
}

// For returns the Language for the first non-empty locale: pass the
// user's locale, then the guild's (for a message everyone in the channel
// sees, the guild's first: a DM has none). The first non-empty one
// decides even when the catalog does not speak it, and then the answer is
// in English: a player who set Discord to Korean reads English more likely
// than the server's language. Without any locale the answer is in English
// too.
//
// Locales are Discord's codes ("en-US", "es-419", "pt-BR", "zh-CN", …);
// other BCP 47 tags ("de-AT", "pt") are matched to the closest shipped
// language. The first For of a language parses it (a few milliseconds);
// after that For costs a map lookup for a Discord locale, a language match
// for any other tag, and allocates nothing.
func (c *Catalog) For(locales ...string) *Language {
	if c == nil {
		return nil
	}
	for _, l := range locales {
		if l != "" {
			return c.languageOf(c.match(l))
		}
	}
	return c.english
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
// otherwise tie them to a shipped language they merely resemble.
var discordLocales = map[string]bool{
	"id": true, "da": true, "de": true, "en-GB": true, "en-US": true, "es-ES": true,
	"es-419": true, "fr": true, "hr": true, "it": true, "lt": true, "hu": true,
	"nl": true, "no": true, "pl": true, "pt-BR": true, "ro": true, "fi": true,
	"sv-SE": true, "vi": true, "tr": true, "cs": true, "el": true, "bg": true,
	"ru": true, "uk": true, "hi": true, "th": true, "zh-CN": true, "ja": true,
	"zh-TW": true, "ko": true,
}

// match returns the shipped language for one non-empty locale.
func (c *Catalog) match(locale string) language.Tag {
	if tag, ok := discordLanguages[discordgo.Locale(locale)]; ok {
		if _, shipped := c.langs[tag]; shipped {
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
// The commands are registered at every start, in every language, while
// most of those languages may never be spoken: Localizations reads a
// language that For has not parsed without keeping it, unless key's text
// needs go-i18n's templates (no name or description does).
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
		text, ok := c.text(tag, key)
		if !ok {
			continue
		}
		if m == nil {
			m = make(map[discordgo.Locale]string)
		}
		m[locale] = text
	}
	return m
}

// text returns T(key, nil) in a shipped language, and false if the
// language lacks key (or is not shipped, or cannot be parsed).
func (c *Catalog) text(tag language.Tag, key string) (string, bool) {
	l := c.langs[tag]
	if l == nil {
		return "", false
	}
	texts, err := c.unparsed(l)
	if err != nil {
		return "", false
	}
	if texts == nil {
		p := l.parsed.Load()
		if _, ok := p.messages[key]; !ok || p.loc == nil {
			return "", false
		}
		return p.loc.T(key, nil), true
	}
	t, ok := texts[key]
	switch {
	case !ok:
		return "", false
	case t.plain:
		return t.text, true
	}
	return c.languageOf(tag).T(key, nil), true
}

// A fileText is a text of a language not parsed, for Localizations.
type fileText struct {
	text string
	// plain says that text is what T gives for the key: T fills it
	// without go-i18n's templates, as every command name and description.
	// Otherwise the language must be parsed to say it.
	plain bool
}

// unparsed returns the texts of l's file for Localizations, by key,
// reading the file on the first call; nil if l is parsed.
func (c *Catalog) unparsed(l *lang) (map[string]fileText, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.parsed.Load() != nil {
		return nil, nil
	}
	if l.texts != nil {
		return l.texts, nil
	}
	messages, _, err := c.read(l)
	if err != nil {
		return nil, err
	}
	texts := make(map[string]fileText, len(messages))
	for key, m := range messages {
		var t fileText
		if s := compile(m); s != nil {
			t.text, t.plain = s.fill(nil)
		}
		texts[key] = t
	}
	l.texts = texts
	time.AfterFunc(textsKeptFor, func() {
		l.mu.Lock()
		l.texts = nil
		l.mu.Unlock()
	})
	return texts, nil
}

// textsKeptFor is how long Localizations keeps what it read of a file.
const textsKeptFor = time.Minute
