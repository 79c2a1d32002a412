package bot

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/table"
)

// The cells of the emoji board, one or two code points each. The last move
// and the winning line keep the shape of their mark (a cross, a circle), so
// that they never hide whose cells they are; the board says in words what
// they mean.
const (
	cellEmpty = "⬜"
	cellX     = "❌"
	cellO     = "⭕"
	winX      = "❎"  // X's cell of the winning line
	winO      = "🟢"  // O's cell of the winning line
	lastX     = "✖️" // X's last move
	lastO     = "🅾️" // O's last move
	corner    = "#️⃣"
	// greenCells names the green cells of a won board of buttons, or of
	// its picture.
	greenCells = "🟩"
)

// labels are the row and column labels, 1-based: keycaps, which (unlike
// regional indicators) never merge with their neighbours.
var labels = [...]string{"0️⃣", "1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟"}

// A view is a rendered message: what the bot sends or edits.
type view struct {
	content    string
	components []discordgo.MessageComponent
	// embeds hold what is too long for content (its limit is 2,000 code
	// points, an embed's description 4,096): /ttt help.
	embeds []*discordgo.MessageEmbed
	// ping is the user to notify, if any; mentions of everyone else in the
	// content render as names without a notification.
	ping string
	// launch is the Open board button of a current board (launch.go),
	// shown only by a bot that serves the live board (buttonsFor); its
	// CustomID is "" where the board has no room for it. launchRow is
	// the index in components of the action row it joins, or
	// len(components) for a row of its own.
	launch    discordgo.Button
	launchRow int
}

// buttons is v's components as Discord must be sent them to clear a
// message's: an empty list, never null. It leaves out the Open board
// button, which the comparisons of boards (what Discord shows against
// what the bot draws) need not see.
func (v view) buttons() []discordgo.MessageComponent {
	if v.components == nil {
		return []discordgo.MessageComponent{}
	}
	return v.components
}

// buttonsFor is buttons as sent to Discord by a bot that serves the live
// board (activity) or not: with activity, a board's Open board button
// joins its row. v's own components are not changed.
func (v view) buttonsFor(activity bool) []discordgo.MessageComponent {
	if !activity || v.launch.CustomID == "" || v.launchRow < 0 || v.launchRow > len(v.components) {
		return v.buttons()
	}
	out := make([]discordgo.MessageComponent, len(v.components), len(v.components)+1)
	copy(out, v.components)
	if v.launchRow == len(v.components) {
		return append(out, discordgo.ActionsRow{Components: []discordgo.MessageComponent{v.launch}})
	}
	row, ok := out[v.launchRow].(discordgo.ActionsRow)
	if !ok || len(row.Components) >= buttonsPerRow {
		return v.buttons()
	}
	row.Components = append(append(make([]discordgo.MessageComponent, 0, len(row.Components)+1), row.Components...), v.launch)
	out[v.launchRow] = row
	return out
}

func mention(id string) string { return "<@" + id + ">" }

func mark(p game.Player) string {
	if p == game.O {
		return cellO
	}
	return cellX
}

// renderMatch draws m in l's language: the header, the labelled grid, the
// last move, and a status line; for boards up to MaxButtonSize, the cells
// as buttons; when it is over, a Rematch button. Each thing is said once:
// the last move is named in its line and marked on the board (a blue
// button, a marker of its own in the grid or the picture), the winning
// line is named in the status line and drawn in green; no legend repeats
// them.
func renderMatch(l *i18n.Language, m *table.Match) view { return drawMatch(l, m, false, 0, false) }

// renderPictured is renderMatch for a message whose board is a picture
// (picture.go) of a board without buttons: the same text without the
// grid, the legend naming the picture's colours.
func renderPictured(l *i18n.Language, m *table.Match) view { return drawMatch(l, m, true, 0, false) }

// renderPicker is renderMatch, or for pic renderPictured, with row open in
// the picker of a board bigger than MaxButtonSize: its cells as buttons
// under the menu of rows (see pickerComponents).
func renderPicker(l *i18n.Language, m *table.Match, row int, pic bool) view {
	return drawMatch(l, m, pic, row, false)
}

