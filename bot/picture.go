package bot

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/picture"
)

// pictureName is the file name of a board's picture.
const pictureName = "board.png"

// pictures puts the pictures of big boards on their messages, in the
// background, each message's edits in the order they were decided. It is
// safe for concurrent use.
type pictures struct {
	dc       Discord
	catalog  *i18n.Catalog
	log      *slog.Logger
	run      *runner
	settings *settings
	edits    boardEdits // the order of background edits of big boards
}

// drawLater puts, in the background, the picture of m's board on its board
// message ref, which an answer has just shown as an emoji board, and
// takes the grid out of its text; the buttons stay as answered. m must
// not change any more: the bot changes a committed match only on a
// clone.
func (p *pictures) drawLater(ref *discordgo.Interaction, m *match) {
	text := renderPictured(p.catalog.For(m.locale), m.Match).content
	turn := p.edits.take(m.ID)
	p.run.queue(func(ctx context.Context) {
		turn.do(func(current func() bool) {
			if err := p.editPicture(ctx, ref, m.Judge, text, nil, current); err != nil {
				p.logPictureFailure(m.ChannelID, current, err)
			}
		})
	})
}

// editBoard edits, in the background, the message ref of m's board,
// bigger than pictureAbove, with v: as a picture where the guild wants
// one, else (or if the picture cannot be put there) as v's emoji board.
// Either way the edit keeps no attachment, so that no picture of an
// earlier state stays beside a grid.
func (p *pictures) editBoard(ref *discordgo.Interaction, m *match, v view) {
	comps := v.buttons()
	turn := p.edits.take(m.ID)
	p.run.queue(func(ctx context.Context) {
		turn.do(func(current func() bool) {
			if p.settings.showsPicture(ctx, m.GuildID, m.Match) {
				text := renderPictured(p.catalog.For(m.locale), m.Match).content
				err := p.editPicture(ctx, ref, m.Judge, text, &comps, current)
				if err == nil {
					return
				}
				p.logPictureFailure(m.ChannelID, current, err)
			}
			_, err := p.dc.InteractionResponseEdit(ref, &discordgo.WebhookEdit{
				Content:         &v.content,
				Components:      &comps,
				Attachments:     &[]*discordgo.MessageAttachment{},
				AllowedMentions: allowed(""),
			}, discordgo.WithContext(ctx))
			if err != nil {
				p.log.Warn("could not update a board", "channel", m.ChannelID, "err", fmt.Errorf("edit message: %w", err))
			}
		})
	})
}

// editInChannel edits, in the background and with the bot token, the
// message of m's board, bigger than pictureAbove, once its token has
// expired (a correspondence game's board, see doc.go) with v: as a picture
// where the guild wants one, else (or if the picture cannot be drawn) as
// v's emoji board. Either way the edit keeps no attachment, so that no
// picture of an earlier state stays.
func (p *pictures) editInChannel(m *match, v view) {
	bd := m.Board
	comps := v.buttons()
	p.run.queue(func(ctx context.Context) {
		e := &discordgo.MessageEdit{
			Channel: bd.ChannelID, ID: bd.MessageID,
			Content: &v.content, Components: &comps,
			Attachments:     &[]*discordgo.MessageAttachment{},
			AllowedMentions: allowed(""),
		}
		if p.settings.showsPicture(ctx, m.GuildID, m.Match) {
			var png bytes.Buffer
			if err := picture.Draw(&png, m.Judge); err != nil {
				p.log.Warn("could not show a board as a picture; /ttt board draws it again", "channel", m.ChannelID, "err", err)
			} else {
				text := renderPictured(p.catalog.For(m.locale), m.Match).content
				e.Content = &text
				e.Files = []*discordgo.File{{Name: pictureName, ContentType: "image/png", Reader: &png}}
			}
		}
		if _, err := p.dc.ChannelMessageEditComplex(e, discordgo.WithContext(ctx)); err != nil {
			p.log.Warn("could not update an old board through its channel", "channel", m.ChannelID, "err", fmt.Errorf("edit message: %w", err))
		}
	})
}

// logPictureFailure logs why a picture could not be put on a board
// message; a message that a newer one replaced meanwhile is no surprise.
func (p *pictures) logPictureFailure(channelID string, current func() bool, err error) {
	if !current() {
		p.log.Debug("a board's picture came too late: the board was replaced", "channel", channelID, "err", err)
		return
	}
	p.log.Warn("could not show a board as a picture; /ttt board draws it again", "channel", channelID, "err", err)
}

