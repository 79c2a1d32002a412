package i18n

import (
	"regexp"
	"strconv"
	"strings"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
)

// A simple text is one whose only template actions are {{.Name}}
// placeholders, as nearly all of the catalog's are. T fills those without
// go-i18n's text/template, which costs reflection and a dozen allocations
// per text on every board the bot draws; the result is the same (a test
// compares the two for every text of every language).
type simple struct {
	lits  []string // len(names)+1 literals around the placeholders
	names []string
}

var placeholder = regexp.MustCompile(`\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// compile returns the simple form of m's "other" text, or nil if it has
// none or needs the template engine.
func compile(m *goi18n.Message) *simple {
	if m == nil || m.Other == "" || (m.LeftDelim != "" && m.LeftDelim != "{{") || (m.RightDelim != "" && m.RightDelim != "}}") {
		return nil
	}
	text := m.Other
	s := &simple{}
	last := 0
	for _, loc := range placeholder.FindAllStringSubmatchIndex(text, -1) {
		s.lits = append(s.lits, text[last:loc[0]])
		s.names = append(s.names, text[loc[2]:loc[3]])
		last = loc[1]
	}
	s.lits = append(s.lits, text[last:])
	for _, l := range s.lits {
		if strings.Contains(l, "{{") || strings.Contains(l, "}}") {
			return nil
		}
	}
	return s
}

// fill returns s with data in its placeholders, and false if a value is of
// a kind it does not print the way text/template would (then the caller
// asks go-i18n).
func (s *simple) fill(data map[string]any) (string, bool) {
	if len(s.names) == 0 {
		return s.lits[0], true
	}
	n := 0
	for _, l := range s.lits {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n + 24*len(s.names))
	for i, name := range s.names {
		b.WriteString(s.lits[i])
		v, ok := data[name]
		if !ok {
			b.WriteString("<no value>") // what text/template prints
			continue
		}
		switch v := v.(type) {
		case string:
			b.WriteString(v)
		case int:
			b.WriteString(strconv.Itoa(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		default:
			return "", false
		}
	}
	b.WriteString(s.lits[len(s.lits)-1])
	return b.String(), true
}
