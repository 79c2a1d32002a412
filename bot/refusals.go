package bot

import (
	"errors"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/table"
)

// A refusals maps the table's refusals of one action (its sentinel
// errors) to the catalog's texts that tell a player why, in plain words.
type refusals []struct {
	err error
	key string
}

// The refusals of each action a player may take.
var (
	moveRefusals = refusals{
		{table.ErrOver, "move.game_over"},
		{table.ErrNotPlayer, "move.not_player"},
		{table.ErrNotYourTurn, "move.not_your_turn"},
		{table.ErrOutside, "move.outside"},
		{table.ErrOccupied, "move.occupied"},
	}
	resignRefusals    = refusals{{table.ErrNotPlayer, "resign.not_player"}}
	offerDrawRefusals = refusals{
		{table.ErrNotPlayer, "draw.not_player"},
		{table.ErrComputer, "draw.computer"},
		{table.ErrOffered, "draw.already"},
	}
	answerDrawRefusals = refusals{
		{table.ErrNotPlayer, "draw.not_player"},
		{table.ErrNoOffer, "draw.own"}, // the offer stands, so it is the clicker's own
	}
	acceptRefusals = refusals{
		{table.ErrOwnChallenge, "challenge.own"},
		{table.ErrNotChallenge, "challenge.not_yours_start"},
		{table.ErrExpired, "challenge.too_late"},
	}
	// joinRefusals are those of Join, the Accept of an open challenge.
	joinRefusals = refusals{
		{table.ErrOwnChallenge, "challenge.own_open"},
		{table.ErrNotChallenge, "challenge.not_yours_start"},
		{table.ErrExpired, "challenge.too_late"},
	}
	declineRefusals = refusals{{table.ErrNotChallenge, "challenge.not_yours"}}
	// withdrawRefusals are those of Withdraw, the Decline of an open
	// challenge.
	withdrawRefusals = refusals{{table.ErrNotChallenge, "challenge.open_not_yours"}}
	rematchRefusals  = refusals{
		{table.ErrNotOver, "rematch.not_over"},
		{table.ErrNotPlayer, "rematch.not_player"},
	}
)

// of returns err in words: the refusal of its text, with data for the
// text's placeholders. An error that rs does not name passes through.
func (rs refusals) of(err error, data map[string]any) error {
	for _, r := range rs {
		if errors.Is(err, r.err) {
			return refuse(r.key, data)
		}
	}
	return err
}

// moveData are the placeholders of the refusals of a move at row, col
// (1-based) in m.
func moveData(m *match, row, col int) map[string]any {
	data := players(m.Match)
	turn := m.Turn()
	data["Mark"], data["Player"] = mark(turn), mention(m.Players[turn])
	data["Row"], data["Col"], data["Size"], data["Empty"] = row, col, m.Judge.Size(), cellEmpty
	return data
}

// players are the placeholders MarkX, PlayerX, MarkO and PlayerO of m.
func players(m *table.Match) map[string]any {
	return map[string]any{"MarkX": cellX, "PlayerX": mention(m.Players[game.X]), "MarkO": cellO, "PlayerO": mention(m.Players[game.O])}
}

// pickerTap checks a tap on m's picker (r) by req: the game is the one of
// the picker, running, and req's user is to move, at the serial the
// picker was drawn for. stale says that the picker was drawn before m's
// board changed (Bot.answerStale answers it).
func pickerTap(req *request, m *match, r route) (stale bool, err error) {
	switch {
	case m == nil:
		return false, refuse("move.not_here", nil)
	case m.ID != r.id:
		return false, refuse("move.other_game", nil)
	case m.Over():
		return false, refuse("move.game_over", nil)
	case m.Players[m.Turn()] != req.user.ID:
		return false, refuse("move.not_your_turn", moveData(m, 0, 0))
	case r.serial != m.Serial:
		return true, refuse("move.stale_picker", nil)
	}
	return false, nil
}
