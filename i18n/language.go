package i18n

import (
	"maps"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// A Language writes the catalog's texts in one language, falling back to
// English. Get one from Catalog.For; it is shared and safe for concurrent
// use. A nil Language (or the zero one) still answers: every text is its
// key, and Tag is "en".
//
// Data fills the {{.Name}} placeholders of a text: mentions ("<@42>"),
// emoji, numbers, Unix times, or texts already localized with the same
// Language (a duration, a count, a level). Every placeholder of a text
// needs a value; a missing one shows as "<no value>".
type Language struct {
	tag     language.Tag
	loc     *goi18n.Localizer // tag's texts, falling back to English per key
	english *goi18n.Localizer
	mu      *sync.RWMutex // the Catalog's: read-locked while loc or english reads their bundle
	// simple are the texts T fills without go-i18n, by key: tag's, or
	// English's where tag lacks the key.
	simple map[string]*simple
}

// Tag returns the language l writes, as a BCP 47 tag of the
// catalog: "en", "de", "es", "fr", "ja", "pt-BR", "ru" or "zh-Hans".
func (l *Language) Tag() string {
	if l == nil || l.loc == nil {
		return language.English.String()
	}
	return l.tag.String()
}

// T returns the text of key, with data in its placeholders.
//
// It never fails: a key the language lacks, or whose template does not
// run, gives the English text; a key English lacks too gives key itself.
// A text whose only actions are {{.Name}} placeholders filled with
// strings or integers costs one allocation; any other, one template
// execution.
func (l *Language) T(key string, data map[string]any) string {
	if l != nil {
		if s := l.simple[key]; s != nil {
			if text, ok := s.fill(data); ok {
				return text
			}
		}
	}
	return l.localize(&goi18n.LocalizeConfig{MessageID: key, TemplateData: data})
}

// N returns the text of key in the plural form the language uses for
// count ("1 game", "2 games"; in Russian "1 игра", "2 игры", "5 игр"), with
// data in its placeholders. {{.Count}} is count unless data sets Count.
// It falls back as T does; a plural form the language lacks gives its
// "other" form.
func (l *Language) N(key string, count int, data map[string]any) string {
	d := make(map[string]any, len(data)+1)
	d["Count"] = count
	maps.Copy(d, data)
	return l.localize(&goi18n.LocalizeConfig{MessageID: key, TemplateData: d, PluralCount: count})
}

func (l *Language) localize(lc *goi18n.LocalizeConfig) string {
	if l == nil || l.loc == nil {
		return lc.MessageID
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	// On an error go-i18n may still return a text: the English one for a
	// key the language lacks, or the "other" form for a missing plural
	// form. Either is better than nothing.
	if s, err := l.loc.Localize(lc); err == nil || s != "" {
		return s
	}
	if s, err := l.english.Localize(lc); err == nil || s != "" {
		return s
	}
	return lc.MessageID
}
