// Package rating rates players with the Glicko-2 system (Mark Glickman,
// "Example of the Glicko-2 system", 2013), as lichess does: a rating, its
// uncertainty (the rating deviation) and a volatility, so that a player who
// plays rarely is rated with honest doubt.
//
// The package is pure: no clock, no I/O, no state. Its functions are safe
// for concurrent use.
package rating

import "math"

// Rating is a player's Glicko-2 rating on the familiar Glicko scale
// (1500 is the average newcomer). The zero Rating is not meaningful: start
// players at Default. (Update reads a zero Rating as Default.)
type Rating struct {
	R   float64 // the rating
	RD  float64 // the rating deviation: about 95% sure the true rating is within R ± 2·RD
	Vol float64 // the volatility: how erratic the player's results are
}

// Default is a new player's rating: 1500 ± 350, volatility 0.06.
var Default = Rating{R: 1500, RD: 350, Vol: 0.06}

// The system's constants, as Glickman recommends.
const (
	// Tau constrains how fast the volatility changes (Glickman suggests
	// 0.3 to 1.2; smaller values keep ratings calmer).
	Tau = 0.5
	// epsilon is the convergence tolerance of the volatility iteration.
	epsilon = 0.000001
	// scale converts between the Glicko scale and Glicko-2's internal one.
	scale = 173.7178
	// maxIterations bounds the volatility iteration; with epsilon above it
	// converges in well under 20 steps, so the bound only guards against
	// non-finite input.
	maxIterations = 100
)

// Result is the outcome of one game against an opponent, as seen by the
// player being rated.
type Result struct {
	Opponent Rating  // the opponent's rating before the game
	Score    float64 // 1 for a win, 0.5 for a draw, 0 for a loss
}

// Update returns r after one rating period in which the player had the given
// results, each against the opponent's rating as it was at the start of the
// period. With no results only the rating deviation grows, the doubt that
// comes with time (step 6 of Glickman's paper). The deviation never grows
// beyond Default.RD, the doubt about a newcomer.
//
// A zero Rating, for r or an opponent, is read as Default. Update costs
// O(len(results)) arithmetic plus a volatility iteration of a few dozen
// steps at most; it does not allocate.
func Update(r Rating, results []Result) Rating {
	r = orDefault(r)
	mu := (r.R - 1500) / scale
	phi := r.RD / scale
	sigma := r.Vol

	if len(results) == 0 {
		return Rating{R: r.R, RD: math.Min(math.Sqrt(phi*phi+sigma*sigma)*scale, math.Max(r.RD, Default.RD)), Vol: sigma}
	}

	// Steps 3 and 4: the estimated variance v of the rating from the game
	// outcomes alone, and the estimated improvement delta (= v·sum).
	var invV, sum float64
	for _, res := range results {
		o := orDefault(res.Opponent)
		muJ := (o.R - 1500) / scale
		gJ := g(o.RD / scale)
		e := 1 / (1 + math.Exp(-gJ*(mu-muJ)))
		invV += gJ * gJ * e * (1 - e)
		sum += gJ * (res.Score - e)
	}
	v := 1 / invV
	delta := v * sum

	// Step 5: the new volatility, by the Illinois algorithm.
	sigma = volatility(phi, sigma, v, delta)

	// Steps 6 and 7: the new deviation and rating.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	return Rating{R: muNew*scale + 1500, RD: phiNew * scale, Vol: sigma}
}

func orDefault(r Rating) Rating {
	if r == (Rating{}) {
		return Default
	}
	return r
}

// g weighs an opponent's result by how sure we are of their rating.
func g(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// volatility is step 5 of Glickman's paper: the root of f by the Illinois
// variant of regula falsi.
func volatility(phi, sigma, v, delta float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(Tau*Tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*Tau) < 0 && k < maxIterations {
			k++
		}
		B = a - k*Tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < maxIterations; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}
