package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/game"
)

func testBuilder() *builder {
	return &builder{scene: scene{appID: "1100000000000000001", guildID: "1100000000000000002", cmdID: "1100000000000000003", botID: "1100000000000000001"}, ids: new(snowflakes)}
}

var (
	alice = player{id: "1200000000000000001", name: "alice"}
	bob   = player{id: "1200000000000000002", name: "bob"}
)

const channelID = "1300000000000000001"

// decode checks that body is one JSON interaction as discordgo reads it.
func decode(t *testing.T, body []byte) *discordgo.Interaction {
	t.Helper()
	if !json.Valid(body) {
		t.Fatalf("payload is not valid JSON: %s", body)
	}
	i := new(discordgo.Interaction)
	if err := json.Unmarshal(body, i); err != nil {
		t.Fatalf("decode payload: %v\n%s", err, body)
	}
	if i.ID == "" || i.Token == "" || i.AppID != "1100000000000000001" || i.GuildID != "1100000000000000002" || i.ChannelID != channelID {
		t.Errorf("id %q, token %q, app %q, guild %q, channel %q; want all set", i.ID, i.Token, i.AppID, i.GuildID, i.ChannelID)
	}
	return i
}

func TestPayloads(t *testing.T) {
	b := testBuilder()

	start := decode(t, b.start(nil, channelID, alice, bob, 10))
	data := start.ApplicationCommandData()
	if start.Type != discordgo.InteractionApplicationCommand || data.Name != "ttt" || start.Member.User.ID != alice.id {
		t.Fatalf("start: type %v, name %q, user %q; want a /ttt command by alice", start.Type, data.Name, start.Member.User.ID)
	}
	sub := data.Options[0]
	if sub.Name != "start" || sub.Options[0].Type != discordgo.ApplicationCommandOptionUser || sub.Options[0].Value != bob.id {
		t.Errorf("start options = %+v; want opponent bob", sub.Options)
	}
	if u := data.Resolved.Users[bob.id]; u == nil || u.Username != "bob" {
		t.Errorf("resolved users = %v; want bob", data.Resolved.Users)
	}
	if v, _ := sub.Options[1].Value.(float64); sub.Options[1].Name != "size" || v != 10 {
		t.Errorf("size option = %+v; want 10", sub.Options[1])
	}

	move := decode(t, b.move(nil, channelID, bob, 3, 7))
	mo := move.ApplicationCommandData().Options[0]
	row, _ := mo.Options[0].Value.(float64)
	col, _ := mo.Options[1].Value.(float64)
	if mo.Name != "move" || row != 3 || col != 7 || move.Member.User.ID != bob.id {
		t.Errorf("move = %s row %v col %v by %s; want move 3 7 by bob", mo.Name, row, col, move.Member.User.ID)
	}
	if move.ID == start.ID || move.Token == start.Token {
		t.Errorf("two payloads share id %s or token; want unique", move.ID)
	}

	click := decode(t, b.click(nil, channelID, bob, "1400000000000000001", "accept/abc123", acceptRow("accept/abc123")))
	if click.Type != discordgo.InteractionMessageComponent || click.MessageComponentData().CustomID != "accept/abc123" || click.Message.ID != "1400000000000000001" {
		t.Errorf("click = type %v custom_id %q message %q; want a click of accept/abc123", click.Type, click.MessageComponentData().CustomID, click.Message.ID)
	}

	board := `[{"type":1,"components":[{"type":2,"style":2,"emoji":{"name":"⬜"},"custom_id":"move/g1/3/2/4"}]}]`
	cell := decode(t, b.click(nil, channelID, alice, "1400000000000000001", cellID("move/g1/3/", 2, 4), board))
	if id := cell.MessageComponentData().CustomID; id != "move/g1/3/2/4" || len(cell.Message.Components) != 1 || cell.Member.User.ID != alice.id {
		t.Errorf("cell click = custom_id %q, %d action rows, by %s; want move/g1/3/2/4 on the board's one row, by alice", id, len(cell.Message.Components), cell.Member.User.ID)
	}

	resign := decode(t, b.resign(nil, channelID, alice))
	if name := resign.ApplicationCommandData().Options[0].Name; name != "resign" {
		t.Errorf("resign subcommand = %q", name)
	}
}

