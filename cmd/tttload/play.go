package main

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// How one channel plays: A challenges B to a size×size game (win = size),
// B accepts, then they alternate /ttt move, A (X) first, filling the board
// in reading order. On an even size X owns every odd column, so X wins with
// the first move of the last row (91 moves on 10×10); on an odd size X owns
// both diagonals and wins with the same move, completing the anti-diagonal
// (7 moves on 3×3). With clicks (boards up to 5×5, whose buttons are the
// board), a move is a click on the cell's button of the board the last
// answer drew, as players play, instead of /ttt move. With picker (boards
// over 5×5, whose cells do not fit in buttons), a move is two taps on the
// board's picker, as players play there: the row in its menu, then the
// cell among that row's buttons. A new game starts in
// the channel when one ends, between two members who have not played yet:
// people play a game and maybe another, so the bot lets one user start 10
// games at once and then one a second (Rematch included), and a channel
// ends a game every few milliseconds here. With samePair (-pairs channel)
// one pair plays every game of the channel instead, as a script would, and
// the bot's pace on starts refuses it. Nobody plays the computer, whose
// moves the bot paces per player too.
//
// After an unexpected answer to an accept or a move, A resigns (which also
// withdraws an open challenge) and the channel starts over. A start refused
// started nothing: nobody resigns it, and the channel starts again. A start
// that got no answer, or an error, may have opened a challenge, which would
// refuse every start in the channel: A resigns it.

// stepKind is what a channel sends next.
type stepKind uint8

const (
	stepStart  stepKind = iota // A: /ttt start opponent:B size:N
	stepAccept                 // B: click accept/<challenge>
	stepMove                   // A or B: /ttt move or a click, cell k in reading order
	stepPick                   // A or B, with picker: cell k's row in the board's menu
	stepResign                 // A: /ttt resign, to start over
)

func (k stepKind) String() string {
	return [...]string{"start", "accept", "move", "pick", "resign"}[k]
}

// chanState is one channel and its two players. Only the goroutine that
// plays the channel touches it.
type chanState struct {
	id       string
	idx      int    // the channel's number, for its players' names
	a, b     player // the current game's players
	size     int
	clicks   bool // moves are clicks on the board's buttons
	picker   bool // moves are two taps on the board's picker: the row, then the cell
	samePair bool // one pair plays every game (-pairs channel)
	games    int  // games begun in the channel: the current one is games-1

	next      stepKind
	k         int    // the move to play, 0-based, when next is stepMove
	challenge string // the open challenge's id, when next is stepAccept
	messageID string // the challenge message, which becomes the board
	cells     string // with clicks: "move/<game>/<serial>/", the current board's cells
	board     string // with clicks or picker: the current board's components, as JSON
	rows      string // with picker: "row/<game>/<serial>", the board's menu of rows

	pre []presigned // presigned games, by number
	buf []byte      // for payloads built on the fly
	ans []byte      // for reading answers

	wire wireConn // http: the channel's connection to the bot

	run chan time.Time // the time each send is due, from the pacer
}

// presigned is a game whose payloads were signed before the run.
type presigned struct {
	a, b  player
	steps []signed // by step (0: start, 1+k: move k); a body nil once sent
}

// pair returns the players of the channel's game number g: the channel's
// pair, with samePair once it has one, else two new members.
func (c *chanState) pair(g int, newID func() string) (a, b player) {
	if c.samePair && c.a.id != "" {
		return c.a, c.b
	}
	return player{id: newID(), name: fmt.Sprintf("alice%d.%d", c.idx, g)},
		player{id: newID(), name: fmt.Sprintf("bob%d.%d", c.idx, g)}
}

// begin makes the channel's next game the current one, its pair that of
// the presigned game of its number if there is one, and its next step the
// start.
func (c *chanState) begin(newID func() string) {
	g := c.games
	c.games++
	if g < len(c.pre) {
		c.a, c.b = c.pre[g].a, c.pre[g].b
	} else {
		c.a, c.b = c.pair(g, newID)
	}
	c.next, c.k = stepStart, 0
}

// moveStep is the step that plays the next move: with picker, picking its
// row comes first.
func (c *chanState) moveStep() stepKind {
	if c.picker {
		return stepPick
	}
	return stepMove
}

// cell returns the 1-based row and column of move k and who plays it.
func (c *chanState) cell(k int) (row, col int, p player) {
	p = c.a
	if k%2 == 1 {
		p = c.b
	}
	return k/c.size + 1, k%c.size + 1, p
}

// outcome is what came back for one interaction.
type outcome struct {
	answered  bool          // a 200 with an answer in time
	latency   time.Duration // measured by the transport; 0: the driver's clock
	ephemeral bool          // an ephemeral answer: a refusal or an error
	internal  bool          // "Something went wrong"
	busy      bool          // the channel's lock was not free in time
	over      bool          // the answer says the game ended
	challenge string        // the challenge id on an Accept button
	messageID string        // the message the answer created
	cells     string        // the custom_id of the board's cells, up to row and column
	board     string        // the components of the answer's message (http)
	rows      string        // the custom_id of the board's menu of rows (picker)
	text      string        // a short extract of an unexpected answer
}

