package game

import (
	"errors"
	"fmt"
	"strconv"
)

// MaxSize is the largest board size n that [New] accepts.
//
// A 1000×1000 game keeps a 1 MB board, up to 4 MB of history when the board
// is full, and for k < n about 1 MB of window state; beyond that a chat game
// makes no sense and the memory of a bot holding many games would grow
// without bound. The benchmarks measure [Judge.Move] and [ComputerMove] at this
// size, and the line counters are uint16, which this bound keeps far from
// overflow.
const MaxSize = 1000

// Player is a side of the game, or nobody. Its zero value is None.
type Player uint8

const (
	// None is nobody: an empty cell, no winner, or no one to move.
	None Player = 0
	// X is player 1; it moves first unless FirstPlayer says otherwise.
	X Player = 1
	// O is player 2.
	O Player = 2
)

// Other returns the opponent of p: X for O, O for X, and None for None (or
// any invalid value).
func (p Player) Other() Player {
	switch p {
	case X:
		return O
	case O:
		return X
	}
	return None
}

// String returns "X", "O" or "none" (and "Player(n)" for invalid values).
func (p Player) String() string {
	switch p {
	case None:
		return "none"
	case X:
		return "X"
	case O:
		return "O"
	}
	return "Player(" + strconv.Itoa(int(p)) + ")"
}

// valid reports whether p is X or O.
func (p Player) valid() bool { return p == X || p == O }

// Status is the state of a game. Its zero value is InProgress.
type Status uint8

const (
	// InProgress means moves can still be made and someone may still win.
	InProgress Status = iota
	// Won means a player completed a line; the judge accepts no more moves
	// (ErrGameOver).
	Won
	// Draw means the board is full and nobody won; the judge accepts no more
	// moves (ErrGameOver).
	Draw
	// DecidedDraw means the board is not full but no line can be completed
	// by either player any more. The judge still accepts moves, and the
	// status becomes Draw when the board fills; it can never become Won.
	DecidedDraw
)

