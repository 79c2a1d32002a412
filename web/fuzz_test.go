package web

import (
	"strings"
	"testing"
	"time"
)

// FuzzVerify: no session, however malformed, makes verify panic, and
// only what the key signed is ever accepted. (The page's frames are
// checked by the bad-input tests of server_test.go: a frame is decoded by
// encoding/json alone.)
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	signed := claims{User: "1", Channel: "2", Instance: "i", Expiry: now.Add(time.Hour).Unix()}
	good := sign(testKey, signed)
	// Another user's claims under the good session's MAC: a forgery.
	other, _, _ := strings.Cut(sign(testKey, claims{User: "3", Channel: "2", Instance: "i", Expiry: signed.Expiry}), ".")
	_, goodMAC, _ := strings.Cut(good, ".")
	for _, s := range []string{good, "", ".", "a.b", good + "=", good[:len(good)-1], "e30." + good[len(good)-43:], other + "." + goodMAC} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The key signed one session here: whatever the fuzzer makes
		// of it, a session accepted says exactly what that one says.
		if c, err := verify(testKey, s, now); err == nil && c != signed {
			t.Errorf("accepted %q, whose claims %+v the key never signed (it signed %+v)", s, c, signed)
		}
	})
}
