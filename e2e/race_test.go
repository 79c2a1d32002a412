//go:build race

package e2e

// raceBuild is true when the race detector is on: the bot binary is then
// built with -race as well, so that the end-to-end tests check the bot's
// own goroutines, not only the test's.
const raceBuild = true
