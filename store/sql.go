package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tttbot/tttbot/game"
)

// The SQL both databases share. Queries are written with ? placeholders;
// the PostgreSQL store rewrites them to $1, $2, … . Times are stored as
// microseconds since the Unix epoch (BIGINT, NULL for the zero time), so
// that both databases keep exactly the same values.

// tx is one transaction, as the SQLite (database/sql) and PostgreSQL (pgx)
// stores provide it.
type tx interface {
	exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	query(ctx context.Context, query string, args ...any) (rows, error)
	// queryRow returns errNoRows from Scan when there is no row.
	queryRow(ctx context.Context, query string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface{ Scan(dest ...any) error }

// errNoRows is what row.Scan returns when the query found nothing.
var errNoRows = errors.New("store: no rows")

// sqlStore is the logic of the SQL stores over a transaction runner.
type sqlStore struct {
	// read runs fn in a read-only transaction that sees one snapshot.
	read func(ctx context.Context, fn func(tx) error) error
	// direct runs fn outside a transaction: each statement sees the
	// database as it is when the statement runs.
	direct func(ctx context.Context, fn func(tx) error) error
	// write runs fn in a transaction that holds the write lock (SQLite) or
	// takes row locks as it goes (PostgreSQL), and commits when fn returns
	// nil.
	write func(ctx context.Context, fn func(tx) error) error
	// writeOne, when set (PostgreSQL: pgOne), runs fn, which makes one
	// write statement, outside an explicit transaction: one round trip
	// instead of BEGIN, the statement and COMMIT. nil: write.
	writeOne func(ctx context.Context, fn func(tx) error) error
	// later, when set (SQLite: groupCommit.enqueue), runs fn as write
	// does but without its caller waiting, and tells then how it went;
	// the write joins the next batch of others. Close waits for it.
	later func(fn func(tx) error, then func(error))
	// cache saves reading a game's moves again.
	cache movesCache
	// forUpdate is appended to a SELECT whose rows the transaction will
	// change: " FOR UPDATE" on PostgreSQL; SQLite's write transactions
	// already exclude every other writer.
	forUpdate string
	// lockChannel, when set (PostgreSQL: channelLock), takes a
	// transaction lock on a channel before its new game is inserted: a
	// page that starts watching the channel meanwhile (markWatched) waits
	// for the save, whose trigger may have run before the mark.
	lockChannel string
	// nullsLast follows DESC in an ORDER BY where NULLs must come last:
	// PostgreSQL puts them first unless told; SQLite puts them last.
	nullsLast string
	// arrays: a parameter may be an array ([]string), as in
	// "id = ANY(?)": PostgreSQL.
	arrays bool
	// settled, when set, waits until the write that failed with err
	// (wrapping ErrOutcomeUnknown) can no longer commit, so that a read
	// tells whether it did; nil when it is so.
	settled func(ctx context.Context, err error) error
	// xactID is the SQL of the id of the current transaction, for
	// txid_status after an unanswered COMMIT: PostgreSQL's
	// txid_current()::text; empty where commits are always answered.
	xactID string
	// observe, when set, hears of each call the bot makes (Observe).
	observe Observer
	// sweepClock, when set, is the clock that bounds how long one Due
	// forgets tokens (forgetWithin); nil: time.Now. Tests set it.
	sweepClock func() time.Time
	// feed tells this process's watchers of saved changes (feed.go);
	// localFeed says that Save tells them itself, after its commit (one
	// process: SQLite), rather than the database (PostgreSQL's NOTIFY).
	feed      feed
	localFeed bool
	// webKey is WebKey's, once read.
	webKey webKeyCache
}

const gameColumns = `id, guild_id, channel_id, player_x, player_o, computer, level, size, win, first,
	ending, loser, stopped_by, started_at, ended_at, deadline, serial, board_app, board_token, board_at, locale, draw_offer,
	board_channel, board_message, board_ping, reminded, remind_at, board_live, version`

// updateColumns are gameColumns but the id, which never changes.
var updateColumns = strings.TrimPrefix(gameColumns, "id, ")

// scanGame reads one row of gameColumns.
func scanGame(r row) (*Game, error) {
	var (
		g                                     Game
		computer, level, first, ending, loser int
		drawOffer                             int
		startedAt, endedAt, deadline, boardAt *int64
		remindAt                              *int64
		live                                  int
	)
	err := r.Scan(&g.ID, &g.GuildID, &g.ChannelID, &g.Players[game.X], &g.Players[game.O],
		&computer, &level, &g.Size, &g.Win, &first, &ending, &loser, &g.StoppedBy,
		&startedAt, &endedAt, &deadline, &g.Serial, &g.Board.AppID, &g.Board.Token, &boardAt, &g.Locale, &drawOffer,
		&g.Board.ChannelID, &g.Board.MessageID, &g.Ping, &g.Reminded, &remindAt, &live, &g.Version)
	if err != nil {
		return nil, err
	}
	g.Board.Outside, g.Board.Stale, g.Board.Reached = live&liveOutside != 0, live&liveStale != 0, live&liveReached != 0
	g.Computer, g.Level, g.First = game.Player(computer), game.Level(level), game.Player(first)
	g.End, g.Loser, g.DrawOffer = game.Ending(ending), game.Player(loser), game.Player(drawOffer)
	g.StartedAt, g.EndedAt, g.Deadline, g.Board.At = fromMicros(startedAt), fromMicros(endedAt), fromMicros(deadline), fromMicros(boardAt)
	g.RemindAt = fromMicros(remindAt)
	return &g, nil
}

// gameArgs are the values of gameColumns but the version.
func gameArgs(g *Game) []any {
	return []any{g.ID, g.GuildID, g.ChannelID, g.Players[game.X], g.Players[game.O],
		int(g.Computer), int(g.Level), g.Size, g.Win, int(g.First), int(g.End), int(g.Loser), g.StoppedBy,
		micros(g.StartedAt), micros(g.EndedAt), micros(g.Deadline), g.Serial, g.Board.AppID, g.Board.Token, micros(g.Board.At), g.Locale, int(g.DrawOffer),
		g.Board.ChannelID, g.Board.MessageID, g.Ping, g.Reminded, micros(g.RemindAt), boardLive(g.Board)}
}

// The bits of the board_live column: Board.Outside, Board.Stale and
// Board.Reached.
const (
	liveOutside = 1
	liveStale   = 2
	liveReached = 4
)

// boardLive is the board_live column of b.
func boardLive(b Board) int {
	n := 0
	if b.Outside {
		n |= liveOutside
	}
	if b.Stale {
		n |= liveStale
	}
	if b.Reached {
		n |= liveReached
	}
	return n
}

// loadMoves reads a game's moves in order.
func loadMoves(ctx context.Context, t tx, id string) ([]Move, error) {
	rs, err := t.query(ctx, `SELECT row, col, player, at FROM moves WHERE game_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var moves []Move
	for rs.Next() {
		m, err := scanMove(rs)
		if err != nil {
			return nil, err
		}
		moves = append(moves, m)
	}
	return moves, rs.Err()
}

func scanMove(r row, extra ...any) (Move, error) {
	var (
		m      Move
		player int
		at     *int64
	)
	if err := r.Scan(append([]any{&m.Row, &m.Col, &player, &at}, extra...)...); err != nil {
		return Move{}, err
	}
	m.Player, m.At = game.Player(player), fromMicros(at)
	return m, nil
}

// insertMoves stores moves as seq from, from+1, … .
func insertMoves(ctx context.Context, t tx, id string, from int, moves []Move) error {
	const chunk = 500 // 3,000 parameters: far below both databases' limits
	for len(moves) > 0 {
		n := min(len(moves), chunk)
		var b strings.Builder
		b.WriteString(`INSERT INTO moves (game_id, seq, row, col, player, at) VALUES `)
		args := make([]any, 0, 6*n)
		for i, m := range moves[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?)")
			args = append(args, id, from+i, m.Row, m.Col, int(m.Player), micros(m.At))
		}
		if _, err := t.exec(ctx, b.String(), args...); err != nil {
			return err
		}
		moves, from = moves[n:], from+n
	}
	return nil
}

// readGame reads a game and its moves, or nil if there is none.
func (s *sqlStore) readGame(ctx context.Context, t tx, query string, args ...any) (*Game, error) {
	g, err := scanGame(t.queryRow(ctx, query, args...))
	if errors.Is(err, errNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if g.Moves, err = s.moves(ctx, t, g.ID, g.Version); err != nil {
		return nil, err
	}
	g.Moves = slices.Clone(g.Moves)
	return g, nil
}

// moves returns the moves of a game at a version, from the cache or the
// database; the caller must not change them.
func (s *sqlStore) moves(ctx context.Context, t tx, id string, version int64) ([]Move, error) {
	if m, ok := s.cache.get(id, version); ok {
		return m, nil
	}
	m, err := loadMoves(ctx, t, id)
	if err != nil {
		return nil, err
	}
	s.cache.put(id, version, m, nil)
	return m, nil
}

// movesCache keeps the moves of recently used games. A game's id and
// version name one state of it forever (ids are never reused and every
// save moves the version on), so an entry for the version the database
// holds is exact, whichever process saved it; an entry for another version
// is simply not used. Reading a game then costs one row, not one row per
// move. The zero movesCache is empty and ready; it is safe for concurrent
// use.
type movesCache struct {
	mu sync.Mutex
	m  map[string]cachedMoves
}

type cachedMoves struct {
	version int64
	moves   []Move // never changed once cached
	// row, when this process saved the version, is the whole game as
	// stored, moves included; never changed once cached. A save over it
	// needs no read (see update).
	row *Game
}

// The cache's bounds: about 12 MB at worst, a few hundred kB for 3×3
// games.
const (
	cacheGames = 1024
	cacheMoves = 256 // longer games are read from the database each time
)

func (c *movesCache) get(id string, version int64) ([]Move, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || e.version != version {
		return nil, false
	}
	return e.moves, true
}

// stored returns the game as stored at version, if this process saved that
// version and still has it; the caller must not change it.
func (c *movesCache) stored(id string, version int64) (*Game, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || e.version != version || e.row == nil {
		return nil, false
	}
	return e.row, true
}

// put caches the moves of a game at a version, and row, the whole game at
// that version, if not nil; neither may change afterwards.
func (c *movesCache) put(id string, version int64, moves []Move, row *Game) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(moves) > cacheMoves {
		delete(c.m, id)
		return
	}
	if c.m == nil {
		c.m = make(map[string]cachedMoves)
	}
	if e, ok := c.m[id]; ok && e.version > version {
		return // a newer state is known
	}
	if _, ok := c.m[id]; !ok && len(c.m) >= cacheGames {
		for k := range c.m { // evict one, about at random
			delete(c.m, k)
			break
		}
	}
	c.m[id] = cachedMoves{version, moves, row}
}

// currentQuery finds a channel's current game. Built once: Current runs on
// every interaction.
var currentQuery = `SELECT ` + prefixed("g.", gameColumns) + ` FROM channels c JOIN games g ON g.id = c.game_id WHERE c.channel_id = ?`

// Current returns the channel's current game (running or ended), or nil
// if the channel never had one.
func (s *sqlStore) Current(ctx context.Context, channelID string) (_ *Game, err error) {
	defer s.observe.done("current", time.Now(), &err)
	g, err := s.getGame(ctx, currentQuery, channelID)
	if err != nil {
		return nil, fmt.Errorf("store: current game of channel %s: %w", channelID, err)
	}
	return g, nil
}

// Game returns the game with that id, or nil if there is none.
func (s *sqlStore) Game(ctx context.Context, id string) (*Game, error) {
	g, err := s.getGame(ctx, `SELECT `+gameColumns+` FROM games WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("store: game %s: %w", id, err)
	}
	return g, nil
}

// getGame reads the game that query finds, or nil. Usually its moves are
// in the cache and one statement, outside any transaction, reads it;
// otherwise it reads the row and the moves again in one transaction, so
// that they agree.
func (s *sqlStore) getGame(ctx context.Context, query string, args ...any) (g *Game, err error) {
	hit := false
	err = s.direct(ctx, func(t tx) error {
		g, err = scanGame(t.queryRow(ctx, query, args...))
		if errors.Is(err, errNoRows) {
			g, err = nil, nil
		}
		if err != nil || g == nil {
			return err
		}
		var m []Move
		if m, hit = s.cache.get(g.ID, g.Version); hit {
			g.Moves = slices.Clone(m)
		}
		return nil
	})
	if err != nil || g == nil || hit {
		return g, err
	}
	err = s.read(ctx, func(t tx) error {
		g, err = s.readGame(ctx, t, query, args...)
		return err
	})
	return g, err
}

// one runs fn, which makes one write statement, by writeOne where the
// store has it, else in a transaction of write.
func (s *sqlStore) one(ctx context.Context, fn func(tx) error) error {
	if s.writeOne != nil {
		return s.writeOne(ctx, fn)
	}
	return s.write(ctx, fn)
}

// prefixed qualifies each column of a column list.
func prefixed(p, columns string) string {
	fields := strings.Split(columns, ",")
	for i, f := range fields {
		fields[i] = p + strings.TrimSpace(f)
	}
	return strings.Join(fields, ", ")
}

// Save stores g in one transaction and, on success, sets g.Version to the
// new version; it changes nothing else in g. Times are stored in UTC,
// truncated to the microsecond.
//
// With g.Version 0, g is a new game and becomes its channel's current
// game; it fails with ErrConflict if a game with its id exists or the
// channel's current game is still running. Otherwise g replaces the stored
// game, moves included, if that is still at g.Version, and fails with
// ErrConflict if not, or if the stored game has ended and g changes its
// ending, loser or moves. The save that ends a game (any ending but
// EndStopped) also counts it in its players' stats and ratings, once.
// After ErrConflict nothing has changed.
func (s *sqlStore) Save(ctx context.Context, g *Game) (err error) {
	defer s.observe.done("save", time.Now(), &err)
	if err := check(g); err != nil {
		return err
	}
	n := normalize(g)
	err = s.write(ctx, func(t tx) error {
		if n.Version == 0 {
			return s.insert(ctx, t, n)
		}
		return s.update(ctx, t, n)
	})
	if errors.Is(err, ErrOutcomeUnknown) {
		err = s.outcome(ctx, n, err)
	}
	if errors.Is(err, ErrConflict) {
		return err
	}
	if err != nil {
		return fmt.Errorf("store: save game %s: %w", g.ID, err)
	}
	// Committed: n, a copy of its own, is now the stored state. Only a
	// running game will be saved again soon: the cache keeps the row of no
	// other, so that games that ended take no more memory than their moves.
	n.Version++
	row := n
	if !n.Running() {
		row = nil
	}
	s.cache.put(n.ID, n.Version, n.Moves, row)
	g.Version = n.Version
	if s.localFeed {
		s.feed.savedLocally(n)
	}
	return nil
}

// outcome finds out whether the save of n, whose commit went unanswered
// (err), was committed (resolve): once the transaction is over, it reads
// the game back. It returns nil if the game is stored as n at the next
// version, err without ErrOutcomeUnknown if it is still at n's version
// (nothing changed), and err if it cannot tell (another save changed it
// since, say).
func (s *sqlStore) outcome(ctx context.Context, n *Game, err error) error {
	return s.resolve(ctx, err, func(ctx context.Context) (bool, error) {
		var got *Game
		if rerr := s.read(ctx, func(t tx) (rerr error) {
			got, rerr = s.readGame(ctx, t, `SELECT `+gameColumns+` FROM games WHERE id = ?`, n.ID)
			return rerr
		}); rerr != nil {
			return false, rerr
		}
		want := n.Clone()
		want.Version++
		switch {
		case got != nil && reflect.DeepEqual(got, want):
			return true, nil // committed
		case (got == nil && n.Version == 0) || (got != nil && got.Version == n.Version):
			return false, nil // nothing changed
		}
		return false, errors.New("another save changed the game since")
	})
}

// settleTimeout bounds how long a save whose commit went unanswered
// waits to learn its outcome.
const settleTimeout = 2 * time.Second

func (s *sqlStore) insert(ctx context.Context, t tx, g *Game) error {
	if s.lockChannel != "" {
		if _, err := t.exec(ctx, s.lockChannel, g.ChannelID); err != nil {
			return err
		}
	}
	affected, err := t.exec(ctx, `INSERT INTO games (`+gameColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
		ON CONFLICT (id) DO NOTHING`, gameArgs(g)...)
	if err != nil {
		return err
	}
	if affected == 0 {
		return fmt.Errorf("store: save new game %s: a game with that id exists: %w", g.ID, ErrConflict)
	}
	if err := insertMoves(ctx, t, g.ID, 0, g.Moves); err != nil {
		return err
	}
	affected, err = t.exec(ctx, `INSERT INTO channels (channel_id, game_id) VALUES (?, ?) ON CONFLICT (channel_id) DO NOTHING`, g.ChannelID, g.ID)
	if err != nil {
		return err
	}
	if affected == 0 {
		// The channel had a game: it must have ended.
		var current string
		if err := t.queryRow(ctx, `SELECT game_id FROM channels WHERE channel_id = ?`+s.forUpdate, g.ChannelID).Scan(&current); err != nil {
			return err
		}
		var ending int
		if err := t.queryRow(ctx, `SELECT ending FROM games WHERE id = ?`, current).Scan(&ending); err != nil {
			return err
		}
		if game.Ending(ending) == game.EndNone {
			return fmt.Errorf("store: save new game %s: channel %s has game %s running: %w", g.ID, g.ChannelID, current, ErrConflict)
		}
		if _, err := t.exec(ctx, `UPDATE channels SET game_id = ? WHERE channel_id = ?`, g.ID, g.ChannelID); err != nil {
			return err
		}
	}
	if _, err := t.exec(ctx, `UPDATE game_count SET n = n + 1 WHERE shard = ?`, countShard(g.ID)); err != nil {
		return err
	}
	if counts(true, g) {
		return s.settle(ctx, t, g)
	}
	return nil
}

// countShards is the number of rows of game_count (migration 0006).
const countShards = 8

// countShard is the row of game_count that counts the game with that id.
func countShard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % countShards)
}

func (s *sqlStore) update(ctx context.Context, t tx, g *Game) error {
	// A game saved from this process is saved again without a read: if
	// another process saved it since, the versioned UPDATE finds no row.
	// That version's row, as cached, is then exactly what a read would
	// have found.
	if stored, ok := s.cache.stored(g.ID, g.Version); ok {
		return s.apply(ctx, t, stored, g)
	}
	stored, err := scanGame(t.queryRow(ctx, `SELECT `+gameColumns+` FROM games WHERE id = ?`+s.forUpdate, g.ID))
	if errors.Is(err, errNoRows) {
		return fmt.Errorf("store: save game %s: no such game: %w", g.ID, ErrConflict)
	}
	if err != nil {
		return err
	}
	if stored.Version != g.Version {
		return fmt.Errorf("store: save game %s: read at version %d, stored version is %d: %w", g.ID, g.Version, stored.Version, ErrConflict)
	}
	if stored.Moves, err = s.moves(ctx, t, g.ID, stored.Version); err != nil {
		return err
	}
	return s.apply(ctx, t, stored, g)
}

// apply writes g over stored, the game as stored at g.Version.
func (s *sqlStore) apply(ctx context.Context, t tx, stored, g *Game) error {
	if err := checkFinal(stored, g); err != nil {
		return err
	}
	if err := s.updateRow(ctx, t, stored, g); err != nil {
		return err
	}
	// Keep the stored moves that did not change; usually that is all of
	// them and one move is appended.
	same := 0
	for same < len(stored.Moves) && same < len(g.Moves) && stored.Moves[same] == g.Moves[same] {
		same++
	}
	if same < len(stored.Moves) {
		if _, err := t.exec(ctx, `DELETE FROM moves WHERE game_id = ? AND seq >= ?`, g.ID, same); err != nil {
			return err
		}
	}
	if err := insertMoves(ctx, t, g.ID, same, g.Moves[same:]); err != nil {
		return err
	}
	if counts(stored.Running(), g) {
		return s.settle(ctx, t, g)
	}
	return nil
}

// updateRow replaces the stored row of g. A move usually changes only the
// deadline and the board message (and its ping): then only those columns are written,
// and no index of the table has to change.
func (s *sqlStore) updateRow(ctx context.Context, t tx, stored, g *Game) error {
	var affected int64
	var err error
	if onlyBoardChanged(stored, g) {
		affected, err = t.exec(ctx, `UPDATE games SET deadline = ?, serial = ?, board_app = ?, board_token = ?, board_at = ?,
			board_channel = ?, board_message = ?, board_ping = ?, reminded = ?, remind_at = ?, board_live = ?, version = version + 1
			WHERE id = ? AND version = ?`,
			micros(g.Deadline), g.Serial, g.Board.AppID, g.Board.Token, micros(g.Board.At), g.Board.ChannelID, g.Board.MessageID, g.Ping, g.Reminded, micros(g.RemindAt), boardLive(g.Board),
			g.ID, g.Version)
	} else {
		// Every column but the id: setting the primary key, even to
		// itself, makes SQLite check the foreign keys that point at it
		// (channels, moves), under the one write lock.
		affected, err = t.exec(ctx, `UPDATE games SET (`+updateColumns+`) =
			(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, version + 1)
			WHERE id = ? AND version = ?`, append(gameArgs(g)[1:], g.ID, g.Version)...)
	}
	if err != nil {
		return err
	}
	if affected == 0 {
		return fmt.Errorf("store: save game %s: version %d is no longer stored: %w", g.ID, g.Version, ErrConflict)
	}
	return nil
}

// onlyBoardChanged reports whether g differs from the stored row at most
// in its deadline, serial, board message, ping and reminder.
func onlyBoardChanged(stored, g *Game) bool {
	return identityOf(stored) == identityOf(g)
}

// identity is what of a game's row a move does not change.
type identity struct {
	id, guild, channel string
	players            [3]string
	computer, first    game.Player
	level              game.Level
	size, win          int
	end                game.Ending
	loser, drawOffer   game.Player
	stoppedBy, locale  string
	startedAt, endedAt int64 // microseconds; the zero time has its own
}

func identityOf(g *Game) identity {
	return identity{
		id: g.ID, guild: g.GuildID, channel: g.ChannelID, players: g.Players,
		computer: g.Computer, first: g.First, level: g.Level, size: g.Size, win: g.Win,
		end: g.End, loser: g.Loser, drawOffer: g.DrawOffer, stoppedBy: g.StoppedBy, locale: g.Locale,
		startedAt: g.StartedAt.UnixMicro(), endedAt: g.EndedAt.UnixMicro(),
	}
}

const statsColumns = `guild_id, user_id, people_games, people_wins, people_losses, people_draws,
	streak, best_streak, rating, rd, vol, rated, computer_games, computer_wins, computer_losses, computer_draws`

func scanStats(r row, extra ...any) (Stats, error) {
	var s Stats
	err := r.Scan(append([]any{&s.GuildID, &s.UserID, &s.People.Games, &s.People.Wins, &s.People.Losses, &s.People.Draws,
		&s.Streak, &s.BestStreak, &s.Rating.R, &s.Rating.RD, &s.Rating.Vol, &s.Rated,
		&s.Computer.Games, &s.Computer.Wins, &s.Computer.Losses, &s.Computer.Draws}, extra...)...)
	return s, err
}

func statsArgs(s *Stats) []any {
	return []any{s.GuildID, s.UserID, s.People.Games, s.People.Wins, s.People.Losses, s.People.Draws,
		s.Streak, s.BestStreak, s.Rating.R, s.Rating.RD, s.Rating.Vol, s.Rated,
		s.Computer.Games, s.Computer.Wins, s.Computer.Losses, s.Computer.Draws}
}

// settle counts g, which this transaction ends, in its players' stats.
// Each player's row is created if new, then locked, in user id order.
func (s *sqlStore) settle(ctx context.Context, t tx, g *Game) error {
	before := make(map[string]*Stats)
	for _, u := range statsUsers(g) {
		fresh := newStats(g.GuildID, u)
		if _, err := t.exec(ctx, `INSERT INTO players (`+statsColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (guild_id, user_id) DO NOTHING`, statsArgs(&fresh)...); err != nil {
			return err
		}
		st, err := scanStats(t.queryRow(ctx, `SELECT `+statsColumns+` FROM players WHERE guild_id = ? AND user_id = ?`+s.forUpdate, g.GuildID, u))
		if err != nil {
			return err
		}
		before[u] = &st
	}
	settle(g, before)
	for _, st := range before {
		args := statsArgs(st)
		if _, err := t.exec(ctx, `UPDATE players SET (`+statsColumns+`) =
			(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			WHERE guild_id = ? AND user_id = ?`, append(args, st.GuildID, st.UserID)...); err != nil {
			return err
		}
	}
	return nil
}

// Running returns every game that has not ended, sorted by channel id,
// then game id.
func (s *sqlStore) Running(ctx context.Context) (out []*Game, err error) {
	defer s.observe.done("running", time.Now(), &err)
	err = s.read(ctx, func(t tx) error {
		out = nil
		rs, err := t.query(ctx, `SELECT `+gameColumns+` FROM games WHERE ending = 0 ORDER BY channel_id, id`)
		if err != nil {
			return err
		}
		byID := make(map[string]*Game)
		for rs.Next() {
			g, err := scanGame(rs)
			if err != nil {
				rs.Close()
				return err
			}
			out = append(out, g)
			byID[g.ID] = g
		}
		rs.Close()
		if err := rs.Err(); err != nil || len(out) == 0 {
			return err
		}
		// The moves of those games, by their ids: PostgreSQL takes them as
		// an array (a subquery there is planned as a hash join that reads
		// every move ever played); SQLite looks each one up through the
		// index of running games.
		q, args := `SELECT row, col, player, at, game_id FROM moves
			WHERE game_id IN (SELECT id FROM games WHERE ending = 0) ORDER BY game_id, seq`, []any(nil)
		if s.arrays {
			ids := make([]string, len(out))
			for i, g := range out {
				ids[i] = g.ID
			}
			q, args = `SELECT row, col, player, at, game_id FROM moves WHERE game_id = ANY(?) ORDER BY game_id, seq`, []any{ids}
		}
		rs, err = t.query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id string
			m, err := scanMove(rs, &id)
			if err != nil {
				return err
			}
			if g := byID[id]; g != nil {
				g.Moves = append(g.Moves, m)
			}
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: running games: %w", err)
	}
	return out, nil
}

// Stats returns what the store knows of a player in a guild, with Rank
// set when the player has at least minRated rated games. A player with no
// games gets newcomer's stats (rating.Default), not an error.
func (s *sqlStore) Stats(ctx context.Context, guildID, userID string, minRated int) (st Stats, err error) {
	defer s.observe.done("stats", time.Now(), &err)
	err = s.read(ctx, func(t tx) error {
		st, err = scanStats(t.queryRow(ctx, `SELECT `+statsColumns+` FROM players WHERE guild_id = ? AND user_id = ?`, guildID, userID))
		if errors.Is(err, errNoRows) {
			st, err = newStats(guildID, userID), nil
			return nil
		}
		if err != nil || st.Rated < minRated {
			return err
		}
		// Rank: one more than the ranked players ordered before this one
		// by compareRank. "rating >= ?" bounds the range of players_rank
		// read to the players rated at least as high: the count costs the
		// rank, not the guild's size (SQLite reads the whole guild for the
		// OR alone).
		err = t.queryRow(ctx, `SELECT 1 + count(*) FROM players WHERE guild_id = ? AND rating >= ? AND rated >= ?
			AND (rating > ? OR (rating = ? AND (rated > ? OR (rated = ? AND user_id < ?))))`,
			guildID, st.Rating.R, minRated, st.Rating.R, st.Rating.R, st.Rated, st.Rated, userID).Scan(&st.Rank)
		return err
	})
	if err != nil {
		return Stats{}, fmt.Errorf("store: stats of user %s in guild %q: %w", userID, guildID, err)
	}
	return st, nil
}

// Leaderboard returns the players of the guild with at least minRated
// rated games, best first (rating, then rated games, then user id), Rank
// set; at most limit of them (limit <= 0: all).
func (s *sqlStore) Leaderboard(ctx context.Context, guildID string, minRated, limit int) (out []Stats, err error) {
	defer s.observe.done("leaderboard", time.Now(), &err)
	out, err = s.ranked(ctx, `SELECT `+statsColumns+` FROM players WHERE guild_id = ? AND rated >= ? ORDER BY rating DESC, rated DESC, user_id`,
		limit, guildID, minRated)
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard of guild %q: %w", guildID, err)
	}
	return out, nil
}

// ranked reads the players a query of statsColumns orders, at most limit
// of them (limit <= 0: all), with Rank set to their place in that order.
func (s *sqlStore) ranked(ctx context.Context, q string, limit int, args ...any) (out []Stats, err error) {
	err = s.read(ctx, func(t tx) error {
		out = nil
		if limit > 0 {
			q += ` LIMIT ?`
			args = append(args, limit)
		}
		rs, err := t.query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			st, err := scanStats(rs)
			if err != nil {
				return err
			}
			st.Rank = len(out) + 1
			out = append(out, st)
		}
		return rs.Err()
	})
	return out, err
}

// History returns the player's ended games in the guild, the most recently
// ended first (ties: larger id first), at most limit of them (limit <= 0:
// all).
func (s *sqlStore) History(ctx context.Context, guildID, userID string, limit int) (out []*Game, err error) {
	defer s.observe.done("history", time.Now(), &err)
	err = s.read(ctx, func(t tx) error {
		out = nil
		// One indexed, ordered scan per side the player may have played,
		// each stopping at limit, then merged.
		order := ` ORDER BY ended_at DESC` + s.nullsLast + `, id DESC`
		lim := ""
		if limit > 0 {
			lim = ` LIMIT ` + strconv.Itoa(limit)
		}
		side := func(column string) string {
			return `SELECT * FROM (SELECT ` + gameColumns + ` FROM games WHERE guild_id = ? AND ` + column + ` = ? AND ending <> 0` + order + lim + `) AS ` + column
		}
		q := `SELECT ` + gameColumns + ` FROM (` + side("player_x") + ` UNION ` + side("player_o") + `) AS h` + order + lim
		rs, err := t.query(ctx, q, guildID, userID, guildID, userID)
		if err != nil {
			return err
		}
		for rs.Next() {
			g, err := scanGame(rs)
			if err != nil {
				rs.Close()
				return err
			}
			out = append(out, g)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		for _, g := range out {
			if g.Moves, err = s.moves(ctx, t, g.ID, g.Version); err != nil {
				return err
			}
			g.Moves = slices.Clone(g.Moves)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: history of user %s in guild %q: %w", userID, guildID, err)
	}
	return out, nil
}

// CountRunning returns how many games have not ended, for the metrics
// endpoint. It reads an index, not the games.
func (s *sqlStore) CountRunning(ctx context.Context) (n int, err error) {
	err = s.direct(ctx, func(t tx) error {
		return t.queryRow(ctx, `SELECT COUNT(*) FROM games WHERE ending = 0`).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("store: count running games: %w", err)
	}
	return n, nil
}

// CountGames returns how many games were ever started, ended or not. It
// reads the count kept as games are saved (countShards rows), not the
// games.
func (s *sqlStore) CountGames(ctx context.Context) (n int, err error) {
	defer s.observe.done("count_games", time.Now(), &err)
	err = s.direct(ctx, func(t tx) error {
		return t.queryRow(ctx, `SELECT coalesce(sum(n), 0) FROM game_count`).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("store: count games: %w", err)
	}
	return n, nil
}

// Ping checks that the database can be written: it commits a write of one
// row (readiness), as a save would. A full disk, a read-only database or
// a deleted SQLite file fail it.
func (s *sqlStore) Ping(ctx context.Context) error {
	err := s.write(ctx, func(t tx) error {
		_, err := t.exec(ctx, `UPDATE readiness SET at = ? WHERE id = 1`, time.Now().UnixMicro())
		return err
	})
	if err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Due returns the channels whose running game has a deadline at or before
// before, for the sweep that ends games whose time ran out. It reads the
// running games' rows, not their moves.
//
// As the bot sweeps with it, Due also forgets the interaction tokens of
// boards drawn more than TokenLife before before: they are secrets, and
// useless once Discord refuses them. It forgets them all, however many
// are due (a backlog, or more games ending than one batch a sweep),
// forgetBatch at a time, each batch in a write of its own: the SQLite
// writer is held for one batch, and the writes that queued meanwhile (a
// move's save) go before the next batch, which queues behind them. A
// backlog bigger than forgetWithin allows is forgotten over a few
// sweeps. Only the token is cleared, not the game's version: no save
// conflicts with it. A failure to forget is not Due's: the next sweep
// tries again, and a database that cannot be written fails saves and
// Ping anyway.
func (s *sqlStore) Due(ctx context.Context, before time.Time) (_ []string, err error) {
	defer s.observe.done("due", time.Now(), &err)
	channels, err := s.column(ctx, `SELECT channel_id FROM games WHERE ending = 0 AND deadline IS NOT NULL AND deadline <= ? ORDER BY channel_id`, before.UnixMicro())
	if err != nil {
		return nil, fmt.Errorf("store: games due: %w", err)
	}
	s.forgetTokens(ctx, before.Add(-TokenLife))
	return channels, nil
}

// forgetTokens clears the tokens of the boards drawn before drawn, in
// writes of up to forgetBatch games, until none is left, a write fails,
// ctx ends or forgetWithin has passed by s.sweepClock (the rest waits for
// the next sweep, whose other work needs its time too). Each call clears
// one batch at least.
func (s *sqlStore) forgetTokens(ctx context.Context, drawn time.Time) {
	now := s.sweepClock
	if now == nil {
		now = time.Now
	}
	for stop, first := now().Add(forgetWithin), true; ctx.Err() == nil && (first || now().Before(stop)); first = false {
		var n int64
		err := s.write(ctx, func(t tx) (err error) {
			n, err = t.exec(ctx, `UPDATE games SET board_token = '' WHERE id IN
				(SELECT id FROM games WHERE board_token <> '' AND board_at < ? LIMIT `+strconv.Itoa(forgetBatch)+`)`,
				drawn.UnixMicro())
			return err
		})
		if err != nil || n < forgetBatch {
			return
		}
	}
}

// DueReminders returns the channels whose running game has a turn's
// reminder due at or before before (Game.RemindAt), for the sweep that
// reminds the players of games no process is timing. It reads the index
// of the reminders to come, as few as the turns past their middle.
func (s *sqlStore) DueReminders(ctx context.Context, before time.Time) (_ []string, err error) {
	defer s.observe.done("due_reminders", time.Now(), &err)
	channels, err := s.column(ctx, `SELECT channel_id FROM games WHERE remind_at IS NOT NULL AND remind_at <= ? AND ending = 0 ORDER BY channel_id`, before.UnixMicro())
	if err != nil {
		return nil, fmt.Errorf("store: reminders due: %w", err)
	}
	return channels, nil
}

// TokenLife is how long Discord accepts an interaction token: a game's
// board token is forgotten once it is over (see Due).
const TokenLife = 15 * time.Minute

// forgetBatch bounds the tokens one write of Due forgets: the write holds
// the SQLite writer (about 3 ms for 500 on a shared 2-core server).
// forgetWithin bounds the time one Due spends forgetting: 200,000 tokens
// take about 1.3 s on SQLite and 3.7 s on PostgreSQL there.
const (
	forgetBatch  = 500
	forgetWithin = 5 * time.Second
)

// column returns the one text column of the rows that query finds, read
// outside a transaction.
func (s *sqlStore) column(ctx context.Context, query string, args ...any) (out []string, err error) {
	err = s.direct(ctx, func(t tx) error {
		out = nil
		rs, err := t.query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var v string
			if err := rs.Scan(&v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return rs.Err()
	})
	return out, err
}
