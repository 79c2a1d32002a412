package i18n

// The checks of a language's style: one word for each thing, one form of
// address, its typography, and counted forms that read right with digits.
// Like the checks of check_test.go, each returns one line per problem, and
// TestChecksFindBrokenCatalog shows that each finds what it should.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// A term is a word (a regular expression) a language's texts must not use,
// with what they use instead. In its pattern, \b is a boundary between a
// letter or digit and anything else, in any script (Go's own \b knows
// ASCII only), and a group named w, if any, is the word to report. allow
// lists words that are fine after all.
type term struct {
	pattern string
	use     string
	allow   []string
}

// terms are, for each language, the words its texts avoid: the other
// name of something the catalog names one way (a board is a Spielfeld in
// every German text, never a Brett), and the other form of address (a
// player is du, tu, ты, tú, você throughout). Spanish is read in Spain
// and Latin America (es-ES and es-419), so it avoids what only one side
// says.
var terms = map[string][]term{
	"de": {
		{pattern: `(?i)brett`, use: "Spielfeld"},
		{pattern: `(?i)remis`, use: "Unentschieden"},
		{pattern: `\bPartie`, use: "Spiel"},
		// Sie as address: after a lower-case word or a comma, not at
		// the start of a sentence, where it may be "sie" (it, they).
		{pattern: `[\p{Ll},;]\s+(?P<w>Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b`, use: "du (not Sie)"},
		// ihr, the plural address: "Spielt in #spiele" to one player.
		{pattern: `\b(Spielt|Startet|Wählt|Drückt|Nutzt)\b`, use: "du (not ihr)"},
	},
	"es": {
		{pattern: `(?i)\btablas\b`, use: "empate"},
		{pattern: `(?i)tres en raya`, use: "tres en línea (said in Spain and Latin America)"},
		{pattern: `(?i)\bordenador`, use: "la máquina (ordenador is said in Spain only)"},
		{pattern: `(?i)\bcog(er|e|es|ido|ida)\b`, use: "tomar (coger is rude in much of Latin America)"},
		{pattern: `(?i)\b(vosotros|vosotras|vuestr[oa]s?|os)\b`, use: "tú (vosotros is not said in Latin America)"},
		{pattern: `(?i)\p{L}+(áis|éis)\b`, use: "tú (vosotros is not said in Latin America)"},
		{pattern: `(?i)\busted(es)?\b`, use: "tú"},
	},
	"fr": {
		{pattern: `(?i)\bplateaux?\b`, use: "grille"},
		{pattern: `(?i)\bnulle\b`, use: "match nul"},
		{pattern: `(?i)\b(vous|votre|vos)\b`, use: "tu"},
		{pattern: `(?i)\b\p{L}+ez\b`, use: "tu", allow: []string{"chez", "assez"}},
	},
	"pt-BR": {
		{pattern: `(?i)\b(tu|teu|tua|teus|tuas|ti|contigo|estás)\b`, use: "você"},
		{pattern: `(?i)\b(utilizador|ecrã|equipa)\b`, use: "Brazilian Portuguese (usuário, tela, equipe)"},
	},
	"ru": {
		{pattern: `(?i)дос(к|ок)`, use: "поле"},
		{pattern: `(?i)парти[яиюейьм]`, use: "игра"},
		{pattern: `(?i)\b(вы|вас|вам|вами|ваш\p{L}*)\b`, use: "ты"},
		{pattern: `(?i)\p{L}+(ите|йте)(сь)?\b`, use: "ты (the imperative of ты)"},
	},
	"ja": {
		{pattern: `対局`, use: "ゲーム"},
		// Win is 3 to 10, and つ counts to 9 only: 10つ is wrong.
		{pattern: `\{\{\.Win\}\}\s*つ`, use: "{{.Win}}個"},
		// "5個並べ" alone is a label, not a sentence: 5個並べたら勝ち.
		// 五目並べ is the name of gomoku (15×15, five in a row).
		{pattern: `(?P<w>\p{Han}?(?:個|目)並べ)(?:[^たてるら]|$)`, use: "{{.Win}}個並べたら勝ち", allow: []string{"五目並べ"}},
		// No space between a number and what it counts: 3×3の盤面.
		{pattern: `\{\{\.(Win|Count|Size|Rated|Max|Given|Row|Col|Rank|Min)\}\}[ \t]+[\p{Han}\p{Hiragana}\p{Katakana}]`, use: "no space after a number"},
	},
	"zh-Hans": {
		{pattern: `和棋|和局`, use: "平局"},
		{pattern: `您`, use: "你"},
	},
}

