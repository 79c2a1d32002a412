package game

import "strconv"

// Ending says how a game ended, as the table that runs it decides: the judge
// knows lines and full boards, the table also knows resignations, timeouts
// and moderators. The zero value, EndNone, means the game has not ended.
//
// The values are stored as they are: never renumber them.
type Ending uint8

const (
	// EndNone: the game is still being played.
	EndNone Ending = iota
	// EndWon: a player completed a line; the last move's player won.
	EndWon
	// EndDraw: the board is full and nobody won.
	EndDraw
	// EndDecided: no line can be completed by either player any more, so
	// the game stopped early as a draw.
	EndDecided
	// EndResigned: the loser gave up.
	EndResigned
	// EndTimeout: the loser did not move within the turn timeout.
	EndTimeout
	// EndStopped: a moderator stopped the game; nobody wins and it counts
	// for nobody.
	EndStopped
	// EndAgreed: one player offered a draw and the other accepted it.
	EndAgreed
)

// Valid reports whether e is one of the endings above.
func (e Ending) Valid() bool { return e <= EndAgreed }

// Drawn reports whether e ends the game as a draw.
func (e Ending) Drawn() bool { return e == EndDraw || e == EndDecided || e == EndAgreed }

// String returns a lower-case word for e, such as "won" or "timeout".
func (e Ending) String() string {
	switch e {
	case EndNone:
		return "running"
	case EndWon:
		return "won"
	case EndDraw:
		return "draw"
	case EndDecided:
		return "decided"
	case EndResigned:
		return "resigned"
	case EndTimeout:
		return "timeout"
	case EndStopped:
		return "stopped"
	case EndAgreed:
		return "agreed"
	}
	return "Ending(" + strconv.Itoa(int(e)) + ")"
}

// Winner returns the side that won a game that ended with e, given the
// player of the game's last move and, for a resignation or a timeout, the
// side that lost. It returns None for a draw, a stopped game or one still
// running.
func (e Ending) Winner(lastMover, loser Player) Player {
	switch e {
	case EndWon:
		return lastMover
	case EndResigned, EndTimeout:
		return loser.Other()
	}
	return None
}