// renderRetired is renderMatch for a finished board that a newer message
// replaced (a rematch, the board shown again): its final position as it
// was drawn, the cell buttons disabled, without Rematch, which belongs to
// the newest board alone.
func renderRetired(l *i18n.Language, m *table.Match) view {
	v := drawMatch(l, m, false, 0, true)
	v.ping = ""
	return v
}

// drawMatch draws m with its grid in emoji, or for pic and a board without
// buttons, or a board bigger than MaxEmojiSize, with none: a picture shows
// it; open is the row open in the picker of a bigger board, or 0; retired
// leaves out Rematch (renderRetired).
func drawMatch(l *i18n.Language, m *table.Match, pic bool, open int, retired bool) view {
	g := m.Judge
	n := g.Size()
	var b strings.Builder
	b.Grow(64 + (n+1)*(n+4)*4)

	ms := mentions(m)
	// One map holds the data of each text in turn: T keeps none.
	data := make(map[string]any, 8)
	data["MarkX"], data["PlayerX"], data["MarkO"], data["PlayerO"] = cellX, ms[game.X], cellO, ms[game.O]
	data["Size"], data["Win"] = n, g.WinLength()
	b.WriteString(l.T("board.header", data))
	b.WriteByte('\n')

	var win map[game.Cell]bool // nil, and so empty, unless the game was won
	if m.End == game.EndWon {
		win = make(map[game.Cell]bool, g.WinLength())
		for _, c := range g.WinLine() {
			win[c] = true
		}
	}
	last, hasLast := g.LastMove()

	// Up to 5×5 the buttons are the board; a board with no buttons (a
	// bigger one, or a finished 5×5 whose last row holds Rematch) is drawn
	// in emoji up to MaxEmojiSize, and over it only ever as a picture.
	buttons := hasButtons(m)
	pic = (pic || n > MaxEmojiSize) && !buttons
	if !buttons && !pic {
		b.WriteString(corner)
		for c := 1; c <= n; c++ {
			b.WriteString(labels[c])
		}
		b.WriteByte('\n')
		for r := 0; r < n; r++ {
			b.WriteString(labels[r+1])
			for c := 0; c < n; c++ {
				b.WriteString(cellEmoji(g, r, c, win, last, hasLast))
			}
			b.WriteByte('\n')
		}
	}

	if hasLast {
		clear(data)
		data["Mark"], data["Player"], data["Row"], data["Col"] = marks[last.Player], ms[last.Player], last.Row+1, last.Col+1
		b.WriteString(l.T("board.last_move", data))
		b.WriteByte('\n')
	}
	clear(data)
	b.WriteString(statusWith(l, m, buttons || pic, ms, data))

	v := view{content: b.String()}
	if !m.Over() {
		v.ping = m.Players[g.Turn()]
		if g.Turn() == m.Computer {
			v.ping = ""
		}
	}
	v.components = matchComponents(l, m, win, last, hasLast, open, retired)
	if !retired {
		v.launch, v.launchRow = launchPlace(l, m, v.components)
	}
	return v
}

// launchPlace says where the Open board button goes on m's current board
// with components comps (matchComponents): in the row of Move… under a
// picker, in the row of Rematch once the game is over, else in a row of
// its own under the cells. A message holds at most five action rows, and
// a running 5×5 board's cells fill all five: it has no Open board button
// (the entry point command and Discord's Activity shelf still open the
// live board), rather than losing a cell, or its one-tap moves to a
// picker. An empty button (CustomID "") says there is none.
func launchPlace(l *i18n.Language, m *table.Match, comps []discordgo.MessageComponent) (discordgo.Button, int) {
	at := len(comps) // a row of its own
	switch {
	case hasPicker(m) || m.Over():
		at = len(comps) - 1 // Move…, or Rematch
	case len(comps) >= rowsPerMessage:
		return discordgo.Button{}, 0
	}
	if at < 0 {
		return discordgo.Button{}, 0
	}
	return launchButton(l.T("launch.button", nil), m.ID), at
}

