package i18n

// The checks of a catalog. Each returns the problems it finds, one line
// each; TestCatalog runs them on the shipped catalog, and
// TestChecksFindBrokenCatalog on testdata/broken, to show that each finds
// what it is meant to find.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"unicode/utf8"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// A check looks at a whole catalog.
type check func(c *Catalog) []string

var checks = []struct {
	name string
	run  check
}{
	{"parse", checkParse},
	{"keys", checkKeys},
	{"placeholders", checkPlaceholders},
	{"plural forms", checkPluralForms},
	{"templates", checkTemplates},
	{"command schema", checkSchema},
	{"command references", checkCommandRefs},
	{"terms", checkTerms},
	{"French spacing", checkFrenchSpacing},
	{"many as other", checkManyAsOther},
}

// forms returns the plural forms a message has, by their CLDR names.
func forms(m *goi18n.Message) map[string]string {
	f := make(map[string]string, 2)
	if m == nil {
		return f
	}
	for name, text := range map[string]string{
		"zero": m.Zero, "one": m.One, "two": m.Two, "few": m.Few, "many": m.Many, "other": m.Other,
	} {
		if text != "" {
			f[name] = text
		}
	}
	return f
}

// formNames returns the names of the forms of m, sorted.
func formNames(m *goi18n.Message) []string {
	return slices.Sorted(maps.Keys(forms(m)))
}

// plural says whether English counts key: it has a form besides "other".
func plural(c *Catalog, key string) bool {
	m := c.messages(language.English)[key]
	return m != nil && len(forms(m)) > 1
}

