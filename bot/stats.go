package bot

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
)

// Stats, leaderboard and history are public answers (players like to show
// them), and ping nobody.

// leaderboardSize and historySize are how many rows each shows.
const (
	leaderboardSize = 10
	historySize     = 10
)

// pickUser returns the user named by the option user of sub, or the invoker.
func pickUser(req *request) (*discordgo.User, error) {
	data := req.commandData()
	sub, err := subcommand(data)
	if err != nil {
		return nil, err
	}
	u, err := userOption(data, sub, "user")
	if err != nil || u != nil {
		return u, err
	}
	return req.user, nil
}

// records answers the commands that read what the games say, and change
// nothing: /ttt stats, leaderboard, history and about.
type records struct {
	store    StatsStore
	catalog  *i18n.Catalog
	settings *settings // whether the guild ranks games against the computer
	self     *self
	log      *slog.Logger
	program  About     // what /ttt about tells of the running program
	started  time.Time // for /ttt about
}

// showStats answers /ttt stats.
func (rd *records) showStats(ctx context.Context, req *request) error {
	u, err := pickUser(req)
	if err != nil {
		return err
	}
	st, err := rd.store.Stats(ctx, req.GuildID, u.ID, MinRated)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	v := view{content: renderStats(rd.catalog.For(req.newLocale()), st)}
	return req.respond(ctx, discordgo.InteractionResponseChannelMessageWithSource, v, false)
}

// renderStats writes st in l's language.
func renderStats(l *i18n.Language, st store.Stats) string {
	lines := []string{l.T("stats.title", map[string]any{"Player": mention(st.UserID)})}
	if st.People.Games == 0 && st.Computer.Games == 0 {
		return strings.Join(append(lines, l.T("stats.none", nil)), "\n")
	}
	p := st.People
	if p.Games == 0 {
		lines = append(lines, l.T("stats.people_none", nil))
	} else {
		lines = append(lines, l.T("stats.people", map[string]any{"Record": record(l, p), "WinRate": percent(p.Wins, p.Games)}))
		// No streak without a win: the record already says "0 wins".
		best := l.N("count.wins", st.BestStreak, nil)
		switch {
		case st.Streak > 0:
			lines = append(lines, l.T("stats.streak", map[string]any{"Streak": l.N("count.wins", st.Streak, nil), "Best": best,
				"StreakN": st.Streak, "BestN": st.BestStreak}))
		case st.BestStreak > 0:
			lines = append(lines, l.T("stats.streak_none", map[string]any{"Best": best, "BestN": st.BestStreak}))
		}
	}
	rating := map[string]any{"Rating": ratingText(st)}
	switch {
	case st.Rated == 0:
		lines = append(lines, l.T("stats.rating_unrated", rating))
	case st.Rank > 0:
		rating["Rank"] = st.Rank
		lines = append(lines, l.T("stats.rating_ranked", rating))
	default:
		rating["Rated"] = st.Rated
		lines = append(lines, l.N("stats.rating_unranked", MinRated, rating))
	}
	if c := st.Computer; c.Games > 0 {
		lines = append(lines, l.T("stats.computer", map[string]any{"Record": record(l, c)}))
	}
	return strings.Join(lines, "\n")
}

// ratingText is the rating with its 95% interval, as players read it.
func ratingText(st store.Stats) string {
	return fmt.Sprintf("%d ± %d", int(math.Round(st.Rating.R)), int(math.Round(2*st.Rating.RD)))
}

// record is r's games, wins, losses and draws, counted in l's language.
func record(l *i18n.Language, r store.Record) string {
	return l.T("stats.record", map[string]any{
		"Games":  l.N("count.games", r.Games, nil),
		"Wins":   l.N("count.wins", r.Wins, nil),
		"Losses": l.N("count.losses", r.Losses, nil),
		"Draws":  l.N("count.draws", r.Draws, nil),
	})
}

func percent(a, b int) int {
	if b == 0 {
		return 0
	}
	return int(math.Round(100 * float64(a) / float64(b)))
}

