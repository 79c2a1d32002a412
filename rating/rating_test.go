package rating

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Glickman's worked example, "Example of the Glicko-2 system" (2013).
func TestGlickmanExample(t *testing.T) {
	player := Rating{R: 1500, RD: 200, Vol: 0.06}
	got := Update(player, []Result{
		{Opponent: Rating{R: 1400, RD: 30, Vol: 0.06}, Score: 1},
		{Opponent: Rating{R: 1550, RD: 100, Vol: 0.06}, Score: 0},
		{Opponent: Rating{R: 1700, RD: 300, Vol: 0.06}, Score: 0},
	})
	want := Rating{R: 1464.06, RD: 151.52, Vol: 0.05999}
	if !near(got.R, want.R, 0.01) || !near(got.RD, want.RD, 0.01) || !near(got.Vol, want.Vol, 0.00001) {
		t.Errorf("Update(Glickman's example) = %+v; want about %+v", got, want)
	}
}

func TestNoGamesOnlyRDGrows(t *testing.T) {
	r := Rating{R: 1600, RD: 100, Vol: 0.06}
	got := Update(r, nil)
	wantRD := math.Sqrt(100*100 + (0.06*scale)*(0.06*scale))
	if got.R != r.R || got.Vol != r.Vol || !near(got.RD, wantRD, 1e-9) {
		t.Errorf("Update(%+v, nil) = %+v; want R and Vol unchanged, RD %.4f", r, got, wantRD)
	}
	if got := Update(Default, nil); got != Default {
		t.Errorf("Update(Default, nil) = %+v; want Default (RD capped at %v)", got, Default.RD)
	}
}

func TestOneGame(t *testing.T) {
	a, b := Default, Default
	winner := Update(a, []Result{{Opponent: b, Score: 1}})
	loser := Update(b, []Result{{Opponent: a, Score: 0}})
	drawn := Update(a, []Result{{Opponent: b, Score: 0.5}})
	if winner.R <= a.R {
		t.Errorf("winner R = %.2f; want above %.2f", winner.R, a.R)
	}
	if loser.R >= b.R {
		t.Errorf("loser R = %.2f; want below %.2f", loser.R, b.R)
	}
	if !near(winner.R-1500, 1500-loser.R, 1e-6) {
		t.Errorf("equal players: winner gains %.4f, loser loses %.4f; want the same", winner.R-1500, 1500-loser.R)
	}
	if !near(drawn.R, 1500, 1e-9) {
		t.Errorf("draw between equals: R = %.4f; want 1500", drawn.R)
	}
	for name, r := range map[string]Rating{"winner": winner, "loser": loser, "draw": drawn} {
		if r.RD >= Default.RD {
			t.Errorf("%s RD = %.2f; want below %.2f", name, r.RD, Default.RD)
		}
	}
}

// Beating a much stronger player gains more than beating a weaker one.
func TestUpsetGainsMore(t *testing.T) {
	me := Rating{R: 1500, RD: 80, Vol: 0.06}
	strong := Update(me, []Result{{Opponent: Rating{R: 1900, RD: 80, Vol: 0.06}, Score: 1}})
	weak := Update(me, []Result{{Opponent: Rating{R: 1100, RD: 80, Vol: 0.06}, Score: 1}})
	if strong.R-me.R <= weak.R-me.R {
		t.Errorf("gain against 1900 = %.2f, against 1100 = %.2f; want the first larger", strong.R-me.R, weak.R-me.R)
	}
}

func TestZeroIsDefault(t *testing.T) {
	res := []Result{{Score: 1}}
	if got, want := Update(Rating{}, res), Update(Default, []Result{{Opponent: Default, Score: 1}}); got != want {
		t.Errorf("Update(zero, win against zero) = %+v; want %+v", got, want)
	}
}

func TestFinite(t *testing.T) {
	for _, r := range []Rating{Default, {R: 3000, RD: 30, Vol: 0.06}, {R: 100, RD: 350, Vol: 0.2}} {
		for _, s := range []float64{0, 0.5, 1} {
			got := Update(r, []Result{{Opponent: Rating{R: 3000 - r.R, RD: 30, Vol: 0.03}, Score: s}})
			for _, x := range []float64{got.R, got.RD, got.Vol} {
				if math.IsNaN(x) || math.IsInf(x, 0) || got.RD <= 0 || got.Vol <= 0 {
					t.Fatalf("Update(%+v, score %v) = %+v; want finite, positive RD and Vol", r, s, got)
				}
			}
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	b.ReportAllocs()
	res := []Result{{Opponent: Rating{R: 1650, RD: 120, Vol: 0.06}, Score: 1}}
	r := Default
	for b.Loop() {
		r = Update(Default, res)
	}
	_ = r
}
