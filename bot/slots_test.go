package bot

import (
	"testing"

	"github.com/tttbot/tttbot/table"
)

// A board's slot coalesces: while a step runs, what is asked only
// replaces what it wants next (the newest state, the buttons if any edit
// set them); a deletion drops what was wanted before it; once nothing is
// wanted, the slot is forgotten.
func TestBoardSlotsCoalesce(t *testing.T) {
	var s boardSlots
	at := func(v int64) *match { return &match{Match: &table.Match{ID: "g"}, Version: v} }
	slot, start := s.ask("g", &boardEdit{m: at(1)}, nil, false)
	if !start {
		t.Fatal("the first edit of a board did not start a step")
	}
	_, e, asked := s.take(slot)
	if e == nil || e.m.Version != 1 {
		t.Fatalf("the step took %+v; want version 1", e)
	}
	current := s.current(slot, asked)
	for v, comps := range []bool{false, true, false} {
		if _, start := s.ask("g", &boardEdit{m: at(int64(v + 2)), comps: comps}, nil, false); start {
			t.Fatal("an edit asked while a step runs started another")
		}
	}
	if current() {
		t.Error("the running edit is told it is current after newer ones were asked")
	}
	// The step's check of what it drew merges with what is wanted.
	if !s.done("g", slot, &boardEdit{m: at(1), check: true}) {
		t.Fatal("the slot wants nothing more after three edits were asked")
	}
	_, e, _ = s.take(slot)
	if e.m.Version != 4 || !e.comps || e.check {
		t.Errorf("the slot then wants version %d, comps %v, check %v; want one edit of version 4, with buttons", e.m.Version, e.comps, e.check)
	}
	s.ask("g", &boardEdit{m: at(5)}, nil, false)
	s.ask("g", nil, &boardDelete{token: "t"}, true)
	dels, e, _ := s.take(slot)
	if e != nil || len(dels) != 1 {
		t.Errorf("after a deletion the slot wants %+v and %d deletions; want the deletion alone", e, len(dels))
	}
	if s.done("g", slot, nil) {
		t.Error("the slot wants more once everything was taken")
	}
	if len(s.boards) != 0 {
		t.Errorf("%d slots kept; want none", len(s.boards))
	}
}