var placeholderRE = regexp.MustCompile(`\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// placeholders returns the names of the {{.Name}} placeholders of a text,
// sorted, each once.
func placeholders(text string) []string {
	var names []string
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// englishPlaceholders returns the placeholders of every form of the
// English key together.
func englishPlaceholders(c *Catalog, key string) []string {
	var all []string
	for _, text := range forms(c.messages(language.English)[key]) {
		all = append(all, placeholders(text)...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// alternatives are the placeholders a caller fills in a second form, so
// that each language can word a value as its grammar needs: by key, each
// alternative and the English placeholder whose value it carries. A count
// of wins goes as "4 wins" (count.wins) and as the bare number, for
// languages that fold the number into a word of their own (現在4連勝).
// A text shows each value once, in either form.
var alternatives = map[string]map[string]string{
	"stats.streak":      {"StreakN": "Streak", "BestN": "Best"},
	"stats.streak_none": {"BestN": "Best"},
}

// dataPlaceholders returns the names the caller of key fills: the English
// placeholders and their alternatives, sorted.
func dataPlaceholders(c *Catalog, key string) []string {
	names := englishPlaceholders(c, key)
	for alt := range alternatives[key] {
		names = append(names, alt)
	}
	slices.Sort(names)
	return names
}

// keys returns the keys of lang, sorted.
func keys(c *Catalog, lang language.Tag) []string {
	return slices.Sorted(maps.Keys(c.messages(lang)))
}

// checkParse finds the files that cannot be parsed: New parses only
// English's, the others are parsed when first asked for.
func checkParse(c *Catalog) []string {
	var problems []string
	for _, tag := range c.tags {
		if err := c.parse(c.langs[tag]).err; err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", tag, err))
		}
	}
	return problems
}

// checkKeys finds the keys a language lacks, and those it has that English
// does not.
func checkKeys(c *Catalog) []string {
	var problems []string
	en := c.messages(language.English)
	for _, lang := range c.tags[1:] {
		for _, key := range keys(c, language.English) {
			if _, ok := c.messages(lang)[key]; !ok {
				problems = append(problems, fmt.Sprintf("%s: key %s is missing", lang, key))
			}
		}
		for _, key := range keys(c, lang) {
			if _, ok := en[key]; !ok {
				problems = append(problems, fmt.Sprintf("%s: key %s is not in English", lang, key))
			}
		}
	}
	return problems
}

// checkPlaceholders finds texts whose placeholders are not those of the
// English text, each in its own form or one of its alternatives: one
// missing leaves the player without a value, one more shows "<no value>",
// and one shown in both forms says it twice.
func checkPlaceholders(c *Catalog) []string {
	var problems []string
	for _, lang := range c.tags {
		for _, key := range keys(c, lang) {
			if _, ok := c.messages(language.English)[key]; !ok {
				continue
			}
			want := englishPlaceholders(c, key)
			f := forms(c.messages(lang)[key])
			for _, form := range slices.Sorted(maps.Keys(f)) {
				got := placeholders(f[form])
				shown := make([]string, len(got))
				for i, name := range got {
					shown[i] = name
					if of, ok := alternatives[key][name]; ok {
						shown[i] = of
					}
				}
				slices.Sort(shown)
				if len(slices.Compact(slices.Clone(shown))) != len(shown) || !slices.Equal(slices.Compact(shown), want) {
					problems = append(problems, fmt.Sprintf("%s: %s (%s) has placeholders %v; want %v", lang, key, form, got, want))
				}
			}
		}
	}
	return problems
}

// probeCounts are the counts pluralForms tries: every small number, and
// the round millions some languages treat apart.
var probeCounts = func() []int {
	n := make([]int, 0, 1003)
	for i := range 1001 {
		n = append(n, i)
	}
	return append(n, 1_000_000, 2_000_000)
}()

// pluralForms returns, for a language, which plural form go-i18n picks
// for each form it can pick, with the first count that picks it; "other"
// is always there (-1 when no whole number picks it, as in Russian, where
// it is for fractions). It asks go-i18n itself, so the forms required are
// those the bot will look up.
func pluralForms(lang language.Tag) (map[string]int, error) {
	b := goi18n.NewBundle(lang)
	probe := &goi18n.Message{ID: "probe", Zero: "zero", One: "one", Two: "two", Few: "few", Many: "many", Other: "other"}
	if err := b.AddMessages(lang, probe); err != nil {
		return nil, err
	}
	l := goi18n.NewLocalizer(b, lang.String())
	seen := map[string]int{"other": -1}
	for _, n := range probeCounts {
		form, err := l.Localize(&goi18n.LocalizeConfig{MessageID: "probe", PluralCount: n})
		if err != nil {
			return nil, err
		}
		if first, ok := seen[form]; !ok || first < 0 {
			seen[form] = n
		}
	}
	return seen, nil
}

// checkPluralForms finds counted texts without every form their language
// needs (CLDR, as go-i18n applies it), and forms the language never uses;
// a text English does not count has "other" alone.
func checkPluralForms(c *Catalog) []string {
	var problems []string
	for _, lang := range c.tags {
		need, err := pluralForms(lang)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: no plural rule: %v", lang, err))
			continue
		}
		for _, key := range keys(c, lang) {
			if _, ok := c.messages(language.English)[key]; !ok {
				continue
			}
			want := []string{"other"}
			if plural(c, key) {
				want = slices.Sorted(maps.Keys(need))
			}
			have := formNames(c.messages(lang)[key])
			for _, form := range want {
				if !slices.Contains(have, form) {
					problems = append(problems, fmt.Sprintf("%s: %s lacks the plural form %s (has %v; want %v)", lang, key, form, have, want))
				}
			}
			for _, form := range have {
				if !slices.Contains(want, form) {
					problems = append(problems, fmt.Sprintf("%s: %s has the plural form %s, which is never used (want %v)", lang, key, form, want))
				}
			}
		}
	}
	return problems
}

// sample returns data for the placeholders of the English key and their
// alternatives: each name in angle quotes, and Count as count.
func sample(c *Catalog, key string, count int) map[string]any {
	data := map[string]any{}
	for _, name := range dataPlaceholders(c, key) {
		data[name] = "‹" + name + "›"
	}
	data["Count"] = count
	return data
}

// checkTemplates runs every form of every text with sample data, as
// go-i18n runs it (text/template, missing keys shown as "<no value>"), and
// runs each text through the Language once for each form a whole number
// picks, which must give the same text without any error.
func checkTemplates(c *Catalog) []string {
	var problems []string
	for _, lang := range c.tags {
		need, err := pluralForms(lang)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: no plural rule: %v", lang, err))
			continue
		}
		for _, key := range keys(c, lang) {
			if _, ok := c.messages(language.English)[key]; !ok {
				continue // checkKeys reports it
			}
			f := forms(c.messages(lang)[key])
			for _, form := range slices.Sorted(maps.Keys(f)) {
				count := need[form]
				data := sample(c, key, count)
				direct, err := execute(f[form], data)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %s (%s): %v", lang, key, form, err))
					continue
				}
				if strings.Contains(direct, "<no value>") {
					problems = append(problems, fmt.Sprintf("%s: %s (%s) shows <no value>: %q", lang, key, form, direct))
				}
				lc := &goi18n.LocalizeConfig{MessageID: key, TemplateData: data}
				switch {
				case !plural(c, key) && form != "other", plural(c, key) && count < 0:
					continue // T and N never show this form
				case plural(c, key):
					lc.PluralCount = count
				}
				got, err := c.languageOf(lang).loc.Localize(lc)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %s with count %d: %v", lang, key, count, err))
				} else if got != direct {
					problems = append(problems, fmt.Sprintf("%s: %s with count %d = %q; want the %s form %q", lang, key, count, got, form, direct))
				}
			}
		}
	}
	return problems
}

// execute runs a text as go-i18n's default template parser does.
func execute(text string, data map[string]any) (string, error) {
	t, err := template.New("").Option("missingkey=default").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// The keys of the command schema: command.ttt.<sub>.name and
// command.ttt.<sub>.<option>.name, each with a .description.
var (
	subNameRE    = regexp.MustCompile(`^command\.ttt\.([^.]+)\.name$`)
	optionNameRE = regexp.MustCompile(`^command\.ttt\.([^.]+)\.([^.]+)\.name$`)
	// nameRE is Discord's rule for command and option names; Go's regexp
	// spells \p{sc=Deva} and \p{sc=Thai} as \p{Devanagari} and \p{Thai}.
	nameRE = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)
)

// text returns the "other" form of key in lang.
func text(c *Catalog, lang language.Tag, key string) string {
	if m := c.messages(lang)[key]; m != nil {
		return m.Other
	}
	return ""
}

// checkSchema applies Discord's rules to the command schema of every
// language: names lowercase, 1 to 32 letters, digits, - or _, and unique
// among the subcommands of /ttt and among the options of a subcommand;
// descriptions and choices 1 to 100 characters; button labels 1 to 80.
func checkSchema(c *Catalog) []string {
	var problems []string
	for _, key := range keys(c, language.English) {
		if base, ok := strings.CutSuffix(key, ".name"); ok && strings.HasPrefix(key, "command.") {
			if _, ok := c.messages(language.English)[base+".description"]; !ok {
				problems = append(problems, fmt.Sprintf("en: %s has no %s.description", key, base))
			}
		}
		if base, ok := strings.CutSuffix(key, ".description"); ok && strings.HasPrefix(key, "command.") && base != "command.ttt" {
			if _, ok := c.messages(language.English)[base+".name"]; !ok {
				problems = append(problems, fmt.Sprintf("en: %s has no %s.name", key, base))
			}
		}
	}
	for _, lang := range c.tags {
		siblings := map[string]map[string]string{} // parent, then name, then its key
		for _, key := range keys(c, lang) {
			s := text(c, lang, key)
			n := utf8.RuneCountInString(s)
			var parent string
			switch {
			case optionNameRE.MatchString(key):
				parent = "/ttt " + text(c, lang, "command.ttt."+optionNameRE.FindStringSubmatch(key)[1]+".name")
			case subNameRE.MatchString(key):
				parent = "/ttt"
			case strings.HasPrefix(key, "command.") && strings.HasSuffix(key, ".description"),
				strings.HasPrefix(key, "level."):
				if n < 1 || n > 100 {
					problems = append(problems, fmt.Sprintf("%s: %s is %d characters long; want 1 to 100: %q", lang, key, n, s))
				}
				continue
			case strings.HasPrefix(key, "button."):
				if n < 1 || n > 80 {
					problems = append(problems, fmt.Sprintf("%s: %s is %d characters long; want 1 to 80: %q", lang, key, n, s))
				}
				continue
			default:
				continue
			}
			if !nameRE.MatchString(s) {
				problems = append(problems, fmt.Sprintf("%s: %s = %q is not a Discord name: 1 to 32 letters, digits, - or _", lang, key, s))
			}
			if strings.ToLower(s) != s {
				problems = append(problems, fmt.Sprintf("%s: %s = %q is not lowercase", lang, key, s))
			}
			if siblings[parent] == nil {
				siblings[parent] = map[string]string{}
			}
			if other, dup := siblings[parent][s]; dup {
				problems = append(problems, fmt.Sprintf("%s: %s and %s are both %q under %s", lang, other, key, s, parent))
			}
			siblings[parent][s] = key
		}
	}
	return problems
}

// names are the command names of one language, keyed by the English ones.
type names struct {
	sub    map[string]string            // subcommand
	option map[string]map[string]string // subcommand, then option
	bare   map[string]string            // option named alone, as `size`
}

// commandNames reads the names of lang from the schema keys; problems
// says when an English option name has two names in lang, so that a bare
// `user` cannot be checked.
func commandNames(c *Catalog, lang language.Tag) (names, []string) {
	var problems []string
	n := names{sub: map[string]string{}, option: map[string]map[string]string{}, bare: map[string]string{}}
	for _, key := range keys(c, language.English) {
		if m := subNameRE.FindStringSubmatch(key); m != nil {
			n.sub[text(c, language.English, key)] = text(c, lang, key)
		}
	}
	for _, key := range keys(c, language.English) {
		m := optionNameRE.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		sub := text(c, language.English, "command.ttt."+m[1]+".name")
		en, local := text(c, language.English, key), text(c, lang, key)
		if n.option[sub] == nil {
			n.option[sub] = map[string]string{}
		}
		n.option[sub][en] = local
		if prev, ok := n.bare[en]; ok && prev != local {
			problems = append(problems, fmt.Sprintf("%s: option %s is named both %q and %q, so `%s` in a text is ambiguous", lang, en, prev, local, en))
		}
		n.bare[en] = local
	}
	return n, problems
}

var codeRE = regexp.MustCompile("`([^`]+)`")

// commandRefs returns what the code spans of a text refer to: each
// "/ttt sub opt…" with option names alone (values dropped), or a bare
// option name, through rename (identity for the language's own text).
// Spans that are a placeholder alone are left out: their value is
// already a name of the right language.
func commandRefs(s string, n *names) []string {
	var refs []string
	for _, m := range codeRE.FindAllStringSubmatch(s, -1) {
		fields := strings.Fields(m[1])
		switch {
		case len(fields) == 0:
		case fields[0] == "/ttt":
			ref := []string{"/ttt"}
			if len(fields) > 1 {
				sub := fields[1]
				ref = append(ref, rename(n, sub, nil))
				for _, f := range fields[2:] {
					name, _, _ := strings.Cut(f, ":")
					var opts map[string]string
					if n != nil {
						opts = n.option[sub]
					}
					ref = append(ref, rename(n, name, opts))
				}
			}
			refs = append(refs, strings.Join(ref, " "))
		case len(fields) == 1 && placeholderRE.MatchString(fields[0]) && placeholderRE.FindString(fields[0]) == fields[0]:
		case len(fields) == 1 && n != nil && n.bare[fields[0]] != "":
			refs = append(refs, n.bare[fields[0]])
		default:
			refs = append(refs, m[1])
		}
	}
	slices.Sort(refs)
	return refs
}

// rename returns the name of the language for English name: from opts if
// given, else a subcommand name; a name it does not know stays.
func rename(n *names, name string, opts map[string]string) string {
	if n == nil {
		return name
	}
	if opts != nil {
		if local, ok := opts[name]; ok {
			return local
		}
		return name
	}
	if local, ok := n.sub[name]; ok {
		return local
	}
	return name
}

// checkCommandRefs finds translated texts whose `code` spans name
// commands and options other than the English text does, in the names of
// their language (the names Discord shows their readers): `/ttt move
// row:2` in English must be `/ttt zug zeile:2` in German.
func checkCommandRefs(c *Catalog) []string {
	var problems []string
	for _, lang := range c.tags[1:] {
		n, p := commandNames(c, lang)
		problems = append(problems, p...)
		for _, key := range keys(c, lang) {
			en := c.messages(language.English)[key]
			if en == nil {
				continue
			}
			want := commandRefs(en.Other, &n)
			f := forms(c.messages(lang)[key])
			for _, form := range slices.Sorted(maps.Keys(f)) {
				if got := commandRefs(f[form], nil); !slices.Equal(got, want) {
					problems = append(problems, fmt.Sprintf("%s: %s (%s) refers to %q; want %q", lang, key, form, got, want))
				}
			}
		}
	}
	return problems
}

// messages returns the parsed messages of a shipped language, by key,
// parsing it if need be; nil if it cannot be parsed.
func (c *Catalog) messages(tag language.Tag) messageSet {
	if l := c.langs[tag]; l != nil {
		return c.parse(l).messages
	}
	return nil
}