// Discord's limits on the action rows of a message, and on the buttons of
// a row.
const (
	rowsPerMessage = 5
	buttonsPerRow  = 5
)

func cellEmoji(g *game.Judge, r, c int, win map[game.Cell]bool, last game.Move, hasLast bool) string {
	p := g.At(r, c)
	switch {
	case p == game.None:
		return cellEmpty
	case win[game.Cell{Row: r, Col: c}]:
		return winMarker(p)
	case hasLast && last.Row == r && last.Col == c:
		if p == game.O {
			return lastO
		}
		return lastX
	}
	return mark(p)
}

func winMarker(p game.Player) string {
	if p == game.O {
		return winO
	}
	return winX
}

// hasButtons says whether m's board is drawn as buttons: up to 5×5, but a
// finished 5×5 needs its fifth row for Rematch.
func hasButtons(m *table.Match) bool {
	n := m.Judge.Size()
	return n <= MaxButtonSize && (!m.Over() || n < MaxButtonSize)
}

// statusLine names who is to move, or says how the game ended; green says
// that the board shows a winning line in green cells (buttons, a picture).
func statusLine(l *i18n.Language, m *table.Match, green bool) string {
	return statusWith(l, m, green, mentions(m), make(map[string]any, 4))
}

// mentions are the mentions of m's players, by side, as the values of
// texts' data: boxed once for all the texts of a board.
func mentions(m *table.Match) [3]any {
	none := any("<@>") // nobody's, as mention(m.Players[game.None]) is
	if id := m.Players[game.None]; id != "" {
		none = mention(id)
	}
	return [3]any{game.None: none, game.X: mention(m.Players[game.X]), game.O: mention(m.Players[game.O])}
}

// marks are the marks of the sides (mark), as the values of texts' data.
var marks = [3]any{game.None: mark(game.None), game.X: mark(game.X), game.O: mark(game.O)}

// statusWith is statusLine with ms, the mentions of m's players, and
// data, an empty map for the data of its text.
func statusWith(l *i18n.Language, m *table.Match, green bool, ms [3]any, data map[string]any) string {
	g := m.Judge
	switch m.End {
	case game.EndNone:
		p := g.Turn()
		data["Mark"], data["Player"] = marks[p], ms[p]
		if m.Computer == p {
			return l.T("status.turn_computer", data)
		}
		keys := [2]string{"status.turn_picker", "status.turn_picker_deadline"}
		if g.Size() <= MaxButtonSize {
			keys = [2]string{"status.turn_buttons", "status.turn_buttons_deadline"}
		}
		if m.Deadline.IsZero() {
			return l.T(keys[0], data)
		}
		data["Deadline"] = m.Deadline.Unix()
		return l.T(keys[1], data)
	case game.EndWon:
		w := g.Winner()
		cell := winMarker(w)
		if green {
			cell = greenCells
		}
		return l.T("status.won", map[string]any{"Mark": marks[w], "Player": ms[w], "Win": g.WinLength(), "WinCell": cell})
	case game.EndDraw:
		return l.T("status.draw_full", nil)
	case game.EndDecided:
		return l.T("status.draw_decided", nil)
	case game.EndResigned, game.EndTimeout:
		key := "status.resigned"
		if m.End == game.EndTimeout {
			key = "status.timeout"
		}
		w := m.Loser.Other()
		return l.T(key, map[string]any{"Loser": ms[m.Loser], "Mark": marks[w], "Winner": ms[w]})
	case game.EndStopped:
		return l.T("status.stopped", map[string]any{"By": mention(m.StoppedBy)})
	case game.EndAgreed:
		return l.T("status.draw_agreed", nil)
	}
	return ""
}

