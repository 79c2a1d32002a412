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
		{"move/a1b2/3/0/1", route{}, false},        // rows are 1-based
		{"move/a1b2/3/6/1", route{}, false},        // only boards up to 5×5 have buttons
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
	r := route{action: actMove, id: newID(), serial: 1 << 30, row: MaxButtonSize, col: MaxButtonSize}
	if n := len(r.String()); n > maxCustomID {
		t.Errorf("len(%q) = %d; want <= %d", r.String(), n, maxCustomID)
	}
	if _, err := parseRoute(r.String()); err != nil {
		t.Errorf("parseRoute(%q) = %v; want nil", r.String(), err)
	}
}

// FuzzParseRoute checks that whatever a client sends, parsing never panics
// and anything accepted encodes back to exactly the same custom_id.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{"move/ab/1/2/3", "accept/x1", "rematch/9", "move//1/1/1", "a/b/c/d/e/f"} {
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
