package bot

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// inLocale returns cmds as a player whose Discord speaks locale sees them:
// every name and description replaced by its translation, where there is
// one. Discord checks each localization by the rules of the default.
func inLocale(t *testing.T, cmds []*discordgo.ApplicationCommand, locale discordgo.Locale) []*discordgo.ApplicationCommand {
	t.Helper()
	buf, err := json.Marshal(cmds)
	if err != nil {
		t.Fatal(err)
	}
	var out []*discordgo.ApplicationCommand
	if err := json.Unmarshal(buf, &out); err != nil {
		t.Fatal(err)
	}
	pick := func(s *string, m map[discordgo.Locale]string) {
		if v, ok := m[locale]; ok {
			*s = v
		}
	}
	var options func([]*discordgo.ApplicationCommandOption)
	options = func(opts []*discordgo.ApplicationCommandOption) {
		for _, o := range opts {
			pick(&o.Name, o.NameLocalizations)
			pick(&o.Description, o.DescriptionLocalizations)
			o.NameLocalizations, o.DescriptionLocalizations = nil, nil
			for _, c := range o.Choices {
				pick(&c.Name, c.NameLocalizations)
				c.NameLocalizations = nil
			}
			options(o.Options)
		}
	}
	for _, c := range out {
		if c.NameLocalizations != nil {
			pick(&c.Name, *c.NameLocalizations)
		}
		if c.DescriptionLocalizations != nil {
			pick(&c.Description, *c.DescriptionLocalizations)
		}
		c.NameLocalizations, c.DescriptionLocalizations = nil, nil
		options(c.Options)
	}
	return out
}

// locales returns every locale that a localization of cmds names.
func locales(cmds []*discordgo.ApplicationCommand) []discordgo.Locale {
	seen := map[discordgo.Locale]bool{}
	add := func(m map[discordgo.Locale]string) {
		for l := range m {
			seen[l] = true
		}
	}
	var options func([]*discordgo.ApplicationCommandOption)
	options = func(opts []*discordgo.ApplicationCommandOption) {
		for _, o := range opts {
			add(o.NameLocalizations)
			add(o.DescriptionLocalizations)
			for _, c := range o.Choices {
				add(c.NameLocalizations)
			}
			options(o.Options)
		}
	}
	for _, c := range cmds {
		if c.NameLocalizations != nil {
			add(*c.NameLocalizations)
		}
		if c.DescriptionLocalizations != nil {
			add(*c.DescriptionLocalizations)
		}
		options(c.Options)
	}
	return slices.Sorted(maps.Keys(seen))
}

// longest is the length, in code points, of the longest of s and its
// localizations: what Discord counts towards a command's size.
func longest(s string, m map[discordgo.Locale]string) int {
	n := utf8.RuneCountInString(s)
	for _, v := range m {
		n = max(n, utf8.RuneCountInString(v))
	}
	return n
}

// size is what Discord counts of a command against its 4000 characters:
// names, descriptions and choice names and values, each at its longest
// localization.
func size(c *discordgo.ApplicationCommand) int {
	var names, descs map[discordgo.Locale]string
	if c.NameLocalizations != nil {
		names = *c.NameLocalizations
	}
	if c.DescriptionLocalizations != nil {
		descs = *c.DescriptionLocalizations
	}
	n := longest(c.Name, names) + longest(c.Description, descs)
	var options func([]*discordgo.ApplicationCommandOption)
	options = func(opts []*discordgo.ApplicationCommandOption) {
		for _, o := range opts {
			n += longest(o.Name, o.NameLocalizations) + longest(o.Description, o.DescriptionLocalizations)
			for _, ch := range o.Choices {
				n += longest(ch.Name, ch.NameLocalizations) + utf8.RuneCountInString(ch.Value.(string))
			}
			options(o.Options)
		}
	}
	options(c.Options)
	return n
}

// TestCommandsInEveryLanguage registers the schema as players of each
// language see it with the fake Discord, which refuses what Discord
// refuses: names that are not lower case letters, digits, - or _, or
// longer than 32; descriptions of more than 100 characters; two options
// of one name. It also checks what the fake cannot see in one language at
// a time: the locales are Discord's, and the command with its longest
// localizations stays within 4000 characters.
func TestCommandsInEveryLanguage(t *testing.T) {
	cmds := Commands()
	srv := discordtest.NewServer("commands-test-token")
	t.Cleanup(srv.Close)
	s, err := discord.NewSession(discord.Options{Token: srv.Token, APIURL: srv.APIURL})
	if err != nil {
		t.Fatal(err)
	}

	ls := locales(cmds)
	if len(ls) < 8 {
		t.Fatalf("localized in %v; want every Discord locale of the catalog's languages", ls)
	}
	for _, l := range ls {
		if _, ok := discordgo.Locales[l]; !ok {
			t.Errorf("localization for %q, which is not a Discord locale", l)
		}
		t.Run(string(l), func(t *testing.T) {
			if _, err := s.ApplicationCommandBulkOverwrite(srv.AppID, srv.NewID(), inLocale(t, cmds, l)); err != nil {
				t.Errorf("Discord refuses the %s schema: %v", l, err)
			}
		})
	}
	if n := size(cmds[0]); n > 4000 {
		t.Errorf("/ttt with its longest localizations is %d characters; want <= 4000", n)
	}
}

// The names Discord sends back are the English ones, whatever the player's
// language: each is the catalog's English name, and the handlers route by
// it. Every name and description has its translations: players of German
// type /ttt zug.
func TestCommandsNamesAndTranslations(t *testing.T) {
	en := english()
	b, _, _ := newTestBot(t)
	ttt := Commands()[0]
	if ttt.Name != "ttt" || ttt.NameLocalizations != nil {
		t.Errorf("command /%s with name localizations %v; want /ttt in every language", ttt.Name, ttt.NameLocalizations)
	}
	translated := []discordgo.Locale{discordgo.German, discordgo.SpanishES, discordgo.SpanishLATAM, discordgo.French,
		discordgo.Japanese, discordgo.PortugueseBR, discordgo.Russian, discordgo.ChineseCN}
	check := func(what, name, wantName string, localizations ...map[discordgo.Locale]string) {
		t.Helper()
		if name != wantName {
			t.Errorf("%s is named %q; the catalog's English name is %q", what, name, wantName)
		}
		for _, m := range localizations {
			for _, l := range translated {
				if m[l] == "" {
					t.Errorf("%s has no %s translation", what, l)
				}
			}
		}
	}
	if ttt.DescriptionLocalizations == nil {
		t.Fatal("/ttt has no description localizations")
	}
	check("/ttt", ttt.Name, "ttt", *ttt.DescriptionLocalizations)
	for _, sub := range ttt.Options {
		key := "command.ttt." + sub.Name
		check(key, sub.Name, en.T(key+".name", nil), sub.NameLocalizations, sub.DescriptionLocalizations)
		if b.routes.commands[sub.Name] == nil {
			t.Errorf("/ttt %s has no handler", sub.Name)
		}
		for _, o := range sub.Options {
			check(key+"."+o.Name, o.Name, en.T(key+"."+o.Name+".name", nil), o.NameLocalizations, o.DescriptionLocalizations)
			for _, ch := range o.Choices {
				check("choice "+ch.Name, ch.Name, en.T("level."+ch.Name, nil), ch.NameLocalizations)
			}
		}
		if sub.Name == "move" && sub.NameLocalizations[discordgo.German] != "zug" {
			t.Errorf("/ttt move in German is /ttt %s; want /ttt zug", sub.NameLocalizations[discordgo.German])
		}
	}
}
