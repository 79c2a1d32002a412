package bot

import (
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/table"
)

// The cells of the emoji board. Each is a single code point, so a row costs
// one code point per cell plus its label.
const (
	cellEmpty = "⬜"
	cellX     = "❌"
	cellO     = "⭕"
	cellWin   = "🟩"  // a cell of the winning line
	lastX     = "❎"  // X's last move
	lastO     = "🅾️" // O's last move
	corner    = "#️⃣"
)

// labels are the row and column labels, 1-based: keycaps, which (unlike
// regional indicators) never merge with their neighbours.
var labels = [...]string{"0️⃣", "1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟"}

// A view is a rendered message: what the bot sends or edits.
type view struct {
	content    string
	components []discordgo.MessageComponent
	// ping is the user to notify, if any; mentions of everyone else in the
	// content render as names without a notification.
	ping string
}

func mention(id string) string { return "<@" + id + ">" }

func mark(p game.Player) string {
	if p == game.O {
		return cellO
	}
	return cellX
}

// renderMatch draws m: the header, the labelled grid, the last move, and a
// status line; for boards up to MaxButtonSize, the cells as buttons; when it
// is over, a Rematch button. note, if not empty, is added as a last line.
func renderMatch(m *table.Match, note string) view {
	g := m.Judge
	n := g.Size()
	var b strings.Builder
	b.Grow(64 + (n+1)*(n+4)*4)

	fmt.Fprintf(&b, "%s %s vs %s %s · %d×%d, %d in a row\n",
		cellX, mention(m.Players[game.X]), cellO, mention(m.Players[game.O]), n, n, g.WinLength())

	var win map[game.Cell]bool // nil, and so empty, unless the game was won
	if m.End == game.EndWon {
		win = make(map[game.Cell]bool, g.WinLength())
		for _, c := range g.WinLine() {
			win[c] = true
		}
	}
	last, hasLast := g.LastMove()

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

	if hasLast {
		fmt.Fprintf(&b, "Last move: %s %s at row %d, column %d.\n",
			mark(last.Player), mention(m.Players[last.Player]), last.Row+1, last.Col+1)
	}
	b.WriteString(statusLine(m))
	if note != "" {
		b.WriteString("\n")
		b.WriteString(note)
	}

	v := view{content: b.String()}
	if !m.Over() {
		v.ping = m.Players[g.Turn()]
		if g.Turn() == m.Computer {
			v.ping = ""
		}
	}
	v.components = matchComponents(m, win, last, hasLast)
	return v
}

func cellEmoji(g *game.Game, r, c int, win map[game.Cell]bool, last game.Move, hasLast bool) string {
	p := g.At(r, c)
	switch {
	case p == game.None:
		return cellEmpty
	case win[game.Cell{Row: r, Col: c}]:
		return cellWin
	case hasLast && last.Row == r && last.Col == c:
		if p == game.O {
			return lastO
		}
		return lastX
	}
	return mark(p)
}

// statusLine names who is to move, or says how the game ended.
func statusLine(m *table.Match) string {
	g := m.Judge
	switch m.End {
	case game.EndNone:
		p := g.Turn()
		s := fmt.Sprintf("%s %s to move", mark(p), mention(m.Players[p]))
		if m.Computer == p {
			return s + "."
		}
		if g.Size() <= MaxButtonSize {
			s += ": click a cell or use `/ttt move row col`"
		} else {
			s += " with `/ttt move row col`"
		}
		if !m.Deadline.IsZero() {
			s += fmt.Sprintf(" (time runs out <t:%d:R>)", m.Deadline.Unix())
		}
		return s + "."
	case game.EndWon:
		w := g.Winner()
		return fmt.Sprintf("🏆 %s %s wins with %d in a row (in %s)!", mark(w), mention(m.Players[w]), g.WinLength(), cellWin)
	case game.EndDraw:
		return "🤝 Draw: the board is full and nobody has a line."
	case game.EndDecided:
		return "🤝 Draw: no line can be completed by either player any more, so the game ends early."
	case game.EndResigned:
		w := m.Loser.Other()
		return fmt.Sprintf("🏳️ %s resigned. %s %s wins!", mention(m.Players[m.Loser]), mark(w), mention(m.Players[w]))
	case game.EndTimeout:
		w := m.Loser.Other()
		return fmt.Sprintf("⏰ %s did not move in time. %s %s wins by timeout!", mention(m.Players[m.Loser]), mark(w), mention(m.Players[w]))
	case game.EndStopped:
		return fmt.Sprintf("🛑 Game stopped by %s. Nobody wins.", mention(m.StoppedBy))
	}
	return ""
}

