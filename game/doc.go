// Package game is the judge of an n×n tic-tac-toe game and its computer
// opponent. It is the core of tttbot, after LeetCode 348 ("Design
// Tic-Tac-Toe"): [Judge.Move] says after every move whether someone has won,
// in O(1) time whatever the size of the board.
//
// # Rules
//
// Player 1 plays X and player 2 plays O; they alternate, X first unless
// [FirstPlayer] says otherwise. A player who gets k marks in a row — in a
// row, a column or a diagonal — wins; k is the board size n unless
// [WinLength] sets a smaller k (gomoku-style, e.g. 7×7 with 4 in a row).
// A full board without a winner is a [Draw]. When no line can be completed by
// either player any more the game is a [DecidedDraw]: the judge still accepts
// moves (so that every game can be played out to a full board), and callers
// that want to stop a hopeless game check [Status.Decided].
//
// # Cost
//
// With k = n, [Judge.Play] keeps per-player counters for every row, column and
// the two diagonals, so a move touches at most four counters: O(1) time and
// no allocation (the history grows amortised). With k < n a move updates the
// k windows through the new cell in each of the four directions and walks at
// most k-1 cells each way to find a win: O(k). Memory is the n×n board
// (1 byte a cell), 4 bytes per move of history, O(n) counters, and for k < n
// 2 bits per length-k window (about 4n² windows).
//
// # Purity
//
// The package does no I/O and reads no clock: randomness for the computer
// opponent is passed in as a *rand.Rand (math/rand/v2), so games are
// reproducible. A test enforces the list of imported packages.
package game
