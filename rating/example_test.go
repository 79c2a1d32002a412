package rating_test

import (
	"fmt"

	"github.com/tttbot/tttbot/rating"
)

// Glickman's worked example (his paper rounds along the way and prints
// 1464.06 and 0.05999): a 1500 player beats a 1400 and loses to a
// 1550 and a 1700 in one rating period.
func ExampleUpdate() {
	player := rating.Rating{R: 1500, RD: 200, Vol: 0.06}
	after := rating.Update(player, []rating.Result{
		{Opponent: rating.Rating{R: 1400, RD: 30, Vol: 0.06}, Score: 1},
		{Opponent: rating.Rating{R: 1550, RD: 100, Vol: 0.06}, Score: 0},
		{Opponent: rating.Rating{R: 1700, RD: 300, Vol: 0.06}, Score: 0},
	})
	fmt.Printf("%.2f ± %.2f, volatility %.6f\n", after.R, after.RD, after.Vol)
	// Output: 1464.05 ± 151.52, volatility 0.059996
}
