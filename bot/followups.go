package bot

// followUps is what a kept change leaves to do on Discord, beyond its
// answer: handlers return it as data, and boards does it (followUp), in
// this order, in the background. The zero value does nothing.
type followUps struct {
	// shown is the game as the answer just showed it.
	shown *match
	// retire, if set, is the game whose board shown's board replaces:
	// its message is deleted, or keeps its final position (boards.retire).
	retire *match
	// picture puts the picture of shown's board on its message
	// (boards.show).
	picture bool
	// lookup learns the id of shown's board message, drawn as a new
	// message, if the game will need it (boards.lookupLater).
	lookup bool
	// pingFor, if set, is who clicked: the player to move in shown is
	// pinged unless it is them (boards.pingMover).
	pingFor string
	// redraw draws shown on its board message, which the answer did not
	// show (boards.show).
	redraw bool
	// offer posts shown's draw offer, made on the live board, in chat,
	// for an opponent who answers there (boards.offerInChat).
	offer bool
}
