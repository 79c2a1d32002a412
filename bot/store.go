package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// Store keeps each channel's latest game so that it outlives the process.
// The bot loads a channel's game the first time it sees the channel, saves it
// after every change, under the channel's lock and before it answers the
// player, and at start-up asks for the running games to restart their
// timers. Open challenges are not stored; they last a minute.
//
// store.Memory implements it; the SQLite and PostgreSQL stores will too.
type Store interface {
	// Load returns the channel's game, or nil and no error if it has none.
	Load(ctx context.Context, channelID string) (*store.Record, error)
	// Save replaces the channel's game with r.
	Save(ctx context.Context, r *store.Record) error
	// Delete forgets the channel's game.
	Delete(ctx context.Context, channelID string) error
	// Running returns every game that has not ended.
	Running(ctx context.Context) ([]*store.Record, error)
}

func toRecord(m *match) *store.Record {
	g := m.judge
	r := &store.Record{
		ChannelID: m.channelID, GuildID: m.guildID, ID: m.id,
		Players: m.players, Computer: m.computer, Level: m.level,
		Size: g.Size(), Win: g.WinLength(), First: g.First(), Moves: g.History(),
		End: m.end, Loser: m.loser, StoppedBy: m.stoppedBy,
		Serial: m.serial, Deadline: m.deadline, Shown: m.shown,
	}
	if m.board != nil {
		r.BoardAppID, r.BoardToken, r.BoardAt = m.board.AppID, m.board.Token, m.boardAt
	}
	return r
}

var errBadRecord = errors.New("bot: stored game is inconsistent")

// fromRecord rebuilds a match. A record the bot could not have saved (a
// size it does not draw, an unknown player or ending, moves the judge
// refuses) is errBadRecord, never a panic later.
func fromRecord(r *store.Record) (*match, error) {
	side := func(p game.Player) bool { return p == game.None || p == game.X || p == game.O }
	bad := !validID(r.ID) || r.Players[game.X] == "" || r.Players[game.O] == "" ||
		r.Size < MinSize || r.Size > MaxSize || r.Win < MinWin || r.Win > r.Size ||
		!side(r.Computer) || r.First == game.None || !side(r.First) || !side(r.Loser) ||
		r.End > store.Stopped || r.Serial < 0 ||
		(r.End == store.Resigned || r.End == store.Timeout) && r.Loser == game.None ||
		r.End == store.Stopped && r.StoppedBy == ""
	if r.Computer != game.None {
		if _, err := game.ParseLevel(r.Level.String()); err != nil {
			bad = true
		}
	}
	if bad {
		return nil, fmt.Errorf("%w: game %q", errBadRecord, r.ID)
	}
	g, err := game.Replay(r.Size, r.Moves, game.WinLength(r.Win), game.FirstPlayer(r.First))
	if err != nil {
		return nil, fmt.Errorf("%w: game %q: %w", errBadRecord, r.ID, err)
	}
	m := &match{
		id: r.ID, guildID: r.GuildID, channelID: r.ChannelID,
		players: r.Players, computer: r.Computer, level: r.Level, judge: g,
		end: r.End, loser: r.Loser, stoppedBy: r.StoppedBy,
		serial: r.Serial, deadline: r.Deadline, shown: r.Shown,
	}
	if r.End == store.Running && g.Status() != game.InProgress || r.End == store.Won && g.Status() != game.Won {
		return nil, fmt.Errorf("%w: game %q: ending %d but the board says %s", errBadRecord, r.ID, r.End, g.Status())
	}
	if r.BoardToken != "" {
		m.board, m.boardAt = &discordgo.Interaction{AppID: r.BoardAppID, Token: r.BoardToken}, r.BoardAt
	}
	return m, nil
}

// tokenLife is how long the bot uses an interaction token for edits:
// Discord accepts it for 15 minutes from the interaction; the bot counts
// from when it received the interaction, with a margin. It exceeds
// MaxTimeout, so a turn timer always finds its board's token good.
const tokenLife = 15*time.Minute - 30*time.Second
