package web

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzVerify: no session, however malformed, makes verify panic, and
// only one signed by the key is ever accepted.
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	good := sign(testKey, claims{User: "1", Channel: "2", Instance: "i", Expiry: now.Add(time.Hour).Unix()})
	for _, s := range []string{good, "", ".", "a.b", good + "=", good[:len(good)-1], "e30." + good[len(good)-43:]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := verify(testKey, s, now)
		if err == nil && sign(testKey, c) != s && s != good {
			// A session the key did not sign byte for byte may only
			// pass if it says exactly what a signed one says.
			if _, err := verify(testKey, sign(testKey, c), now); err != nil {
				t.Errorf("accepted %q, whose claims %+v do not verify when signed", s, c)
			}
		}
	})
}

// FuzzClientMsg: no frame makes decoding a page's message panic.
func FuzzClientMsg(f *testing.F) {
	for _, s := range []string{`{"type":"move","row":1,"col":2,"version":3}`, `{"type":"hello","session":"x"}`, `{`, `null`, `[]`, `{"type":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m ClientMsg
		_ = json.Unmarshal(b, &m)
	})
}
