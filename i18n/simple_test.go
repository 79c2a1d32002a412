package i18n

import (
	"testing"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// T's own filling of placeholders gives exactly what go-i18n's templates
// give, for every text of every language: with strings, with integers,
// and with no data at all.
func TestSimpleTextsAsTemplates(t *testing.T) {
	c := newCatalog(t)
	filled := 0
	for _, tag := range c.tags {
		l := c.languageOf(tag)
		if len(l.simple) == 0 {
			t.Fatalf("%s: no simple text at all", tag)
		}
		for key := range c.messages(language.English) {
			strs := sample(c, key, 7) // strings, and Count an int
			ints := map[string]any{}
			for i, name := range dataPlaceholders(c, key) {
				ints[name] = 1000 + i
			}
			for _, data := range []map[string]any{strs, ints, nil} {
				want := l.localize(&goi18n.LocalizeConfig{MessageID: key, TemplateData: data})
				if got := l.T(key, data); got != want {
					t.Errorf("%s %s with %v: T gives %q; the template %q", tag, key, data, got, want)
				}
				if l.simple[key] != nil {
					filled++
				}
			}
		}
	}
	if filled == 0 {
		t.Fatal("T filled no text itself")
	}
}

// A value T does not print itself (here a float) goes to the template.
func TestSimpleTextOtherValues(t *testing.T) {
	l := newCatalog(t).For("en-US")
	s := l.simple["move.not_your_turn"]
	if s == nil {
		t.Fatal("move.not_your_turn is not simple")
	}
	if _, ok := s.fill(map[string]any{"Mark": 1.5, "Player": "<@42>"}); ok {
		t.Error("fill printed a float itself")
	}
	want := l.localize(&goi18n.LocalizeConfig{MessageID: "move.not_your_turn", TemplateData: map[string]any{"Mark": 1.5, "Player": "<@42>"}})
	if got := l.T("move.not_your_turn", map[string]any{"Mark": 1.5, "Player": "<@42>"}); got != want {
		t.Errorf("T gives %q; the template %q", got, want)
	}
}
