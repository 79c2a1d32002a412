package web

import (
	"net/http"
	"strconv"
	"strings"
)

// Avatars. Inside Discord the page may load nothing but its own origin
// (the activity's proxy, {app id}.discordsays.com): Discord's CDN is
// reached through a URL mapping of the application, CDNPrefix to
// cdn.discordapp.com, which the README's portal steps add (before the
// root mapping "/"). So an avatar's URL in a State is a path under
// CDNPrefix, relative to the page (AvatarPath), and the page's CSP allows
// images from its own origin only: the page makes no third-party request
// at all.
//
// Outside Discord (the tests' browser, a plain browser) there is no
// proxy: the request reaches this server, which answers it 404 (serveCDN)
// rather than send the browser to a third party, and the page shows the
// player's initial instead. So does a page inside Discord whose
// application lacks the mapping: the server then says once in its log
// that the mapping is missing.

// CDNPrefix is the URL mapping's prefix for Discord's CDN.
const CDNPrefix = "/cdn"

// AvatarPath is the path, relative to the page, of the avatar whose hash
// is hash of the user userID on Discord's CDN, size px square (a power of
// two, 16 to 4096), through the activity's mapping CDNPrefix; "" when the
// user has none (or the id or hash is not one).
func AvatarPath(userID, hash string, size int) string {
	if !isSnowflakeish(userID) || !isAvatarHash(hash) || size < 16 || size > 4096 || size&(size-1) != 0 {
		return ""
	}
	return strings.TrimPrefix(CDNPrefix, "/") + "/avatars/" + userID + "/" + hash + ".png?size=" + strconv.Itoa(size)
}

// isAvatarHash says whether h looks like an avatar hash: hex digits,
// "a_" first for an animated one.
func isAvatarHash(h string) bool {
	h = strings.TrimPrefix(h, "a_")
	if h == "" || len(h) > 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// serveCDN answers a request for Discord's CDN that reached this server:
// the page outside Discord, or inside it without the URL mapping. 404,
// and the page shows the player's initial.
func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.Host, ".discordsays.com") || strings.HasSuffix(originHost(r), ".discordsays.com") {
		s.cdnOnce.Do(func() {
			s.log.Warn("live board: a page inside Discord asked the bot for an avatar: add the URL mapping " +
				CDNPrefix + " to cdn.discordapp.com in the Developer Portal (Activities, URL Mappings), above the mapping /")
		})
	}
	w.Header().Set("Cache-Control", "no-store")
	http.NotFound(w, r)
}

// originHost is the host of the request's Origin or Referer, if any.
func originHost(r *http.Request) string {
	for _, h := range []string{r.Header.Get("Origin"), r.Header.Get("Referer")} {
		if _, rest, ok := strings.Cut(h, "://"); ok {
			host, _, _ := strings.Cut(rest, "/")
			return host
		}
	}
	return ""
}
