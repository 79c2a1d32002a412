// Package rating rates players with the Glicko-2 system (Mark Glickman,
// "Example of the Glicko-2 system", 2013), as lichess does: a rating, its
// uncertainty (the rating deviation) and a volatility, so that a player who
// plays rarely is rated with honest doubt.
package rating

// Rating is a player's Glicko-2 rating on the familiar Glicko scale
// (1500 is the average newcomer). The zero Rating is not meaningful: start
// players at Default.
type Rating struct {
	R   float64 // the rating
	RD  float64 // the rating deviation: about 95% sure the true rating is within R ± 2·RD
	Vol float64 // the volatility: how erratic the player's results are
}

// Default is a new player's rating: 1500 ± 350, volatility 0.06.
var Default = Rating{R: 1500, RD: 350, Vol: 0.06}
