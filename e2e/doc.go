// Package e2e holds the end-to-end tests of tttbot, and nothing else: they
// build the tttbot binary once per run (with -race when the tests run under
// the race detector) and run it as a process, with exactly the environment a
// test gives it, against the fake Discord of package discordtest on
// loopback; they read its log from its standard error, and its database
// directly.
package e2e
