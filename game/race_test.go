//go:build race

package game

// raceEnabled: the race detector slows the package's tests about tenfold,
// so the longest of them check fewer positions.
const raceEnabled = true