// editPicture edits the message ref with g's picture, attached as
// pictureName in place of any attachment, and text; with comps, its
// buttons too. A message that is not there may not be there yet: over
// the HTTP endpoint, Discord creates an answer's message once it has read
// the response, perhaps after the bot's edit arrives. So Unknown Message
// is tried again (retryUnanswered) while current says the edit is still
// the message's newest.
func (p *pictures) editPicture(ctx context.Context, ref *discordgo.Interaction, g *game.Judge, text string, comps *[]discordgo.MessageComponent, current func() bool) error {
	var png bytes.Buffer
	if err := picture.Draw(&png, g); err != nil {
		return err
	}
	file := &discordgo.File{Name: pictureName, ContentType: "image/png"}
	e := &discordgo.WebhookEdit{
		Content:         &text,
		Components:      comps,
		Files:           []*discordgo.File{file},
		Attachments:     &[]*discordgo.MessageAttachment{},
		AllowedMentions: allowed(""),
	}
	err := retryUnanswered(ctx, func() error {
		file.Reader = bytes.NewReader(png.Bytes()) // each try reads it all
		_, err := p.dc.InteractionResponseEdit(ref, e, discordgo.WithContext(ctx))
		return err
	}, func(err error) bool { return unknownMessage(err) && current() })
	if err != nil {
		return fmt.Errorf("edit message with a picture: %w", err)
	}
	return nil
}

// boardEdits puts the background edits of each big board's message in the
// order they were decided: an edit waits for the one before it, and one
// that a newer edit of the same message overtook before it began is
// dropped, since the newer one shows a later state. A game has one board
// message at a time, edited through the tokens of many interactions (each
// tap on its picker brings one), so edits are known by the game's id: a
// new board message of the game (/ttt board) overtakes what was waiting
// for the one it replaces, which is deleted in turn (last). The zero
// value is ready to use and safe for concurrent use; it holds a game only
// while an edit of its board is waiting or running.
type boardEdits struct {
	mu     sync.Mutex
	boards map[string]*boardTurns // by game
}

type boardTurns struct {
	sending sync.Mutex // held while one of the message's edits runs
	newest  uint64     // the number of the newest edit taken; guarded by boardEdits.mu
	pending int        // edits taken and not done; guarded by boardEdits.mu
}

// An editTurn is one edit's place in the order of its message's edits.
type editTurn struct {
	e      *boardEdits
	key    string
	t      *boardTurns
	n      uint64
	always bool // runs even if overtaken (last)
}

// take returns the turn of a new edit of the board of game key, after
// every edit taken before it. Take it where the edit is decided (under the
// channel's lock), and run it once with do (a turn never run, because the
// bot closed, keeps its game in memory).
func (e *boardEdits) take(key string) editTurn {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.boards[key]
	if t == nil {
		if e.boards == nil {
			e.boards = make(map[string]*boardTurns)
		}
		t = new(boardTurns)
		e.boards[key] = t
	}
	t.newest++
	t.pending++
	return editTurn{e: e, key: key, t: t, n: t.newest}
}

// last returns the turn of the deletion of the board message of game key,
// which a newer message replaced: the edits taken before it that have not
// begun are dropped, one that runs is waited for (so that it does not
// find its message gone), and the deletion runs even if edits of the new
// message are taken after it, which wait for it.
func (e *boardEdits) last(key string) editTurn {
	t := e.take(key)
	t.always = true
	return t
}

// do runs f once the edits taken before this one are done, unless a newer
// edit of the message was taken first (but a turn from last runs). current
// tells f whether that is still so, for an edit that tries again.
func (et editTurn) do(f func(current func() bool)) {
	current := func() bool {
		et.e.mu.Lock()
		defer et.e.mu.Unlock()
		return et.t.newest == et.n
	}
	et.t.sending.Lock()
	if et.always || current() {
		f(current)
	}
	et.t.sending.Unlock()
	et.e.mu.Lock()
	defer et.e.mu.Unlock()
	if et.t.pending--; et.t.pending == 0 {
		delete(et.e.boards, et.key)
	}
}