// String returns "in progress", "won", "draw" or "decided draw".
func (s Status) String() string {
	switch s {
	case InProgress:
		return "in progress"
	case Won:
		return "won"
	case Draw:
		return "draw"
	case DecidedDraw:
		return "decided draw"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Decided reports whether the outcome of the game is known: Won, Draw or
// DecidedDraw. A bot ends the game when it sees a decided status.
func (s Status) Decided() bool { return s == Won || s == Draw || s == DecidedDraw }

// over reports whether the judge refuses further moves.
func (s Status) over() bool { return s == Won || s == Draw }

// Errors returned by the package. They are wrapped with context (the move,
// the size); test for them with errors.Is.
var (
	// ErrSize: the board size is below 1 or above MaxSize.
	ErrSize = errors.New("game: board size out of range")
	// ErrWinLength: the win length k is below 1 or above the board size.
	ErrWinLength = errors.New("game: win length out of range")
	// ErrOutOfBounds: the cell is outside the board.
	ErrOutOfBounds = errors.New("game: cell outside the board")
	// ErrOccupied: the cell already holds a mark.
	ErrOccupied = errors.New("game: cell occupied")
	// ErrBadPlayer: the player is neither 1 (X) nor 2 (O).
	ErrBadPlayer = errors.New("game: player must be 1 (X) or 2 (O)")
	// ErrNotYourTurn: the other player is to move.
	ErrNotYourTurn = errors.New("game: not this player's turn")
	// ErrGameOver: the game has been won or drawn on a full board.
	ErrGameOver = errors.New("game: game is over")
	// ErrLevel: the computer level is not easy, medium or hard.
	ErrLevel = errors.New("game: unknown computer level")
)

// options is the configuration New builds from its Options.
type options struct {
	k     int // win length; 0 means n
	first Player
	err   error // first invalid option, reported by New
}

// Option configures a game created by New or Replay.
type Option func(*options)

// WinLength sets the number k of marks in a row that wins, 1 <= k <= n;
// the default is n. New returns ErrWinLength for any other k. (The bot asks
// for k >= 3 itself; the judge accepts any k that makes sense.)
func WinLength(k int) Option {
	return func(o *options) {
		if k < 1 {
			o.setErr(fmt.Errorf("win length %d: %w", k, ErrWinLength))
			return
		}
		o.k = k
	}
}

// FirstPlayer sets who moves first: X (the default) or O. New returns
// ErrBadPlayer for any other value.
func FirstPlayer(p Player) Option {
	return func(o *options) {
		if !p.valid() {
			o.setErr(fmt.Errorf("first player %d: %w", p, ErrBadPlayer))
			return
		}
		o.first = p
	}
}

func (o *options) setErr(err error) {
	if o.err == nil {
		o.err = err
	}
}

// Cell is a square of the board, 0-based; the zero Cell is the top-left
// corner.
type Cell struct{ Row, Col int }

// Move is one move of a game's history: Player marked the cell at Row, Col
// (0-based). The zero Move, whose Player is None, is not a valid move.
type Move struct {
	Row, Col int
	Player   Player
}

// lineCount holds, for one row, column or diagonal, the number of X marks
// ([0]) and O marks ([1]) on it. uint16 suffices because n <= MaxSize.
type lineCount [2]uint16

// A Judge judges one game: the board, whose turn it is, the status and
// the history.
//
// The zero Judge is not usable; create one with New or Replay. All methods
// run in O(1) except where their documentation says otherwise. A Judge is not
// safe for concurrent use: methods that only read (everything but Move, Play
// and Reset) may run concurrently with each other, but not with a move; the
// caller serialises access (the bot holds one lock per channel).
type Judge struct {
	n, k  int
	first Player

	board []Player // n*n cells, row-major
	// hist holds the moves as cell indices row*n+col. The player of move i
	// follows from first and i because players alternate, so 4 bytes a move
	// suffice; History expands it. It grows by append (amortised O(1), no
	// allocation in steady state) and Reset keeps its capacity.
	hist []int32

	status Status
	winner Player
	// winStart, winDR and winDC describe the winning line once status == Won:
	// k cells from winStart, each step (dr, dc) further.
	winStart     Cell
	winDR, winDC int

	// winnable counts the lines (k == n) or length-k windows (k < n) that
	// hold marks of at most one player; when it reaches 0 nobody can win.
	winnable int

	// k == n: lines[r] for row r, lines[n+c] for column c, lines[2n] for
	// the main diagonal and lines[2n+1] for the anti-diagonal.
	lines []lineCount

	// k < n: masks[d] holds 2 bits per window in direction d (bit 0: an X
	// in it, bit 1: an O), 4 windows per byte; nil when k == n.
	masks [4][]uint8
}

// New returns a judge for an empty n×n board, 1 <= n <= MaxSize; otherwise
// it returns ErrSize. Options set the win length and the first player.
//
// New costs O(n²): it allocates the board (n² bytes) and, for k == n, 2n+2
// line counters; for k < n it allocates 2 bits per window instead (about n²
// bytes).
func New(n int, opts ...Option) (*Judge, error) {
	if n < 1 || n > MaxSize {
		return nil, fmt.Errorf("size %d (want 1 to %d): %w", n, MaxSize, ErrSize)
	}
	o := options{first: X}
	for _, opt := range opts {
		opt(&o)
	}
	if o.err != nil {
		return nil, o.err
	}
	k := n
	if o.k != 0 {
		if o.k > n {
			return nil, fmt.Errorf("win length %d on a %d×%d board: %w", o.k, n, n, ErrWinLength)
		}
		k = o.k
	}
	g := &Judge{
		n:     n,
		k:     k,
		first: o.first,
		board: make([]Player, n*n),
		// Preallocate a small history so that short games never allocate
		// while being played; long games grow it amortised.
		hist: make([]int32, 0, min(n*n, 256)),
	}
	if k == n {
		g.lines = make([]lineCount, 2*n+2)
	} else {
		g.initWindows()
	}
	g.winnable = g.lineTotal()
	return g, nil
}

// lineTotal returns the number of lines (k == n) or windows (k < n).
func (g *Judge) lineTotal() int {
	if g.k == g.n {
		return 2*g.n + 2
	}
	return windowTotal(g.n, g.k)
}

// Reset empties the board for a new game of the same size, win length and
// first player, keeping the memory already allocated (for a rematch, and
// for benchmarks). It costs O(n²) for clearing the board.
func (g *Judge) Reset() {
	clear(g.board)
	g.hist = g.hist[:0]
	g.status, g.winner = InProgress, None
	g.winStart, g.winDR, g.winDC = Cell{}, 0, 0
	clear(g.lines)
	for _, m := range g.masks {
		clear(m)
	}
	g.winnable = g.lineTotal()
}

// Move is the API of LeetCode 348: player 1 (X) or 2 (O) marks the cell at
// the 0-based row and col. It returns the winner after the move — 0 if
// nobody has won yet, else 1 or 2 — and an error (with winner 0) if the move
// is rejected, in which case the game is unchanged. See Play for the errors.
func (g *Judge) Move(row, col, player int) (winner int, err error) {
	if player != int(X) && player != int(O) {
		return 0, fmt.Errorf("move %d,%d by player %d: %w", row, col, player, ErrBadPlayer)
	}
	st, err := g.Play(row, col, Player(player))
	if err != nil || st != Won {
		return 0, err
	}
	return int(g.winner), nil
}

// Play marks the cell at the 0-based row and col for player p and returns
// the status after the move.
//
// A rejected move leaves the game exactly as it was and returns the current
// status with an error wrapping, checked in this order: ErrBadPlayer (p is
// not X or O), ErrGameOver (the status is Won or Draw), ErrOutOfBounds,
// ErrNotYourTurn, ErrOccupied. Moves are still accepted in DecidedDraw.
//
// Play costs O(1) when k == n and O(k) when k < n, and does not allocate
// except when the history outgrows its capacity (amortised O(1)).
func (g *Judge) Play(row, col int, p Player) (Status, error) {
	if err := g.play(row, col, p); err != nil {
		return g.status, fmt.Errorf("move %d,%d: %w", row, col, err)
	}
	return g.status, nil
}

// play is Play returning the bare sentinel, so that callers can add their
// own context (Replay reports the move index).
func (g *Judge) play(row, col int, p Player) error {
	switch {
	case !p.valid():
		return ErrBadPlayer
	case g.status.over():
		return ErrGameOver
	case row < 0 || row >= g.n || col < 0 || col >= g.n:
		return ErrOutOfBounds
	case p != g.Turn():
		return ErrNotYourTurn
	case g.board[row*g.n+col] != None:
		return ErrOccupied
	}
	i := row*g.n + col
	g.board[i] = p
	g.hist = append(g.hist, int32(i))
	var won bool
	if g.k == g.n {
		won = g.markLines(row, col, p)
	} else {
		g.markWindows(row, col, p)
		won = g.scanWin(row, col, p)
	}
	switch {
	case won:
		g.status, g.winner = Won, p
	case len(g.hist) == len(g.board):
		g.status = Draw
	case g.winnable == 0:
		g.status = DecidedDraw
	}
	return nil
}

// markLines updates the counters of the (up to four) lines through the new
// mark and reports whether one of them is now full of p's marks; the first
// full one, in the order row, column, diagonal, anti-diagonal, is recorded
// as the winning line. O(1).
func (g *Judge) markLines(row, col int, p Player) bool {
	n := g.n
	me := int(p - 1)
	rowFull := g.bump(row, me)
	colFull := g.bump(n+col, me)
	diagFull := row == col && g.bump(2*n, me)
	antiFull := row+col == n-1 && g.bump(2*n+1, me)
	switch {
	case rowFull:
		g.setWin(Cell{row, 0}, 0, 1)
	case colFull:
		g.setWin(Cell{0, col}, 1, 0)
	case diagFull:
		g.setWin(Cell{0, 0}, 1, 1)
	case antiFull:
		g.setWin(Cell{0, n - 1}, 1, -1)
	default:
		return false
	}
	return true
}

// bump adds a mark of player index me (0 for X, 1 for O) to line l and
// reports whether the line is now full of that player's marks.
func (g *Judge) bump(l, me int) bool {
	c := &g.lines[l]
	c[me]++
	// The line stops being winnable when the first mark of its second
	// player arrives.
	if c[me] == 1 && c[1-me] > 0 {
		g.winnable--
	}
	return int(c[me]) == g.n
}

// setWin records the winning line: k cells from start, step (dr, dc).
func (g *Judge) setWin(start Cell, dr, dc int) {
	g.winStart, g.winDR, g.winDC = start, dr, dc
}

// Size returns n, the number of rows and of columns.
func (g *Judge) Size() int { return g.n }

// WinLength returns k, the number of marks in a row that wins.
func (g *Judge) WinLength() int { return g.k }

// First returns the player who moved (or moves) first.
func (g *Judge) First() Player { return g.first }

// At returns the mark at the 0-based row and col, None for an empty cell or
// a cell outside the board.
func (g *Judge) At(row, col int) Player {
	if row < 0 || row >= g.n || col < 0 || col >= g.n {
		return None
	}
	return g.board[row*g.n+col]
}

// Turn returns the player to move next, or None once the status is Won or
// Draw. Players keep alternating in DecidedDraw.
func (g *Judge) Turn() Player {
	if g.status.over() {
		return None
	}
	if len(g.hist)%2 == 0 {
		return g.first
	}
	return g.first.Other()
}

// Status returns the status of the game.
func (g *Judge) Status() Status { return g.status }

// Winner returns the player who won, or None unless the status is Won.
func (g *Judge) Winner() Player { return g.winner }

// WinLine returns the k cells of the winning line in order along the line
// (left to right, top to bottom), as a fresh slice, or nil unless the status
// is Won. When a move completed several lines it returns the first of row,
// column, diagonal and anti-diagonal; with k < n and a run longer than k it
// returns the first k cells of the run, which always include the last move.
// O(k).
func (g *Judge) WinLine() []Cell {
	if g.status != Won {
		return nil
	}
	cells := make([]Cell, g.k)
	for i := range cells {
		cells[i] = Cell{g.winStart.Row + i*g.winDR, g.winStart.Col + i*g.winDC}
	}
	return cells
}

// moveAt returns move i of the history.
func (g *Judge) moveAt(i int) Move {
	p := g.first
	if i%2 == 1 {
		p = p.Other()
	}
	c := int(g.hist[i])
	return Move{Row: c / g.n, Col: c % g.n, Player: p}
}

// History returns the moves made so far, in order, as a fresh slice (nil
// before the first move). O(number of moves).
func (g *Judge) History() []Move {
	if len(g.hist) == 0 {
		return nil
	}
	ms := make([]Move, len(g.hist))
	for i := range ms {
		ms[i] = g.moveAt(i)
	}
	return ms
}

// Len returns the number of moves made.
func (g *Judge) Len() int { return len(g.hist) }

// LastMove returns the latest move, and false before the first move.
func (g *Judge) LastMove() (Move, bool) {
	if len(g.hist) == 0 {
		return Move{}, false
	}
	return g.moveAt(len(g.hist) - 1), true
}

// Clone returns a deep copy of g that shares no memory with it. O(n²).
func (g *Judge) Clone() *Judge {
	c := *g
	c.board = cloneSlice(g.board)
	c.hist = cloneSlice(g.hist)
	c.lines = cloneSlice(g.lines)
	for d := range g.masks {
		c.masks[d] = cloneSlice(g.masks[d])
	}
	return &c
}

// cloneSlice copies s keeping nil as nil and the capacity (so a clone grows
// like the original).
func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s), cap(s))
	copy(c, s)
	return c
}

// Replay rebuilds a game from its history: it creates New(n, opts...) and
// plays every move in order. The options must be those the game was created
// with (in particular FirstPlayer). Replaying the History of a game yields a
// game in exactly the same state. If a move is rejected, Replay returns nil
// and an error wrapping the sentinel that Play would have returned, with the
// 0-based index of the move, e.g. "replay move 3: game: cell occupied".
// O(len(history)) moves.
func Replay(n int, history []Move, opts ...Option) (*Judge, error) {
	g, err := New(n, opts...)
	if err != nil {
		return nil, err
	}
	for i, m := range history {
		if err := g.play(m.Row, m.Col, m.Player); err != nil {
			return nil, fmt.Errorf("replay move %d: %w", i, err)
		}
	}
	return g, nil
}
