//go:build race

package store

// raceBuild is true when the race detector is on, which slows SQLite's
// transpiled C about thirtyfold: some tests then use smaller databases.
const raceBuild = true