// read fills o from an answer body (HTTP) or content (gateway), with
// byte searches only: the generator does not decode answers.
func (o *outcome) read(body []byte) {
	o.answered = true
	o.ephemeral = bytes.Contains(body, []byte(`"flags":64`))
	o.internal = bytes.Contains(body, []byte("Something went wrong"))
	o.busy = bytes.Contains(body, []byte("busy with another"))
	o.over = bytes.Contains(body, []byte(" wins with ")) || bytes.Contains(body, []byte("Draw:"))
	if i := bytes.Index(body, []byte(`"accept/`)); i >= 0 {
		rest := body[i+len(`"accept/`):]
		if j := bytes.IndexByte(rest, '"'); j > 0 {
			o.challenge = string(rest[:j])
		}
	}
	// Only the buttons: the content may quote anything.
	if board := components(body); board != "" {
		if o.cells = cellsPrefix([]byte(board)); o.cells != "" {
			o.board = board
		}
		if o.rows = rowsID([]byte(board)); o.rows != "" {
			o.board = board
		}
	}
}

// rowsID returns the custom_id "row/<game>/<serial>" of the picker's menu
// of rows in body, or "".
func rowsID(body []byte) string {
	i := bytes.Index(body, []byte(`"row/`))
	if i < 0 {
		return ""
	}
	id, _, ok := bytes.Cut(body[i+1:], []byte(`"`))
	if !ok || strings.Count(string(id), "/") != 2 {
		return ""
	}
	return string(id)
}

// cellsPrefix returns "move/<game>/<serial>/" of the first cell button in
// body, or "".
func cellsPrefix(body []byte) string {
	i := bytes.Index(body, []byte(`"move/`))
	if i < 0 {
		return ""
	}
	id, _, ok := bytes.Cut(body[i+1:], []byte(`"`))
	if !ok {
		return ""
	}
	return cellsOf(string(id))
}

// cellsOf returns the custom_id of a cell, "move/<game>/<serial>/<row>/<col>",
// up to its row: the part every cell of one board shares. It returns "" for
// any other custom_id.
func cellsOf(customID string) string {
	parts := strings.Split(customID, "/")
	if len(parts) != 5 || parts[0] != "move" {
		return ""
	}
	return strings.Join(parts[:3], "/") + "/"
}

// components returns the JSON array after the first "components" key of
// an answer, which is its message's action rows, or "".
func components(body []byte) string {
	i := bytes.Index(body, []byte(`"components":[`))
	if i < 0 {
		return ""
	}
	rest := body[i+len(`"components":`):]
	depth, inString := 0, false
	for j := 0; j < len(rest); j++ {
		switch ch := rest[j]; {
		case inString && ch == '\\':
			j++
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '[' || ch == '{':
			depth++
		case ch == ']' || ch == '}':
			if depth--; depth == 0 {
				return string(rest[:j+1])
			}
		}
	}
	return ""
}

// advance moves the channel on after the step it sent got o, and says
// whether o is what that step should get (for the error counts). newID
// gives the snowflakes of new members and of a challenge's message when
// the answer names none.
func (c *chanState) advance(o outcome, newID func() string) (expected bool) {
	ok := o.answered && !o.ephemeral
	switch c.next {
	case stepStart:
		if ok && o.challenge != "" {
			c.next, c.challenge, c.messageID = stepAccept, o.challenge, o.messageID
			if c.messageID == "" {
				c.messageID = newID()
			}
			return true
		}
		if o.answered && o.ephemeral && !o.internal {
			c.begin(newID) // refused: nothing to resign
			return false
		}
	case stepAccept:
		if ok {
			c.next, c.k = c.moveStep(), 0
			c.cells, c.rows, c.board = o.cells, o.rows, o.board
			return !c.picker || c.rows != ""
		}
	case stepPick:
		if ok && o.cells != "" {
			c.next = stepMove
			c.cells, c.board = o.cells, o.board
			return true
		}
	case stepMove:
		if ok {
			c.k++
			if o.cells != "" || o.rows != "" {
				c.cells, c.rows, c.board = o.cells, o.rows, o.board
				if o.messageID != "" {
					c.messageID = o.messageID // the board the answer drew (gateway)
				}
			}
			switch {
			case o.over:
				c.begin(newID)
			case c.k >= c.size*c.size:
				c.next = stepResign // cannot happen: the board is full
			case c.picker && c.rows == "":
				c.next = stepResign // a board without its picker
				return false
			default:
				c.next = c.moveStep()
			}
			return true
		}
	case stepResign:
		c.begin(newID)
		return o.answered
	}
	c.next = stepResign
	return false
}

// movesPerGame is the number of moves a game of the plan takes on an n×n
// board.
func movesPerGame(n int) int { return (n-1)*n + 1 }
