package browsertest_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/tttbot/tttbot/internal/browsertest"
)

// probe is a page that runs the real SDK (the page's bundle) through every
// command the parent answers, and records what each gave back after the
// SDK's own checks of the reply, so a reply the SDK would not accept from
// Discord fails here.
const probe = `<!doctype html><html><head><meta charset="utf-8">
<script src="/sdk.js"></script></head><body><script>
window.probe = { steps: [] };
const step = (name, p) => p.then(
  v => window.probe.steps.push(name + ' ok ' + JSON.stringify(v)),
  e => window.probe.steps.push(name + ' error ' + (e && e.code)));
(async () => {
  const sdk = new tttDiscord.DiscordSDK('42', { disableConsoleLogOverride: true });
  await sdk.ready();
  window.probe.instance = sdk.instanceId + ' ' + sdk.channelId + ' ' + sdk.guildId + ' ' + sdk.platform;
  await step('authorize', sdk.commands.authorize({ client_id: '42', response_type: 'code', state: '', prompt: 'none', scope: ['identify'] }).then(r => r.code));
  await step('authenticate', sdk.commands.authenticate({ access_token: 'tok' }).then(r => r.user.id + ' ' + r.access_token));
  await step('authenticate-wrong', sdk.commands.authenticate({ access_token: 'other' }));
  await step('capture-log', sdk.commands.captureLog({ level: 'log', message: 'hi' }));
  await step('get-channel', sdk.commands.getChannel({ channel_id: '900' }));
  window.probe.done = true;
})().catch(e => { window.probe.failed = String(e); });
</script></body></html>`

func TestParentAnswersAsDiscord(t *testing.T) {
	sdk, err := os.ReadFile("../../web/page/assets/sdk.js")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(probe))
	})
	mux.HandleFunc("GET /sdk.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(sdk)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := browsertest.New(t)
	p := b.Launch(srv.URL, browsertest.Session{
		ClientID: "42", InstanceID: "i-7", ChannelID: "900", GuildID: "800",
		UserID: "u1", Username: "Ann", Code: "the-code", AccessTokenCheck: "tok", Phone: true,
	})
	type result struct {
		Steps    []string
		Instance string
		Done     bool
		Failed   string
	}
	got := browsertest.Until(p, "the probe to finish", `window.probe`, func(r *result) bool {
		return r != nil && (r.Done || r.Failed != "")
	})
	if got.Failed != "" {
		t.Fatalf("probe failed: %s (steps %q)", got.Failed, got.Steps)
	}
	if got.Instance != "i-7 900 800 mobile" {
		t.Errorf("the SDK read its launch as %q", got.Instance)
	}
	want := []string{
		`authorize ok "the-code"`,
		`authenticate ok "u1 tok"`,
		`authenticate-wrong error 4009`,
		`capture-log ok null`,
		`get-channel error 4002`,
	}
	if len(got.Steps) != len(want) {
		t.Fatalf("steps %q, want %q", got.Steps, want)
	}
	for i := range want {
		if got.Steps[i] != want[i] {
			t.Errorf("step %d: %q, want %q", i, got.Steps[i], want[i])
		}
	}
}