// The signature must be what the bot's endpoint accepts: discord.Sign's.
func TestSignMatchesDiscordSign(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	body := testBuilder().move(nil, channelID, alice, 1, 1)
	at := time.Unix(1700000000, 0)
	s := sign(key, body, at)
	want := discord.Sign(key, body, at)
	got := http.Header{}
	got.Set("X-Signature-Ed25519", s.signature)
	got.Set("X-Signature-Timestamp", s.timestamp)
	for _, h := range []string{"X-Signature-Ed25519", "X-Signature-Timestamp"} {
		if got.Get(h) != want.Get(h) {
			t.Errorf("%s = %q; want %q", h, got.Get(h), want.Get(h))
		}
	}
}

// The plan of play: X wins on move movesPerGame, and not before.
func TestPlanWins(t *testing.T) {
	for n := 3; n <= 10; n++ {
		g, err := game.New(n)
		if err != nil {
			t.Fatal(err)
		}
		c := &chanState{a: alice, b: bob, size: n}
		for k := 0; k < n*n; k++ {
			row, col, p := c.cell(k)
			who := game.X
			if p == bob {
				who = game.O
			}
			st, err := g.Play(row-1, col-1, who)
			if err != nil {
				t.Fatalf("%d×%d move %d: %v", n, n, k+1, err)
			}
			if st == game.Won {
				if k+1 != movesPerGame(n) || who != game.X {
					t.Errorf("%d×%d: %v won on move %d; want X on move %d", n, n, who, k+1, movesPerGame(n))
				}
				break
			}
			if k+1 == movesPerGame(n) {
				t.Errorf("%d×%d: no win on move %d (status %v)", n, n, k+1, st)
			}
		}
	}
}

func TestAdvance(t *testing.T) {
	var n int
	newID := func() string { n++; return fmt.Sprintf("14000000000000000%02d", n) }
	c := &chanState{size: 3}
	c.begin(newID)
	first := c.a
	steps := []struct {
		o     outcome
		want  stepKind
		ok    bool
		games int // games begun after the step
	}{
		{outcome{answered: true, challenge: "c1"}, stepAccept, true, 1},
		{outcome{answered: true}, stepMove, true, 1},
		{outcome{answered: true}, stepMove, true, 1},
		{outcome{answered: true, ephemeral: true}, stepResign, false, 1}, // a move refused: resign the game
		{outcome{answered: true, ephemeral: true}, stepStart, true, 2},   // the resign; a new game
		{outcome{answered: true, ephemeral: true}, stepStart, false, 3},  // a start refused: no resign, a new game
		{outcome{}, stepResign, false, 3},                                // a start unanswered: a challenge may be open
		{outcome{answered: true}, stepStart, true, 4},
		{outcome{answered: true, ephemeral: true, internal: true}, stepResign, false, 4}, // an error: the same
		{outcome{answered: true}, stepStart, true, 5},
		{outcome{answered: true, challenge: "c2"}, stepAccept, true, 5},
		{outcome{answered: true, cells: "move/g2/1/", board: "[1]"}, stepMove, true, 5},
		{outcome{answered: true, cells: "move/g2/2/", board: "[2]"}, stepMove, true, 5},
		{outcome{answered: true}, stepMove, true, 5}, // no board: the last one stands
		{outcome{answered: true, over: true}, stepStart, true, 6},
	}
	for i, s := range steps {
		ok := c.advance(s.o, newID)
		if c.next != s.want || ok != s.ok || c.games != s.games {
			t.Fatalf("step %d: next %v, expected %v, %d games; want %v, %v, %d", i, c.next, ok, c.games, s.want, s.ok, s.games)
		}
	}
	if c.challenge != "c2" || c.cells != "move/g2/2/" || c.board != "[2]" {
		t.Errorf("challenge %q cells %q board %q; want c2 and the last board drawn, move/g2/2/ and [2]", c.challenge, c.cells, c.board)
	}
	if c.a == first || c.a.id == c.b.id || c.a.id == "" {
		t.Errorf("players of game 6: %v and %v; want two new members (game 1: %v)", c.a, c.b, first)
	}
}

