package bot

import (
	"errors"
	"testing"

	"github.com/tttbot/tttbot/game"
)

func TestDecodeStart(t *testing.T) {
	// The user fixture's resolved section names a bot, VoltyDemo.
	resolved := fixture(t, "user_command_interaction.json")["data"].(map[string]any)["resolved"].(map[string]any)
	const volty = "809850198683418695"
	tests := []struct {
		name     string
		opts     []map[string]any
		resolved map[string]any
		want     startOptions
		wantErr  bool
	}{
		{name: "defaults", want: startOptions{size: 3, win: 3, level: game.Hard}},
		{name: "size and win", opts: []map[string]any{intOpt("size", 7), intOpt("win", 4)}, want: startOptions{size: 7, win: 4, level: game.Hard}},
		{name: "win defaults to size", opts: []map[string]any{intOpt("size", 5)}, want: startOptions{size: 5, win: 5, level: game.Hard}},
		{name: "difficulty", opts: []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, want: startOptions{size: 3, win: 3, level: game.Easy}},
		{name: "gomoku", opts: []map[string]any{intOpt("size", 15), intOpt("win", 5)}, want: startOptions{size: 15, win: 5, level: game.Hard}},
		{name: "size too big", opts: []map[string]any{intOpt("size", 16)}, wantErr: true},
		{name: "size too small", opts: []map[string]any{intOpt("size", 2)}, wantErr: true},
		{name: "win over size", opts: []map[string]any{intOpt("size", 4), intOpt("win", 5)}, wantErr: true},
		{name: "win too small", opts: []map[string]any{intOpt("size", 4), intOpt("win", 2)}, wantErr: true},
		{name: "fractional size", opts: []map[string]any{intOpt("size", 3.5)}, wantErr: true},
		{name: "size as a string", opts: []map[string]any{{"type": 3, "name": "size", "value": "5"}}, wantErr: true},
		{name: "bad difficulty", opts: []map[string]any{{"type": 3, "name": "difficulty", "value": "godlike"}}, wantErr: true},
		{name: "opponent resolved", opts: []map[string]any{{"type": 6, "name": "opponent", "value": volty}}, resolved: resolved,
			want: startOptions{size: 3, win: 3, level: game.Hard}},
		{name: "opponent unresolved", opts: []map[string]any{{"type": 6, "name": "opponent", "value": volty}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ic := slashPayload(t, "start", tt.opts, tt.resolved)
			data := ic.ApplicationCommandData()
			sub, err := subcommand(data)
			if err != nil {
				t.Fatalf("subcommand = %v; want nil", err)
			}
			got, err := decodeStart(data, sub, DefaultSize, 0)
			if tt.wantErr {
				var ue userError
				if !errors.As(err, &ue) {
					t.Fatalf("decodeStart = %+v, %v; want a userError", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeStart error = %v; want nil", err)
			}
			if tt.resolved != nil {
				if got.opponent == nil || got.opponent.ID != volty || !got.opponent.Bot {
					t.Fatalf("opponent = %+v; want the resolved bot %s", got.opponent, volty)
				}
				got.opponent = nil
			}
			if got != tt.want {
				t.Errorf("decodeStart = %+v; want %+v", got, tt.want)
			}
		})
	}
}

func TestDecodeMove(t *testing.T) {
	tests := []struct {
		name     string
		opts     []map[string]any
		row, col int
		wantErr  bool
	}{
		{"ok", []map[string]any{intOpt("row", 2), intOpt("col", 3)}, 2, 3, false},
		{"max", []map[string]any{intOpt("row", 10), intOpt("col", 10)}, 10, 10, false},
		{"zero row", []map[string]any{intOpt("row", 0), intOpt("col", 3)}, 0, 0, true},
		{"huge col", []map[string]any{intOpt("row", 1), intOpt("col", 1e12)}, 0, 0, true},
		{"missing col", []map[string]any{intOpt("row", 1)}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := subcommand(slashPayload(t, "move", tt.opts, nil).ApplicationCommandData())
			if err != nil {
				t.Fatal(err)
			}
			row, col, err := decodeMove(sub)
			if (err != nil) != tt.wantErr {
				t.Fatalf("decodeMove = %d, %d, %v; want error %v", row, col, err, tt.wantErr)
			}
			if row != tt.row || col != tt.col {
				t.Errorf("decodeMove = %d, %d; want %d, %d", row, col, tt.row, tt.col)
			}
		})
	}
}

// The unchanged cardsearch payload has no subcommand: the router must refuse
// it in words, not panic.
func TestSubcommandMissing(t *testing.T) {
	ic := decode(t, fixture(t, "slash_command_interaction.json"))
	if _, err := subcommand(ic.ApplicationCommandData()); err == nil {
		t.Fatal("subcommand(cardsearch) = nil error; want a userError")
	}
}