// matchComponents returns the cell buttons of a board up to MaxButtonSize,
// the picker of a bigger one while it runs (with row open, if not 0), and,
// once the game is over, a Rematch button (not on a retired board). A 5×5 grid already uses all
// five action rows, so a finished 5×5 game shows Rematch alone (the emoji
// board above still shows the final position).
func matchComponents(l *i18n.Language, m *table.Match, win map[game.Cell]bool, last game.Move, hasLast bool, open int, retired bool) []discordgo.MessageComponent {
	g := m.Judge
	n := g.Size()
	if hasPicker(m) {
		return pickerComponents(l, m, open, last, hasLast)
	}
	rows := make([]discordgo.MessageComponent, 0, rowsPerMessage)
	if hasButtons(m) {
		var ids [MaxButtonSize * MaxButtonSize]string
		cellIDs(m, 1, n, ids[:])
		for r := 0; r < n; r++ {
			row := discordgo.ActionsRow{Components: make([]discordgo.MessageComponent, 0, n)}
			for c := 0; c < n; c++ {
				row.Components = append(row.Components, cellButton(m, r, c, ids[r*n+c], win, last, hasLast))
			}
			rows = append(rows, row)
		}
	}
	if m.Over() && !retired {
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{
				Label:    l.T("button.rematch", nil),
				Style:    discordgo.PrimaryButton,
				Emoji:    emojiRematch,
				CustomID: route{action: actRematch, id: m.ID}.String(),
			},
		}})
	}
	return rows
}

// pickerComponents returns the picker of m, running and bigger than
// MaxButtonSize, with row open (1-based), or none if 0.
func pickerComponents(l *i18n.Language, m *table.Match, open int, last game.Move, hasLast bool) []discordgo.MessageComponent {
	g := m.Judge
	n := g.Size()
	menu := discordgo.SelectMenu{
		MenuType:    discordgo.StringSelectMenu,
		CustomID:    route{action: actRow, id: m.ID, serial: m.Serial}.String(),
		Placeholder: l.T("picker.placeholder", nil),
		Options:     make([]discordgo.SelectMenuOption, 0, n),
	}
	for r := 1; r <= n; r++ {
		if freeInRow(g, r) == 0 {
			continue
		}
		menu.Options = append(menu.Options, discordgo.SelectMenuOption{
			Label:   rowLabel(l, r),
			Value:   strconv.Itoa(r),
			Default: r == open,
		})
	}
	// The rows of the menu and of Move… share one array, each with the
	// capacity of its one component.
	ends := make([]discordgo.MessageComponent, 2)
	ends[0] = menu
	rows := make([]discordgo.MessageComponent, 1, rowsPerMessage)
	rows[0] = discordgo.ActionsRow{Components: ends[0:1:1]}
	if open >= 1 && open <= n {
		var ids [maxSide]string
		cellIDs(m, open, open, ids[:])
		var row discordgo.ActionsRow
		for c := 1; c <= n; c++ {
			if row.Components == nil {
				row.Components = make([]discordgo.MessageComponent, 0, MaxButtonSize)
			}
			row.Components = append(row.Components, pickerCell(m, open, c, ids[c-1], last, hasLast))
			if len(row.Components) == MaxButtonSize || c == n {
				rows = append(rows, row)
				row = discordgo.ActionsRow{}
			}
		}
	}
	ends[1] = discordgo.Button{
		Label:    l.T("button.move", nil),
		Style:    discordgo.PrimaryButton,
		CustomID: route{action: actType, id: m.ID, serial: m.Serial}.String(),
	}
	return append(rows, discordgo.ActionsRow{Components: ends[1:2:2]})
}

// rowLabels holds the picker's row labels ("Row 7") of each language,
// by *i18n.Language: a picker fills up to 15 of them on every move, and
// a language's texts never change.
var rowLabels sync.Map

// rowLabel is the label of row (1 to maxSide) in the picker's menu, in
// l's language.
func rowLabel(l *i18n.Language, row int) string {
	if v, ok := rowLabels.Load(l); ok {
		return v.(*[maxSide + 1]string)[row]
	}
	var ls [maxSide + 1]string
	for r := 1; r <= maxSide; r++ {
		ls[r] = l.T("picker.row", map[string]any{"Row": r})
	}
	rowLabels.Store(l, &ls)
	return ls[row]
}

