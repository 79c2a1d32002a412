package bot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A route is what a button's custom_id says: the action, the game or
// challenge it belongs to, and for a cell the board serial and the 1-based
// cell. Carrying the ids lets a click on an old message be told apart from a
// click on the current board without any lookup.
//
//	move/<game>/<serial>/<row>/<col>
//	accept/<challenge>   decline/<challenge>   rematch/<game>
//	drawyes/<game>       drawno/<game>
//	row/<game>/<serial>  type/<game>/<serial>  typed/<game>/<serial>
//	launch/<game>
//
// The last three are the picker of a board bigger than MaxButtonSize
// (picker.go): its select menu of rows, its Move… button, and the modal
// that button opens. The serial numbers a game's board messages; on a
// board with a picker, every move counts too (playClick), so that a tap on
// a picker drawn before a move is told apart from one on the board as it
// stands. launch is the Open board button (launch.go), which opens the
// live board of whatever game the channel has; its game id only keeps
// each board's custom_ids apart.
type route struct {
	action   string
	id       string
	serial   int
	row, col int
}

// Route actions.
const (
	actMove    = "move"
	actAccept  = "accept"
	actDecline = "decline"
	actRematch = "rematch"
	actDrawYes = "drawyes" // accept the draw offered in a game
	actDrawNo  = "drawno"  // decline it
	actRow     = "row"     // the picker's select menu: open a row
	actType    = "type"    // the picker's Move… button: open the modal
	actTyped   = "typed"   // the modal, submitted
	actLaunch  = "launch"  // Open board: open the live board (launch.go)
)

// maxSide is the largest row or column a custom_id may name: the side of
// the largest board anyone may play (MaxSize) may grow to it without a
// change of format.
const maxSide = 15

// maxCustomID is Discord's limit on a component's custom_id.
const maxCustomID = 100

var errBadRoute = errors.New("bot: malformed custom_id")

// String encodes r as a custom_id, in one allocation: a board draws
// one per cell.
func (r route) String() string {
	switch r.action {
	case actMove, actRow, actType, actTyped:
	default:
		return r.action + "/" + r.id
	}
	var b [maxCustomID]byte
	s := append(append(append(b[:0], r.action...), '/'), r.id...)
	s = strconv.AppendInt(append(s, '/'), int64(r.serial), 10)
	if r.action == actMove {
		s = strconv.AppendInt(append(s, '/'), int64(r.row), 10)
		s = strconv.AppendInt(append(s, '/'), int64(r.col), 10)
	}
	return string(s)
}

// parseRoute decodes a custom_id made by route.String. It accepts nothing
// else: ids are non-empty and slash-free, numbers are canonical decimals in
// range, so every accepted string re-encodes to itself.
func parseRoute(s string) (route, error) {
	if len(s) > maxCustomID {
		return route{}, fmt.Errorf("%w: %d characters", errBadRoute, len(s))
	}
	parts := strings.Split(s, "/")
	if len(parts) < 2 || !validID(parts[1]) {
		return route{}, fmt.Errorf("%w: %q", errBadRoute, s)
	}
	r := route{action: parts[0], id: parts[1]}
	switch r.action {
	case actAccept, actDecline, actRematch, actDrawYes, actDrawNo, actLaunch:
		if len(parts) != 2 {
			return route{}, fmt.Errorf("%w: %q", errBadRoute, s)
		}
		return r, nil
	case actRow, actType, actTyped:
		if len(parts) != 3 {
			return route{}, fmt.Errorf("%w: %q", errBadRoute, s)
		}
		var err error
		if r.serial, err = smallInt(parts[2], 0, 1<<30); err != nil {
			return route{}, fmt.Errorf("%w: serial: %v", errBadRoute, err)
		}
		return r, nil
	case actMove:
		if len(parts) != 5 {
			return route{}, fmt.Errorf("%w: %q", errBadRoute, s)
		}
		var err error
		if r.serial, err = smallInt(parts[2], 0, 1<<30); err != nil {
			return route{}, fmt.Errorf("%w: serial: %v", errBadRoute, err)
		}
		if r.row, err = smallInt(parts[3], 1, maxSide); err != nil {
			return route{}, fmt.Errorf("%w: row: %v", errBadRoute, err)
		}
		if r.col, err = smallInt(parts[4], 1, maxSide); err != nil {
			return route{}, fmt.Errorf("%w: col: %v", errBadRoute, err)
		}
		return r, nil
	}
	return route{}, fmt.Errorf("%w: unknown action %q", errBadRoute, r.action)
}

func validID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

func smallInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d outside %d..%d", n, lo, hi)
	}
	return n, nil
}