// With samePair, one pair plays every game of the channel; without, each
// game has a pair of its own, that of its presigned game when there is one.
func TestPairs(t *testing.T) {
	var n int
	newID := func() string { n++; return fmt.Sprintf("15000000000000000%02d", n) }
	same := &chanState{samePair: true}
	same.a, same.b = same.pair(0, newID)
	fresh := &chanState{pre: []presigned{{a: alice, b: bob}}}
	seen := map[string]bool{}
	for g := range 4 {
		same.begin(newID)
		if same.a.id != "1500000000000000001" || same.b.id != "1500000000000000002" {
			t.Errorf("samePair game %d: %v, %v; want the channel's pair", g, same.a, same.b)
		}
		fresh.begin(newID)
		if g == 0 && (fresh.a != alice || fresh.b != bob) {
			t.Errorf("game 0: %v, %v; want the presigned game's alice and bob", fresh.a, fresh.b)
		}
		for _, p := range []player{fresh.a, fresh.b} {
			if seen[p.id] {
				t.Errorf("game %d: %v played before; want a new member", g, p)
			}
			seen[p.id] = true
		}
	}
}

func TestOutcomeRead(t *testing.T) {
	tests := []struct {
		body string
		want outcome
	}{
		{`{"type":4,"data":{"content":"❌ <@1> challenges","components":[{"type":1,"components":[{"type":2,"custom_id":"accept/0a1b2c","label":"Accept"}]}]}}`,
			outcome{answered: true, challenge: "0a1b2c"}},
		{`{"type":4,"data":{"content":"🏆 ❌ <@1> wins with 10 in a row (in 🟩)!"}}`, outcome{answered: true, over: true}},
		{`{"type":4,"data":{"content":"🤝 Draw: the board is full"}}`, outcome{answered: true, over: true}},
		{`{"type":4,"data":{"content":"say \"move/x/y/\" now","components":[]}}`, outcome{answered: true}},
		{`{"type":7,"data":{"content":"<@1>, your move","allowed_mentions":{},"components":[{"type":1,"components":[{"type":2,"label":"\\\"]}","custom_id":"move/g1/3/1/1"},{"type":2,"custom_id":"move/g1/3/1/2"}]}],"flags":0}}`,
			outcome{answered: true, cells: "move/g1/3/", board: `[{"type":1,"components":[{"type":2,"label":"\\\"]}","custom_id":"move/g1/3/1/1"},{"type":2,"custom_id":"move/g1/3/1/2"}]}]`}},
		{`{"type":4,"data":{"content":"Something went wrong on our side","flags":64}}`, outcome{answered: true, ephemeral: true, internal: true}},
		{`{"type":4,"data":{"content":"This channel's game is busy with another move.","flags":64}}`, outcome{answered: true, ephemeral: true, busy: true}},
	}
	for _, tt := range tests {
		var o outcome
		o.read([]byte(tt.body))
		if o != tt.want {
			t.Errorf("read(%s) = %+v; want %+v", tt.body, o, tt.want)
		}
	}
}

func TestPercentiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	l := h.snapshot()
	for _, tt := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.9, 900 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, time.Millisecond}} {
		got := l.percentile(tt.p)
		if d := got - tt.want; d < -tt.want/50 || d > tt.want/50 {
			t.Errorf("percentile(%v) = %v; want %v ± 2%%", tt.p, got, tt.want)
		}
	}
	if l.max != time.Millisecond || l.total() != 1000 {
		t.Errorf("max %v, total %d; want 1ms, 1000", l.max, l.total())
	}
	h.record(5 * time.Second)
	if w := h.snapshot().since(l); w.total() != 1 || w.percentile(0.5) < 4900*time.Millisecond {
		t.Errorf("window after one 5s record: total %d, p50 %v; want 1, about 5s", w.total(), w.percentile(0.5))
	}
	for _, d := range []time.Duration{0, 1, 127, 128, 129, 1000, time.Millisecond, time.Hour} {
		if v := bucketValue(bucket(d)); v < d*98/100 || v > d*102/100+1 {
			t.Errorf("bucketValue(bucket(%v)) = %v; want within 2%%", d, v)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	stat := "4242 (tt tbot) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 12 0 100 0 0"
	got, err := parseStatCPU([]byte(stat))
	if err != nil || got != 3250*time.Millisecond {
		t.Errorf("parseStatCPU = %v, %v; want 3.25s (325 ticks)", got, err)
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\ttttbot\nVmPeak:\t 1263628 kB\nVmHWM:\t   30656 kB\nVmRSS:\t   29940 kB\n" +
		"RssAnon:\t   10764 kB\nRssFile:\t   19176 kB\nRssShmem:\t       0 kB\nThreads:\t9\n"
	var got memory
	parseStatus([]byte(status), &got)
	want := memory{rss: 29940 << 10, peak: 30656 << 10, anon: 10764 << 10, file: 19176 << 10}
	if got != want {
		t.Errorf("parseStatus = %+v; want %+v", got, want)
	}
}

func TestParseMetrics(t *testing.T) {
	text := "# HELP go_goroutines x\n# TYPE go_goroutines gauge\ngo_goroutines 42\ngo_memstats_heap_inuse_bytes 1.2345e+07\ntttbot_x{a=\"b\"} 3\n"
	got := parseMetrics([]byte(text), "go_memstats_heap_inuse_bytes", "go_goroutines", "missing")
	if got[0] != 12345000 || got[1] != 42 || got[2] != 0 {
		t.Errorf("parseMetrics = %v; want [12345000 42 0]", got)
	}
}

func TestLogValue(t *testing.T) {
	line := `time=2025-01-01T00:00:00Z level=INFO msg=ready user=tttbot interactions=127.0.0.1:4567 metrics=127.0.0.1:8910`
	if got := logValue(line, "interactions"); got != "127.0.0.1:4567" {
		t.Errorf("interactions = %q", got)
	}
	if got := logValue(line, "metrics"); got != "127.0.0.1:8910" {
		t.Errorf("metrics = %q", got)
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-interactions", "1000000", "-rate", "3000"}, &strings.Builder{})
	if err != nil || c.duration != 0 || c.interactions != 1000000 {
		t.Errorf("parseFlags = %+v, %v; want no duration limit with -interactions", c, err)
	}
	for _, bad := range [][]string{{"-transport", "smoke"}, {"-pairs", "user"}, {"-bot-cpus", "one"}, {"-cpus", "0-"}} {
		if _, err := parseFlags(bad, &strings.Builder{}); err == nil {
			t.Errorf("parseFlags(%q) = nil error; want one", bad)
		}
	}
	c, err = parseFlags([]string{"-bot-cpus", "0", "-cpus", "1"}, &strings.Builder{})
	if err != nil || c.botCPUs.String() != "0" || c.cpus.String() != "1" || c.pairs != "game" || c.allowRefused {
		t.Errorf("parseFlags(-bot-cpus 0 -cpus 1) = %+v, %v; want the bot on CPU 0, the generator on 1, a new pair each game, refusals failing the run", c, err)
	}
	if c, _ := parseFlags(nil, &strings.Builder{}); c.botCPUs != nil || c.cpus != nil {
		t.Errorf("parseFlags() = %+v; want no CPUs chosen", c)
	}
}

func TestParseMachineCPU(t *testing.T) {
	got, err := parseMachineCPU("cpu  100 5 50 1000 20 3 2 0 0 0")
	if err != nil || got != 1600*time.Millisecond {
		t.Errorf("parseMachineCPU = %v, %v; want 1.6s (160 busy ticks)", got, err)
	}
}

func TestCellsOf(t *testing.T) {
	for id, want := range map[string]string{
		"move/g1/3/2/4": "move/g1/3/",
		"accept/g1":     "",
		"move/g1/3":     "",
		"rematch/g1":    "",
	} {
		if got := cellsOf(id); got != want {
			t.Errorf("cellsOf(%q) = %q; want %q", id, got, want)
		}
	}
}

func TestCheckRefusals(t *testing.T) {
	r := &report{transport: "http", st: new(stats)}
	r.st.sent.Store(1000)
	for range 6 {
		r.st.refusal("You can start another <t:1795880218:R>.")
	}
	for range 3 {
		r.st.refusal("No game in this channel.")
	}
	r.st.refusal("This channel's game is busy with another move.")
	r.st.refused.Store(9)
	r.st.busy.Store(1)
	if err := checkRefusals(r); err != nil {
		t.Errorf("10 of 1000 refused: %v; want no error (1%% may be)", err)
	}
	r.st.refusal("You can start another <t:1795880219:R>.")
	r.st.refused.Add(1)
	err := checkRefusals(r)
	want := `http: 11 of 1000 interactions (1.1%) were refused, more than the 1% a run may have: it measured refusals, not play. ` +
		`Most often: 7× "You can start another <t:#:R>.", 3× "No game in this channel.", 1× "This channel's game is busy with another move.".`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("11 of 1000 refused: %v; want %s…", err, want)
	}
}

func TestParseCPUs(t *testing.T) {
	for list, want := range map[string]string{"0": "0", "1": "1", "0-1,3": "0-1,3", "3,0,1": "0-1,3", "5-7,1023": "5-7,1023"} {
		s, err := parseCPUs(list)
		if err != nil || s.String() != want {
			t.Errorf("parseCPUs(%q) = %s, %v; want %s", list, s.String(), err, want)
		}
	}
	for _, bad := range []string{"", "x", "1-", "2-1", "-1", "1024", "0,,1"} {
		if _, err := parseCPUs(bad); err == nil {
			t.Errorf("parseCPUs(%q): no error; want one", bad)
		}
	}
	if s, _ := parseCPUs("0-2,64"); s.count() != 4 {
		t.Errorf("count of 0-2,64 = %d; want 4", s.count())
	}
}

func TestCPUsAllowed(t *testing.T) {
	status := "Name:\ttttbot\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n"
	if got := cpusAllowed([]byte(status)); got != "0-1" {
		t.Errorf("cpusAllowed = %q; want 0-1", got)
	}
	if got, err := affinity(os.Getpid()); err != nil || got == "" {
		t.Errorf("affinity(self) = %q, %v; want this process's CPUs", got, err)
	}
}

func TestSnippet(t *testing.T) {
	for body, want := range map[string]string{
		`{"type":4,"data":{"content":"No game in \"this\" channel.","flags":64}}`: `No game in \"this\" channel.`,
		`{"type":4,"data":{"content":"` + strings.Repeat("é", 60) + `"}}`:         strings.Repeat("é", 50),
		`{"message":"401: Unauthorized"}`:                                         `{"message":"401: Unauthorized"}`,
	} {
		if got := snippet([]byte(body)); got != want {
			t.Errorf("snippet(%s) = %q; want %q", body, got, want)
		}
	}
}

// startOn gives the thread that started a child on other CPUs its own
// back: a thread that ended instead would not, when it is the main thread,
// which Go parks for good, with the child's CPUs.
func TestStartOnRestoresThread(t *testing.T) {
	var mine cpuSet
	if err := getAffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	var first cpuSet
	for cpu := range 64 * len(mine) {
		if mine.has(cpu) {
			first[cpu/64] |= 1 << (cpu % 64)
			break
		}
	}
	for range 20 {
		cmd := exec.Command("true")
		if err := startOn(cmd, &first); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := affinity(os.Getpid()); err != nil || got != mine.String() {
		t.Errorf("this process's threads on CPUs %q, %v after startOn; want all on %s", got, err, mine.String())
	}
}