// pickerCell is the button of cell row, col (1-based) of m in an open
// row: its column number if free, else its mark, disabled.
func pickerCell(m *table.Match, row, col int, id string, last game.Move, hasLast bool) discordgo.Button {
	b := discordgo.Button{
		Style:    discordgo.SecondaryButton,
		CustomID: id,
	}
	if p := m.Judge.At(row-1, col-1); p != game.None {
		b.Disabled = true
		b.Emoji = markEmoji(p)
		if hasLast && last.Row == row-1 && last.Col == col-1 {
			b.Style = discordgo.PrimaryButton
		}
		return b
	}
	b.Label = strconv.Itoa(col)
	return b
}

// The emoji of buttons, shared by every board: nothing changes a
// button's emoji once drawn.
var (
	emojiEmpty   = &discordgo.ComponentEmoji{Name: cellEmpty}
	emojiX       = &discordgo.ComponentEmoji{Name: cellX}
	emojiO       = &discordgo.ComponentEmoji{Name: cellO}
	emojiRematch = &discordgo.ComponentEmoji{Name: "🔁"}
)

// markEmoji is the emoji of p's mark on a button.
func markEmoji(p game.Player) *discordgo.ComponentEmoji {
	if p == game.O {
		return emojiO
	}
	return emojiX
}

// cellIDs writes into ids the custom_ids (route.String) of the cells of
// m's rows from to to (1-based), by (row-from)*size + col-1: in one
// string, which each id is a part of, and so one allocation for a board
// of buttons, not one per cell.
func cellIDs(m *table.Match, from, to int, ids []string) {
	n := m.Judge.Size()
	var prefix [maxCustomID]byte
	p := strconv.AppendInt(append(append(append(prefix[:0], actMove+"/"...), m.ID...), '/'), int64(m.Serial), 10)
	p = append(p, '/')
	var b strings.Builder
	b.Grow((to - from + 1) * n * (len(p) + len("15/15")))
	var num [8]byte
	ends := make([]int, 0, MaxButtonSize*MaxButtonSize)
	for r := from; r <= to; r++ {
		for c := 1; c <= n; c++ {
			b.Write(p)
			b.Write(strconv.AppendInt(num[:0], int64(r), 10))
			b.WriteByte('/')
			b.Write(strconv.AppendInt(num[:0], int64(c), 10))
			ends = append(ends, b.Len())
		}
	}
	s, start := b.String(), 0
	for k, end := range ends {
		ids[k], start = s[start:end], end
	}
}

// freeInRow counts the free cells of row (1-based) of g.
func freeInRow(g *game.Judge, row int) int {
	free := 0
	for c := range g.Size() {
		if g.At(row-1, c) == game.None {
			free++
		}
	}
	return free
}

// hasPicker says whether m's board is played with the picker.
func hasPicker(m *table.Match) bool { return m.Judge.Size() > MaxButtonSize && !m.Over() }

// cellButton is the button of cell r, c (0-based) of m, whose custom_id
// is id (cellIDs).
func cellButton(m *table.Match, r, c int, id string, win map[game.Cell]bool, last game.Move, hasLast bool) discordgo.Button {
	p := m.Judge.At(r, c)
	b := discordgo.Button{
		Style:    discordgo.SecondaryButton,
		CustomID: id,
		Disabled: m.Over() || p != game.None,
	}
	switch {
	case p == game.None:
		// Every cell shows one emoji, so the buttons line up.
		b.Emoji = emojiEmpty
	case win[game.Cell{Row: r, Col: c}]:
		b.Emoji = markEmoji(p)
		b.Style = discordgo.SuccessButton
	default:
		b.Emoji = markEmoji(p)
		if hasLast && last.Row == r && last.Col == c {
			b.Style = discordgo.PrimaryButton
		}
	}
	return b
}

// Challenge states, for renderChallenge.
type challengeState uint8

const (
	challengeOpen challengeState = iota
	challengeDeclined
	challengeWithdrawn
	challengeExpired
	challengeCancelled
	challengeSuperseded
)

// challengeTexts are the catalog keys of the challenge message, by state.
var challengeTexts = [...]string{
	challengeOpen:       "challenge.open",
	challengeDeclined:   "challenge.declined",
	challengeWithdrawn:  "challenge.withdrawn",
	challengeExpired:    "challenge.expired",
	challengeCancelled:  "challenge.cancelled",
	challengeSuperseded: "challenge.superseded",
}

