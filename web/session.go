package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// A session is what the server gives a page once Discord has said who
// its user is and where its activity runs: the page sends it back as the
// first frame of every WebSocket (hello), and nothing else it says about
// itself is believed.
//
// It is signed, not stored: payload "." HMAC-SHA256(key, label+payload),
// both in unpadded base64url, where payload is the claims in JSON. Every
// replica holding the key (kept in the database) checks it without a
// look-up, and no cookie is involved (the page keeps it in memory, so a
// reload asks Discord again).
type claims struct {
	User     string `json:"u"`
	Name     string `json:"n,omitempty"`
	Channel  string `json:"c"`
	Guild    string `json:"g,omitempty"`
	Instance string `json:"i"`
	Locale   string `json:"l,omitempty"`
	Expiry   int64  `json:"e"` // Unix seconds
	// Checked is when Discord last said that User is in Instance (Unix
	// seconds): when the session was made. Older than
	// Limits.MemberCheck, Discord is asked again (member.go).
	Checked int64 `json:"k,omitempty"`
}

// sessionLabel is signed with every payload, so that a MAC the key makes
// for anything else some day is never a session's.
const sessionLabel = "tttbot web session v1\x00"

// MinKeyLen is the shortest session key New accepts, in bytes.
const MinKeyLen = 32

// maxSession bounds the length of a session the server reads.
const maxSession = 1024

// Why a session is refused.
var (
	errSessionInvalid = errors.New("web: session invalid")
	errSessionExpired = errors.New("web: session expired")
)

// sign returns the session of c, signed with key.
func sign(key []byte, c claims) string {
	payload, _ := json.Marshal(c) // claims always marshals
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(mac(key, p))
}

func mac(key []byte, payload string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(sessionLabel))
	h.Write([]byte(payload))
	return h.Sum(nil)
}

// verify returns the claims of session if key signed it and it has not
// expired at now: errSessionInvalid for anything not signed by key (or
// unreadable), errSessionExpired for a signed one past its expiry.
func verify(key []byte, session string, now time.Time) (claims, error) {
	if len(session) > maxSession {
		return claims{}, errSessionInvalid
	}
	p, sig, ok := strings.Cut(session, ".")
	if !ok {
		return claims{}, errSessionInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(key, p)) {
		return claims{}, errSessionInvalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return claims{}, errSessionInvalid
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil || c.User == "" || c.Channel == "" || c.Instance == "" {
		return claims{}, errSessionInvalid
	}
	if now.Unix() >= c.Expiry {
		return claims{}, errSessionExpired
	}
	return c, nil
}

// viewer is who the session says looks at the page.
func (c claims) viewer() Viewer {
	return Viewer{UserID: c.User, Name: c.Name, GuildID: c.Guild, ChannelID: c.Channel, Locale: c.Locale}
}
