package bot

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// Stats, leaderboard and history are public answers (players like to show
// them), and ping nobody.

// leaderboardSize and historySize are how many rows each shows.
const (
	leaderboardSize = 10
	historySize     = 10
)

// whom returns the user named by the option user of sub, or the invoker.
func whom(req *request) (*discordgo.User, error) {
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

func (b *Bot) stats(ctx context.Context, req *request) error {
	u, err := whom(req)
	if err != nil {
		return err
	}
	st, err := b.store.Stats(ctx, req.GuildID, u.ID, MinRated)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, view{content: renderStats(st)}, false)
}

func renderStats(st store.Stats) string {
	var s strings.Builder
	fmt.Fprintf(&s, "📊 **Stats of %s in this server**\n", mention(st.UserID))
	if st.People.Games == 0 && st.Computer.Games == 0 {
		s.WriteString("No games yet. `/ttt start` begins one.")
		return s.String()
	}
	p := st.People
	if p.Games == 0 {
		s.WriteString("Against people: no games yet.\n")
	} else {
		fmt.Fprintf(&s, "Against people: %s · win rate %d%%\n", record(p), percent(p.Wins, p.Games))
		fmt.Fprintf(&s, "Streak: %s (best %s)\n", plural(st.Streak, "win"), plural(st.BestStreak, "win"))
	}
	switch {
	case st.Rated == 0:
		fmt.Fprintf(&s, "Rating: %s (no rated games yet)\n", ratingText(st))
	case st.Rank > 0:
		fmt.Fprintf(&s, "Rating: %s · rank #%d\n", ratingText(st), st.Rank)
	default:
		fmt.Fprintf(&s, "Rating: %s · on the leaderboard after %d rated games (%d so far)\n", ratingText(st), MinRated, st.Rated)
	}
	if c := st.Computer; c.Games > 0 {
		fmt.Fprintf(&s, "Against the computer (not rated): %s\n", record(c))
	}
	return strings.TrimSuffix(s.String(), "\n")
}

// ratingText is the rating with its 95% interval, as players read it.
func ratingText(st store.Stats) string {
	return fmt.Sprintf("%d ± %d", int(math.Round(st.Rating.R)), int(math.Round(2*st.Rating.RD)))
}

func record(r store.Record) string {
	return fmt.Sprintf("%s · %s · %s · %s", plural(r.Games, "game"), plural(r.Wins, "win"), plural(r.Losses, "loss"), plural(r.Draws, "draw"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "s") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func percent(a, b int) int {
	if b == 0 {
		return 0
	}
	return int(math.Round(100 * float64(a) / float64(b)))
}

func (b *Bot) leaderboard(ctx context.Context, req *request) error {
	top, err := b.store.Leaderboard(ctx, req.GuildID, MinRated, leaderboardSize)
	if err != nil {
		return fmt.Errorf("leaderboard: %w", err)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "🏆 **Leaderboard of this server** (rated games against people; at least %d to be ranked)\n", MinRated)
	if len(top) == 0 {
		fmt.Fprintf(&s, "Nobody is ranked yet: it takes %d rated games. Challenge someone with `/ttt start opponent:@someone`.", MinRated)
	}
	me := req.user.ID
	shown := false
	for _, st := range top {
		fmt.Fprintf(&s, "%d. %s — %s · %s · %d%% wins\n", st.Rank, mention(st.UserID), ratingText(st), plural(st.People.Games, "game"), percent(st.People.Wins, st.People.Games))
		shown = shown || st.UserID == me
	}
	if !shown && len(top) > 0 {
		st, err := b.store.Stats(ctx, req.GuildID, me, MinRated)
		if err != nil {
			return fmt.Errorf("leaderboard: own rank: %w", err)
		}
		if st.Rank > 0 {
			fmt.Fprintf(&s, "…\n%d. %s — %s (you)\n", st.Rank, mention(me), ratingText(st))
		} else {
			fmt.Fprintf(&s, "You are not ranked yet: %d of %d rated games.\n", st.Rated, MinRated)
		}
	}
	return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, view{content: strings.TrimSuffix(s.String(), "\n")}, false)
}

func (b *Bot) history(ctx context.Context, req *request) error {
	u, err := whom(req)
	if err != nil {
		return err
	}
	gs, err := b.store.History(ctx, req.GuildID, u.ID, historySize)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "📜 **Last games of %s in this server**\n", mention(u.ID))
	if len(gs) == 0 {
		s.WriteString("No finished games yet.")
	}
	for _, g := range gs {
		s.WriteString(historyLine(g, u.ID))
		s.WriteByte('\n')
	}
	return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, view{content: strings.TrimSuffix(s.String(), "\n")}, false)
}

// historyLine is one finished game as userID saw it.
func historyLine(g *store.Game, userID string) string {
	me := game.X
	if g.Players[game.O] == userID && g.Players[game.X] != userID {
		me = game.O
	}
	opp := mention(g.Players[me.Other()])
	if g.Computer == me.Other() {
		opp = fmt.Sprintf("the computer (%s)", g.Level)
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
		result += " by resignation"
	case game.EndTimeout:
		result += " on time"
	}
	when := g.EndedAt
	if when.IsZero() {
		when = g.StartedAt
	}
	return fmt.Sprintf("• <t:%d:d> %s vs %s · %d×%d, %d in a row · **%s** in %s", when.Unix(), mark(me), opp, g.Size, g.Size, g.Win, result, plural(len(g.Moves), "move"))
}