// renderChallenge draws c's message in state st, in l's language; timeout
// is how long a challenge waits, for an expired one.
func renderChallenge(l *i18n.Language, c *table.Challenge, st challengeState, timeout time.Duration) view {
	data := map[string]any{"From": mention(c.From), "To": mention(c.To), "Size": c.Size, "Win": c.Win}
	key := challengeTexts[st]
	accept, decline := "button.accept", "button.decline"
	if c.Open() {
		data["To"] = l.T("challenge.anyone", nil)
		accept, decline = "button.join", "button.withdraw"
		if st == challengeOpen {
			key = "challenge.open_anyone"
		}
	}
	switch st {
	case challengeOpen:
		data["Expires"], data["MarkX"] = c.Expires.Unix(), cellX
	case challengeExpired:
		data["Timeout"] = humanDuration(l, timeout)
	}
	v := view{content: l.T(key, data)}
	if st == challengeOpen {
		v.ping = c.To // nobody, for an open challenge
		v.components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T(accept, nil), Style: discordgo.SuccessButton, CustomID: route{action: actAccept, id: c.ID}.String()},
			discordgo.Button{Label: l.T(decline, nil), Style: discordgo.DangerButton, CustomID: route{action: actDecline, id: c.ID}.String()},
		}}}
	}
	return v
}

// humanDuration writes d the way people say it, in l's language: "60
// seconds", "5 minutes", "24 hours"; a d of no whole seconds in Go's
// notation.
func humanDuration(l *i18n.Language, d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return l.N("duration.hours", int(d/time.Hour), nil)
	case d >= time.Minute && d%time.Minute == 0:
		return l.N("duration.minutes", int(d/time.Minute), nil)
	case d%time.Second == 0:
		return l.N("duration.seconds", int(d/time.Second), nil)
	}
	return d.String()
}

// renderDrawOffer draws the message on which the side offering m's draw
// asks the other: Accept draw and Decline for the other, pinged.
func renderDrawOffer(l *i18n.Language, m *table.Match, offerer game.Player) view {
	from, to := m.Players[offerer], m.Players[offerer.Other()]
	return view{
		content: l.T("draw.offer", map[string]any{"From": mention(from), "To": mention(to)}),
		ping:    to,
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T("button.accept_draw", nil), Style: discordgo.SuccessButton, Emoji: &discordgo.ComponentEmoji{Name: "🤝"},
				CustomID: route{action: actDrawYes, id: m.ID}.String()},
			discordgo.Button{Label: l.T("button.decline", nil), Style: discordgo.DangerButton, CustomID: route{action: actDrawNo, id: m.ID}.String()},
		}}},
	}
}

// renderDrawAnswer is the offer message once answered: accepted or
// declined, without buttons.
func renderDrawAnswer(l *i18n.Language, m *table.Match, offerer game.Player, accepted bool) view {
	key := "draw.declined"
	if accepted {
		key = "draw.accepted"
	}
	return view{content: l.T(key, map[string]any{"From": mention(m.Players[offerer]), "To": mention(m.Players[offerer.Other()])})}
}

// allowed lets a message ping ping alone, or nobody if it is "".
func allowed(ping string) *discordgo.MessageAllowedMentions {
	if ping == "" {
		return &discordgo.MessageAllowedMentions{Parse: parseNone}
	}
	// In one allocation with its list of users.
	am := &struct {
		discordgo.MessageAllowedMentions
		users [1]string
	}{users: [1]string{ping}}
	am.Parse, am.Users = parseNone, am.users[:]
	return &am.MessageAllowedMentions
}

// parseNone is the Parse of every message's allowed mentions: an empty
// list, never null, so that Discord parses no mention of its own. It is
// shared, and read only.
var parseNone = []discordgo.AllowedMentionType{}

// launchButton is the Open board button of game gameID's board.
func launchButton(label, gameID string) discordgo.Button {
	return discordgo.Button{
		Label:    label,
		Style:    discordgo.SecondaryButton,
		CustomID: route{action: actLaunch, id: gameID}.String(),
	}
}
