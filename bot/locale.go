package bot

import (
	"sync"

	"github.com/tttbot/tttbot/i18n"
)

// Languages. Every text players see is a text of package i18n's catalog,
// written in the language of whoever sees it:
//
//   - what only the user sees (refusals, errors, help, the "busy" and
//     "restarting" answers) in the user's Discord language: req.lang;
//   - what the channel sees (boards, challenges, stats, leaderboard,
//     history) in the guild's language (req.newLocale, req.keptLocale);
//     outside a guild, which has no guild locale, in the language the game
//     or challenge already speaks, or for a new one in the user's.
//
// A game and a challenge keep the locale of their messages in the store
// (store.Game.Locale, store.Challenge.Locale), so that a message edited
// without an interaction (a turn timeout, an expired challenge, an old
// board retired by a later one) stays in the language it was drawn in.

// catalog parses the embedded message catalog, once per process. It cannot
// fail in a tested build (package i18n's tests parse the same embedded
// files); if it does, Register returns the error, so the bot does not
// start, and whatever is answered until then shows the catalog's keys.
var catalog = sync.OnceValues(i18n.New)

// english writes texts in English, for logs and error strings.
func english() *i18n.Language {
	c, _ := catalog()
	return c.For()
}

// A text is a catalog text not yet written in any language: its key and
// the values of its placeholders. A value that is itself a text (an
// option's name, say) is written in the same language. Refusals are texts,
// because their language is chosen where they are answered.
type text struct {
	key  string
	data map[string]any
	// counted texts are written in the plural form of count (i18n's N).
	counted bool
	count   int
}

// in writes x with l. It leaves x as it is, so that a text can be written
// in any number of languages.
func (x text) in(l *i18n.Language) string {
	var data map[string]any
	if len(x.data) > 0 {
		data = make(map[string]any, len(x.data))
		for k, v := range x.data {
			if nested, ok := v.(text); ok {
				v = nested.in(l)
			}
			data[k] = v
		}
	}
	if x.counted {
		return l.N(x.key, x.count, data)
	}
	return l.T(x.key, data)
}