// showLeaderboard answers /ttt leaderboard.
func (rd *records) showLeaderboard(ctx context.Context, req *request) error {
	top, err := rd.store.Leaderboard(ctx, req.GuildID, MinRated, leaderboardSize)
	if err != nil {
		return fmt.Errorf("leaderboard: %w", err)
	}
	l := rd.catalog.For(req.newLocale())
	lines := []string{l.T("leaderboard.title", map[string]any{"MinRated": MinRated})}
	if len(top) == 0 {
		lines = append(lines, l.N("leaderboard.empty", MinRated, nil))
	}
	me := req.user.ID
	shown := false
	for _, st := range top {
		lines = append(lines, l.T("leaderboard.row", map[string]any{
			"Rank": st.Rank, "Player": mention(st.UserID), "Rating": ratingText(st),
			"Games": l.N("count.games", st.People.Games, nil), "WinRate": percent(st.People.Wins, st.People.Games),
		}))
		shown = shown || st.UserID == me
	}
	if !shown && len(top) > 0 {
		st, err := rd.store.Stats(ctx, req.GuildID, me, MinRated)
		if err != nil {
			return fmt.Errorf("leaderboard: own rank: %w", err)
		}
		if st.Rank > 0 {
			lines = append(lines, l.T("leaderboard.own_row", map[string]any{"Rank": st.Rank, "Player": mention(me), "Rating": ratingText(st)}))
		} else {
			lines = append(lines, l.N("leaderboard.own_unranked", MinRated, map[string]any{"Rated": st.Rated}))
		}
	}
	set, err := rd.settings.get(ctx, req.GuildID)
	if err != nil {
		return err
	}
	if set.ComputerRanked {
		more, err := computerLeaderboard(ctx, rd.store, rd.self.id(), l, req.GuildID)
		if err != nil {
			return err
		}
		lines = append(lines, more...)
	}
	v := view{content: strings.Join(lines, "\n")}
	return req.respond(ctx, discordgo.InteractionResponseChannelMessageWithSource, v, false)
}

// computerLeaderboard is the leaderboard's second section in a server
// whose settings count games against the computer: the players with the
// best record against it (most wins, then draws, then fewest losses), in
// l's language. These games stay unrated; the rated ladder above is the
// same with or without this section.
func computerLeaderboard(ctx context.Context, store StatsStore, selfID string, l *i18n.Language, guildID string) ([]string, error) {
	// One more than shown: the computer's own record is among them.
	top, err := store.ComputerLeaderboard(ctx, guildID, leaderboardSize+1)
	if err != nil {
		return nil, fmt.Errorf("leaderboard against the computer: %w", err)
	}
	lines := []string{"", l.T("leaderboard.computer_title", nil)}
	rank := 0
	for _, st := range top {
		if st.UserID == selfID || rank == leaderboardSize {
			continue
		}
		rank++
		lines = append(lines, l.T("leaderboard.computer_row", map[string]any{
			"Rank": rank, "Player": mention(st.UserID), "Record": record(l, st.Computer),
		}))
	}
	if rank == 0 {
		lines = append(lines, l.T("leaderboard.computer_empty", nil))
	}
	return lines, nil
}

// showHistory answers /ttt history.
func (rd *records) showHistory(ctx context.Context, req *request) error {
	u, err := pickUser(req)
	if err != nil {
		return err
	}
	gs, err := rd.store.History(ctx, req.GuildID, u.ID, historySize)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	l := rd.catalog.For(req.newLocale())
	lines := []string{l.T("history.title", map[string]any{"Player": mention(u.ID)})}
	if len(gs) == 0 {
		lines = append(lines, l.T("history.none", nil))
	}
	for _, g := range gs {
		lines = append(lines, historyLine(l, g, u.ID))
	}
	v := view{content: strings.Join(lines, "\n")}
	return req.respond(ctx, discordgo.InteractionResponseChannelMessageWithSource, v, false)
}

// historyLine is one finished game as userID saw it, in l's language.
func historyLine(l *i18n.Language, g *store.Game, userID string) string {
	me := game.X
	if g.Players[game.O] == userID && g.Players[game.X] != userID {
		me = game.O
	}
	opp := mention(g.Players[me.Other()])
	if g.Computer == me.Other() {
		opp = l.T("history.computer", map[string]any{"Level": l.T("level."+g.Level.String(), nil)})
	}
	var result string
	switch w := g.Winner(); {
	case g.End == game.EndStopped:
		result = "stopped"
	case g.End.Drawn():
		result = "draw"
	case w == me:
		result = "won"
	default:
		result = "lost"
	}
	switch g.End {
	case game.EndResigned:
		result += "_resignation"
	case game.EndTimeout:
		result += "_timeout"
	}
	when := g.EndedAt
	if when.IsZero() {
		when = g.StartedAt
	}
	data := map[string]any{
		"When": when.Unix(), "Mark": mark(me), "Opponent": opp, "Size": g.Size, "Win": g.Win,
		"Result": l.T("history.result."+result, nil),
	}
	if len(g.Moves) == 0 {
		return l.T("history.row_unplayed", data) // not "in 0 moves"
	}
	return l.N("history.row", len(g.Moves), data)
}
