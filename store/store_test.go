package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
)

func sample(channel string, end Ending) *Record {
	return &Record{
		ChannelID: channel, GuildID: "g", ID: "abc", Players: [3]string{game.X: "1", game.O: "2"},
		Level: game.Hard, Size: 3, Win: 3, First: game.X,
		Moves: []game.Move{{Row: 1, Col: 1, Player: game.X}}, End: end, Serial: 2,
		Deadline: time.Unix(1767225600, 0), BoardAppID: "app", BoardToken: "tok", Shown: "board",
	}
}

// Memory gives back exactly what it was given, and keeps no alias of it.
func TestMemoryRoundTrip(t *testing.T) {
	ctx := context.Background()
	var s Memory
	if r, err := s.Load(ctx, "c"); r != nil || err != nil {
		t.Fatalf("Load(empty) = %v, %v; want nil, nil", r, err)
	}
	in := sample("c", Running)
	if err := s.Save(ctx, in); err != nil {
		t.Fatal(err)
	}
	want := in.Clone()
	in.Moves[0].Row = 2 // the caller's slice is not the stored one
	got, err := s.Load(ctx, "c")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, want)
	}
	got.Moves[0].Col = 0
	if again, _ := s.Load(ctx, "c"); !reflect.DeepEqual(again, want) {
		t.Errorf("changing a loaded record changed the store: %+v", again)
	}
	if err := s.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Load(ctx, "c"); r != nil {
		t.Errorf("Load after Delete = %+v; want nil", r)
	}
}

func TestMemoryRunning(t *testing.T) {
	ctx := context.Background()
	var s Memory
	for _, r := range []*Record{sample("b", Running), sample("a", Running), sample("c", Won)} {
		if err := s.Save(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := s.Running(ctx)
	if err != nil || len(rs) != 2 || rs[0].ChannelID != "a" || rs[1].ChannelID != "b" {
		t.Fatalf("Running = %v, %v; want the games of a and b", rs, err)
	}
}
