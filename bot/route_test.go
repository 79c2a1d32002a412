package bot

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRoute(t *testing.T) {
	tests := []struct {
		in   string
		want route
		ok   bool
	}{
		{"move/a1b2/3/1/5", route{action: actMove, id: "a1b2", serial: 3, row: 1, col: 5}, true},
		{"accept/ff00", route{action: actAccept, id: "ff00"}, true},
		{"decline/ff00", route{action: actDecline, id: "ff00"}, true},
		{"rematch/0", route{action: actRematch, id: "0"}, true},
		{"move/a1b2/3/0/1", route{}, false},                                                          // rows are 1-based
		{"move/a1b2/3/15/15", route{action: actMove, id: "a1b2", serial: 3, row: 15, col: 15}, true}, // a picker's cell
		{"move/a1b2/3/16/1", route{}, false},                                                         // no board is bigger than 15×15
		{"move/a1b2/3/1/16", route{}, false},                                                         // nor wider
		{"row/a1b2/7", route{action: actRow, id: "a1b2", serial: 7}, true},
		{"type/a1b2/0", route{action: actType, id: "a1b2", serial: 0}, true},
		{"typed/a1b2/12", route{action: actTyped, id: "a1b2", serial: 12}, true},
		{"row/a1b2", route{}, false},               // missing serial
		{"typed/a1b2/1/2", route{}, false},         // trailing part
		{"type/a1b2/x", route{}, false},            // serial not a number
		{"move/a1b2/3/1", route{}, false},          // missing column
		{"move/a1b2/03/1/1", route{}, false},       // not canonical
		{"move/a1b2/-1/1/1", route{}, false},       // negative serial
		{"move/A1B2/1/1/1", route{}, false},        // ids are lower-case
		{"accept/", route{}, false},                // empty id
		{"accept/ff/extra", route{}, false},        // trailing part
		{"click_one", route{}, false},              // Discord's sample custom_id
		{"resign/ff00", route{}, false},            // unknown action
		{"", route{}, false},                       // empty
		{strings.Repeat("a", 101), route{}, false}, // over Discord's limit
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseRoute(tt.in)
			if tt.ok != (err == nil) {
				t.Fatalf("parseRoute(%q) error = %v; want ok = %v", tt.in, err, tt.ok)
			}
			if !tt.ok {
				if !errors.Is(err, errBadRoute) {
					t.Errorf("parseRoute(%q) error = %v; want errBadRoute", tt.in, err)
				}
				return
			}
			if got != tt.want {
				t.Errorf("parseRoute(%q) = %+v; want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("parseRoute(%q).String() = %q; want the input back", tt.in, s)
			}
		})
	}
}

// The longest route the bot makes must fit Discord's custom_id limit.
func TestRouteLength(t *testing.T) {
	for _, r := range []route{
		{action: actMove, id: newID(), serial: 1 << 30, row: maxSide, col: maxSide},
		{action: actTyped, id: newID(), serial: 1 << 30},
	} {
		if n := len(r.String()); n > maxCustomID {
			t.Errorf("len(%q) = %d; want <= %d", r.String(), n, maxCustomID)
		}
		if _, err := parseRoute(r.String()); err != nil {
			t.Errorf("parseRoute(%q) = %v; want nil", r.String(), err)
		}
	}
	if MaxSize > maxSide {
		t.Errorf("MaxSize = %d; the custom_ids name rows and columns up to %d", MaxSize, maxSide)
	}
}

// FuzzParseRoute checks that whatever a client sends, parsing never panics
// and anything accepted encodes back to exactly the same custom_id.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{"move/ab/1/2/3", "row/ab/4", "typed/ab/0", "accept/x1", "rematch/9", "move//1/1/1", "a/b/c/d/e/f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRoute(s)
		if err != nil {
			return
		}
		if got := r.String(); got != s {
			t.Errorf("parseRoute(%q).String() = %q; want the input back", s, got)
		}
	})
}
