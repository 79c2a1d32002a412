package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/tttbot/tttbot/game"
)

// The leaderboard against the computer ranks the players of one guild who
// played it by their record: wins, then draws, then fewer losses, then
// user id. The computer's own record is there too, for the bot to leave
// out; games between people and other guilds are not.
func testComputerLeaderboard(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	n := 0
	vsComputer := func(guild, user string, e game.Ending) {
		t.Helper()
		n++
		g := newGame(fmt.Sprintf("c%d", n), guild, "chan-"+guild, user, "bot")
		g.Computer, g.Level = game.O, game.Easy
		mustSave(t, s, g)
		loser := game.None
		if e == game.EndResigned {
			loser = game.X
		}
		mustSave(t, s, end(play(g, xWins...), e, loser, n))
	}
	vsComputer("guild", "alice", game.EndWon)
	vsComputer("guild", "alice", game.EndWon)
	vsComputer("guild", "bob", game.EndWon)
	vsComputer("guild", "bob", game.EndDraw)
	vsComputer("guild", "carol", game.EndWon)
	vsComputer("guild", "carol", game.EndResigned)
	vsComputer("guild", "dave", game.EndWon)
	vsComputer("other", "frank", game.EndWon)
	people := newGame("p1", "guild", "people", "erin", "gus")
	mustSave(t, s, people)
	mustSave(t, s, end(play(people, xWins...), game.EndWon, game.None, 99))

	all, err := s.ComputerLeaderboard(ctx, "guild", 0)
	if err != nil {
		t.Fatalf("ComputerLeaderboard(guild, 0) = %v", err)
	}
	var got []string
	for i, st := range all {
		got = append(got, st.UserID)
		if st.Rank != i+1 || st.GuildID != "guild" {
			t.Errorf("row %d = %+v; want rank %d in guild", i, st, i+1)
		}
	}
	// bot: 1 win (carol's loss), 1 draw (bob's), 5 losses.
	if want := "[alice bob bot dave carol]"; fmt.Sprint(got) != want {
		t.Errorf("ComputerLeaderboard(guild) = %v; want %s", got, want)
	}
	if len(all) > 0 {
		if want := (Record{Games: 2, Wins: 2}); all[0].Computer != want {
			t.Errorf("alice's record = %+v; want %+v", all[0].Computer, want)
		}
	}
	top, err := s.ComputerLeaderboard(ctx, "guild", 2)
	if err != nil || len(top) != 2 || top[1].UserID != "bob" || top[1].Rank != 2 {
		t.Errorf("ComputerLeaderboard(guild, 2) = %+v, %v; want alice and bob", top, err)
	}
	if none, err := s.ComputerLeaderboard(ctx, "nobody", 0); err != nil || len(none) != 0 {
		t.Errorf("ComputerLeaderboard(nobody) = %+v, %v; want none", none, err)
	}
}
