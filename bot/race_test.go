//go:build race

package bot

// raceBuild is true when the race detector is on: it makes the bot some
// ten times slower, so long tests do less.
const raceBuild = true