// matchComponents returns the cell buttons of a board up to MaxButtonSize
// and, once the game is over, a Rematch button. A 5×5 grid already uses all
// five action rows, so a finished 5×5 game shows Rematch alone (the emoji
// board above still shows the final position).
func matchComponents(m *table.Match, win map[game.Cell]bool, last game.Move, hasLast bool) []discordgo.MessageComponent {
	g := m.Judge
	n := g.Size()
	var rows []discordgo.MessageComponent
	if n <= MaxButtonSize && (!m.Over() || n < MaxButtonSize) {
		for r := 0; r < n; r++ {
			row := discordgo.ActionsRow{Components: make([]discordgo.MessageComponent, 0, n)}
			for c := 0; c < n; c++ {
				row.Components = append(row.Components, cellButton(m, r, c, win, last, hasLast))
			}
			rows = append(rows, row)
		}
	}
	if m.Over() {
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{
				Label:    "Rematch",
				Style:    discordgo.PrimaryButton,
				Emoji:    &discordgo.ComponentEmoji{Name: "🔁"},
				CustomID: route{action: actRematch, id: m.ID}.String(),
			},
		}})
	}
	return rows
}

func cellButton(m *table.Match, r, c int, win map[game.Cell]bool, last game.Move, hasLast bool) discordgo.Button {
	p := m.Judge.At(r, c)
	b := discordgo.Button{
		Style:    discordgo.SecondaryButton,
		CustomID: route{action: actMove, id: m.ID, serial: m.Serial, row: r + 1, col: c + 1}.String(),
		Disabled: m.Over() || p != game.None,
	}
	switch {
	case p == game.None:
		// Every cell shows one emoji, so the buttons line up.
		b.Emoji = &discordgo.ComponentEmoji{Name: cellEmpty}
	case win[game.Cell{Row: r, Col: c}]:
		b.Emoji = &discordgo.ComponentEmoji{Name: mark(p)}
		b.Style = discordgo.SuccessButton
	default:
		b.Emoji = &discordgo.ComponentEmoji{Name: mark(p)}
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

func renderChallenge(c *table.Challenge, st challengeState, timeout time.Duration) view {
	board := fmt.Sprintf("a %d×%d board, %d in a row", c.Size, c.Size, c.Win)
	switch st {
	case challengeDeclined:
		return view{content: fmt.Sprintf("%s declined the challenge from %s (%s).", mention(c.To), mention(c.From), board)}
	case challengeWithdrawn:
		return view{content: fmt.Sprintf("%s withdrew the challenge to %s (%s).", mention(c.From), mention(c.To), board)}
	case challengeExpired:
		return view{content: fmt.Sprintf("⌛ The challenge from %s to %s (%s) expired: no answer within %s.", mention(c.From), mention(c.To), board, humanDuration(timeout))}
	case challengeCancelled:
		return view{content: fmt.Sprintf("🛑 The challenge from %s to %s (%s) was cancelled by a moderator.", mention(c.From), mention(c.To), board)}
	case challengeSuperseded:
		return view{content: fmt.Sprintf("The challenge from %s to %s (%s) was called off: another game started in this channel first.", mention(c.From), mention(c.To), board)}
	}
	return view{
		content: fmt.Sprintf("⚔️ %s challenges %s to tic-tac-toe on %s. %s, do you accept? The challenge expires <t:%d:R>.\n%s plays %s and moves first.",
			mention(c.From), mention(c.To), board, mention(c.To), c.Expires.Unix(), mention(c.From), cellX),
		ping: c.To,
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Accept", Style: discordgo.SuccessButton, CustomID: route{action: actAccept, id: c.ID}.String()},
			discordgo.Button{Label: "Decline", Style: discordgo.DangerButton, CustomID: route{action: actDecline, id: c.ID}.String()},
		}}},
	}
}

// humanDuration writes d the way people say it: "60 seconds", "5 minutes".
func humanDuration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		if d == time.Minute {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d%time.Second == 0:
		if d == time.Second {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return d.String()
}

// stale is what an old board message says once a newer one replaced it;
// over says whether the game has ended since.
func stale(content string, over bool) view {
	if over {
		return view{content: "⬇️ *This game is over: the result is in a newer message.*\n" + content}
	}
	return view{content: "⬇️ *This board is out of date; the game continues in a newer message.*\n" + content}
}