// wordBoundary stands for \b in a term's pattern: the start or end of the
// text, or a character that is neither a letter nor a digit.
const wordBoundary = `(?:^|$|[^\p{L}\p{N}_])`

// compileTerm compiles a term's pattern with \b made Unicode-aware.
func compileTerm(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(strings.ReplaceAll(pattern, `\b`, wordBoundary))
}

// allForms returns every form of every text of lang, by key and form.
func allForms(c *Catalog, lang language.Tag, visit func(key, form, text string)) {
	for _, key := range keys(c, lang) {
		f := forms(c.messages(lang)[key])
		for _, form := range slices.Sorted(maps.Keys(f)) {
			visit(key, form, f[form])
		}
	}
}

// checkTerms finds the words each language has agreed not to use.
func checkTerms(c *Catalog) []string {
	var problems []string
	for _, lang := range c.tags {
		rules := terms[lang.String()]
		if len(rules) == 0 {
			continue
		}
		res := make([]*regexp.Regexp, len(rules))
		for i, r := range rules {
			re, err := compileTerm(r.pattern)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: term %q: %v", lang, r.pattern, err))
				return problems
			}
			res[i] = re
		}
		allForms(c, lang, func(key, form, text string) {
			for i, re := range res {
				w := re.SubexpIndex("w")
				for _, m := range re.FindAllStringSubmatch(text, -1) {
					word := strings.TrimFunc(m[0], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '{' && r != '}' })
					if w >= 0 {
						word = m[w]
					}
					if slices.ContainsFunc(rules[i].allow, func(a string) bool { return strings.EqualFold(a, word) }) {
						continue
					}
					problems = append(problems, fmt.Sprintf("%s: %s (%s) says %q; use %s", lang, key, form, word, rules[i].use))
				}
			}
		})
	}
	return problems
}

// markup matches what a French text keeps as it is, whatever the spacing
// around its colons: code spans (`/ttt jouer adversaire:@x`), Discord
// markup (<t:…:R>, <@…>, <https://…>) and placeholders.
var markup = regexp.MustCompile("`[^`]*`|<[^<>\\s]*>|\\{\\{[^}]*\\}\\}")

// frenchTight are the signs French typography separates from the word
// before them with a narrow no-break space (U+202F): the high signs
// : ; ! ? and the percent sign.
const frenchTight = ":;!?%"

// checkFrenchSpacing finds, in French texts, a : ; ! ? or % that does not
// follow a narrow no-break space (U+202F): neither a space, where the
// sign may wrap to the next line alone, nor nothing. A sign right after
// another (?!) follows it.
func checkFrenchSpacing(c *Catalog) []string {
	var problems []string
	if c.messages(language.French) == nil {
		return nil
	}
	allForms(c, language.French, func(key, form, text string) {
		if strings.HasPrefix(key, "command.") && strings.HasSuffix(key, ".name") {
			return // a command name has no punctuation to space
		}
		prose := markup.ReplaceAllString(text, "x")
		prev := rune(0)
		for i, r := range prose {
			if strings.ContainsRune(frenchTight, r) && prev != '\u202f' && !strings.ContainsRune(frenchTight, prev) {
				before := prose[max(0, i-12):i]
				for !utf8.ValidString(before) {
					before = before[1:]
				}
				problems = append(problems, fmt.Sprintf("fr: %s (%s) has %q after %q; want U+202F (narrow no-break space) before %c", key, form, r, before, r))
			}
			prev = r
		}
	})
	return problems
}

// checkManyAsOther finds counted texts whose "many" form differs from
// "other" in a language whose CLDR rule gives "many" to whole millions
// only (French, Spanish, Portuguese: "1 million de parties"). The bot
// writes counts in digits, and "1000000" reads like any other number:
// "1000000 parties". Where "many" is a form of everyday numbers, as in
// Russian ("5 игр"), it stays its own.
func checkManyAsOther(c *Catalog) []string {
	var problems []string
	for _, lang := range c.tags {
		need, err := pluralForms(lang)
		if err != nil {
			continue // checkPluralForms reports it
		}
		if first, ok := need["many"]; !ok || first < 1_000_000 {
			continue
		}
		for _, key := range keys(c, lang) {
			m := c.messages(lang)[key]
			if m.Many != "" && m.Many != m.Other {
				problems = append(problems, fmt.Sprintf("%s: %s (many) = %q; want the other form %q: %d is written in digits", lang, key, m.Many, m.Other, need["many"]))
			}
		}
	}
	return problems
}
