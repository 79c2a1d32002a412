package bot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/picture"
)

// pictureName is the file name of a board's picture.
const pictureName = "board.png"

// pictures puts the pictures of big boards on their messages. Each of its
// edits is one request, made when boards decides it (boards.go keeps each
// board's edits in order, one at a time). It is safe for concurrent use.
type pictures struct {
	dc       Discord
	catalog  *i18n.Catalog
	log      *slog.Logger
	settings *settings
	// draw draws a picture (picture.Draw, if nil).
	draw func(io.Writer, *game.Judge) error
	// drawn keeps the latest pictures drawn: a position shown again
	// (/ttt board, a stale board drawn anew) is not drawn again.
	drawn pictureCache
}

// png returns the PNG picture of g, the board of game gameID: the one
// drawn last for the same position, if it is kept, else drawn now. The
// caller must not change it.
func (p *pictures) png(gameID string, g *game.Judge) ([]byte, error) {
	key := pictureKey{game: gameID, moves: g.Len(), status: g.Status()}
	if data := p.drawn.get(key); data != nil {
		return data, nil
	}
	draw := p.draw
	if draw == nil {
		draw = picture.Draw
	}
	var buf bytes.Buffer
	if err := draw(&buf, g); err != nil {
		return nil, err
	}
	p.drawn.put(key, buf.Bytes())
	return buf.Bytes(), nil
}

// A pictureKey names a position of a game, which is all its picture
// shows: its moves (and so the last one), and its status (a win line).
type pictureKey struct {
	game   string
	moves  int
	status game.Status
}

// pictureCache keeps the last keptPictures pictures drawn, about 30 KB
// each. The zero value is empty; it is safe for concurrent use.
type pictureCache struct {
	mu   sync.Mutex
	keys [keptPictures]pictureKey
	pngs [keptPictures][]byte
	next int // the entry put replaces
}

// keptPictures is how many pictures pictureCache keeps.
const keptPictures = 8

func (c *pictureCache) get(k pictureKey) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, key := range c.keys {
		if key == k && c.pngs[i] != nil {
			return c.pngs[i]
		}
	}
	return nil
}

func (c *pictureCache) put(k pictureKey, png []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys[c.next], c.pngs[c.next] = k, png
	c.next = (c.next + 1) % keptPictures
}

// show edits the message ref of m's board, bigger than pictureAbove, to
// show m: as a picture where the guild wants one, with its text without
// the grid; else (or if the picture cannot be put there, when comps is
// set) as m's emoji board. With comps the buttons are m's too; without,
// they stay as they are (an answer drew them). Either way the edit keeps
// no attachment, so that no picture of an earlier state stays beside a
// grid. current says whether the edit is still the newest one wanted of
// the board (editPicture). It says whether the board now shows m.
func (p *pictures) show(ctx context.Context, ref *discordgo.Interaction, m *match, comps bool, current func() bool) bool {
	l := p.catalog.For(m.locale)
	var cp *[]discordgo.MessageComponent
	if comps {
		c := renderMatch(l, m.Match).buttonsFor(p.settings.activity)
		cp = &c
	}
	if p.settings.showsPicture(ctx, m.GuildID, m.Match) {
		err := p.editPicture(ctx, ref, m.ID, m.Judge, pictureView(l, m).content, cp, current)
		if err == nil {
			return true
		}
		p.logPictureFailure(m.ChannelID, current, err)
		if !comps {
			return false // the board stays as its answer drew it
		}
	}
	v := boardView(l, m)
	_, err := p.dc.InteractionResponseEdit(ref, &discordgo.WebhookEdit{
		Content:         &v.content,
		Components:      cp,
		Attachments:     &[]*discordgo.MessageAttachment{},
		AllowedMentions: allowed(""),
	}, discordgo.WithContext(ctx))
	if err != nil {
		p.log.Warn("could not update a board", "channel", m.ChannelID, "err", fmt.Errorf("edit message: %w", err))
		return false
	}
	return true
}

// showInChannel edits, with the bot token, the message of m's board,
// bigger than pictureAbove, once its token has expired (a correspondence
// game's board, see doc.go), to show m: as a picture where the guild wants
// one, else (or if the picture cannot be drawn) as m's emoji board, with
// m's buttons. Either way the edit keeps no attachment, so that no
// picture of an earlier state stays. It says whether the board now shows
// m.
func (p *pictures) showInChannel(ctx context.Context, m *match) bool {
	bd := m.Board
	l := p.catalog.For(m.locale)
	v := boardView(l, m)
	comps := v.buttonsFor(p.settings.activity)
	e := &discordgo.MessageEdit{
		Channel: bd.ChannelID, ID: bd.MessageID,
		Content: &v.content, Components: &comps,
		Attachments:     &[]*discordgo.MessageAttachment{},
		AllowedMentions: allowed(""),
	}
	if p.settings.showsPicture(ctx, m.GuildID, m.Match) {
		if png, err := p.png(m.ID, m.Judge); err != nil {
			p.log.Warn("could not show a board as a picture; /ttt board draws it again", "channel", m.ChannelID, "err", err)
		} else {
			text := pictureView(l, m).content
			e.Content = &text
			e.Files = []*discordgo.File{{Name: pictureName, ContentType: "image/png", Reader: bytes.NewReader(png)}}
		}
	}
	if _, err := p.dc.ChannelMessageEditComplex(e, discordgo.WithContext(ctx)); err != nil {
		p.log.Warn("could not update an old board through its channel", "channel", m.ChannelID, "err", fmt.Errorf("edit message: %w", err))
		return false
	}
	return true
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

// editPicture edits the message ref with g's picture (game gameID's),
// attached as pictureName in place of any attachment, and text; with
// comps, its buttons too. A message that is not there may not be there yet: over
// the HTTP endpoint, Discord creates an answer's message once it has read
// the response, perhaps after the bot's edit arrives. So Unknown Message
// is tried again (retryUnanswered) while current says the edit is still
// the message's newest.
func (p *pictures) editPicture(ctx context.Context, ref *discordgo.Interaction, gameID string, g *game.Judge, text string, comps *[]discordgo.MessageComponent, current func() bool) error {
	png, err := p.png(gameID, g)
	if err != nil {
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
	err = retryUnanswered(ctx, func() error {
		file.Reader = bytes.NewReader(png) // each try reads it all
		_, err := p.dc.InteractionResponseEdit(ref, e, discordgo.WithContext(ctx))
		return err
	}, func(err error) bool { return unknownMessage(err) && current() })
	if err != nil {
		return fmt.Errorf("edit message with a picture: %w", err)
	}
	return nil
}
