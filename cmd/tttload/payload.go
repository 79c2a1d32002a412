package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"strconv"
	"sync/atomic"
	"time"
)

// Interaction payloads, built by appending bytes rather than through
// encoding/json: the generator shares the machine's cores with the bot, so
// it must cost little per request. The shapes are those of
// ../shared/discord-payloads (Discord's own examples) and of
// discord/discordtest's INTERACTION_CREATE: every field Discord sends to a
// guild interaction, with the values this bot reads replaced.

// discordEpoch is 2015-01-01T00:00:00Z in Unix milliseconds.
const discordEpoch = 1420070400000

// snowflakes hands out unique, increasing snowflakes with the current time
// in their top bits, like Discord's. The zero value is ready to use and it
// is safe for concurrent use.
type snowflakes struct{ last atomic.Uint64 }

// next returns a new snowflake.
func (s *snowflakes) next() uint64 {
	for {
		last := s.last.Load()
		id := uint64(time.Now().UnixMilli()-discordEpoch) << 22
		if id <= last {
			id = last + 1
		}
		if s.last.CompareAndSwap(last, id) {
			return id
		}
	}
}

// player is a guild member who plays.
type player struct {
	id   string
	name string
}

// scene is what every interaction of one run shares: the application, the
// guild, and the bot's user (the author of its messages).
type scene struct {
	appID   string
	guildID string
	cmdID   string // the id of /ttt, as registered
	botID   string
}

// memberPermissions are a plain member's permissions (no Manage Messages).
const memberPermissions = "2248473465835073"

// appPermissions are the bot's permissions in the channel, as Discord sends
// them in app_permissions.
const appPermissions = "2248473465843265"

// builder appends interaction payloads. Each payload gets a fresh id and a
// token derived from it (unique, as Discord's are, and about as long).
type builder struct {
	scene
	ids *snowflakes
}

// header appends the fields every interaction in a guild has, up to and
// including the member.
func (b *builder) header(buf []byte, typ int, channelID string, p player) []byte {
	id := b.ids.next()
	buf = append(buf, `{"id":"`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `","application_id":"`...)
	buf = append(buf, b.appID...)
	buf = append(buf, `","type":`...)
	buf = strconv.AppendInt(buf, int64(typ), 10)
	buf = append(buf, `,"token":"`...)
	buf = appendToken(buf, id)
	buf = append(buf, `","version":1,"guild_id":"`...)
	buf = append(buf, b.guildID...)
	buf = append(buf, `","channel_id":"`...)
	buf = append(buf, channelID...)
	buf = append(buf, `","channel":{"id":"`...)
	buf = append(buf, channelID...)
	buf = append(buf, `","type":0,"guild_id":"`...)
	buf = append(buf, b.guildID...)
	buf = append(buf, `"},"app_permissions":"`+appPermissions+`","locale":"en-US","guild_locale":"en-US","entitlements":[],"authorizing_integration_owners":{"0":"`...)
	buf = append(buf, b.guildID...)
	buf = append(buf, `"},"context":0,"attachment_size_limit":10485760,"member":`...)
	return appendMember(buf, p)
}

// appendToken appends an interaction token made from the interaction's id:
// unique per interaction and as long as a real one's first part.
func appendToken(buf []byte, id uint64) []byte {
	buf = append(buf, "aW50ZXJhY3Rpb246"...)
	buf = strconv.AppendUint(buf, id, 10)
	var x [8]byte
	v := id * 0x9E3779B97F4A7C15
	for i := range x {
		x[i] = byte(v >> (8 * i))
	}
	buf = append(buf, ':')
	return hex.AppendEncode(buf, x[:])
}

func appendUser(buf []byte, p player) []byte {
	buf = append(buf, `{"id":"`...)
	buf = append(buf, p.id...)
	buf = append(buf, `","username":"`...)
	buf = append(buf, p.name...)
	buf = append(buf, `","global_name":"`...)
	buf = append(buf, p.name...)
	return append(buf, `","discriminator":"0","avatar":null,"public_flags":0}`...)
}

func appendMember(buf []byte, p player) []byte {
	buf = append(buf, `{"user":`...)
	buf = appendUser(buf, p)
	return append(buf, `,"roles":[],"permissions":"`+memberPermissions+`","nick":null,"avatar":null,"joined_at":"2017-03-13T19:19:14.040000+00:00","premium_since":null,"pending":false,"mute":false,"deaf":false,"flags":0}`...)
}

// start appends a's `/ttt start opponent:@b size:size` in the channel.
func (b *builder) start(buf []byte, channelID string, a, opp player, size int) []byte {
	buf = b.header(buf, 2, channelID, a)
	buf = append(buf, `,"data":{"id":"`...)
	buf = append(buf, b.cmdID...)
	buf = append(buf, `","name":"ttt","type":1,"guild_id":"`...)
	buf = append(buf, b.guildID...)
	buf = append(buf, `","options":[{"type":1,"name":"start","options":[{"type":6,"name":"opponent","value":"`...)
	buf = append(buf, opp.id...)
	buf = append(buf, `"},{"type":4,"name":"size","value":`...)
	buf = strconv.AppendInt(buf, int64(size), 10)
	buf = append(buf, `}]}],"resolved":{"users":{"`...)
	buf = append(buf, opp.id...)
	buf = append(buf, `":`...)
	buf = appendUser(buf, opp)
	buf = append(buf, `},"members":{"`...)
	buf = append(buf, opp.id...)
	buf = append(buf, `":{"roles":[],"permissions":"`+memberPermissions+`","nick":null,"avatar":null,"joined_at":"2017-03-13T19:19:14.040000+00:00","premium_since":null,"pending":false,"flags":0}}}}}`...)
	return buf
}

// move appends p's `/ttt move row col` (1-based) in the channel.
func (b *builder) move(buf []byte, channelID string, p player, row, col int) []byte {
	buf = b.header(buf, 2, channelID, p)
	buf = append(buf, `,"data":{"id":"`...)
	buf = append(buf, b.cmdID...)
	buf = append(buf, `","name":"ttt","type":1,"guild_id":"`...)
	buf = append(buf, b.guildID...)
	buf = append(buf, `","options":[{"type":1,"name":"move","options":[{"type":4,"name":"row","value":`...)
	buf = strconv.AppendInt(buf, int64(row), 10)
	buf = append(buf, `},{"type":4,"name":"col","value":`...)
	buf = strconv.AppendInt(buf, int64(col), 10)
	return append(buf, `}]}]}}`...)
}

// resign appends p's `/ttt resign` in the channel.
func (b *builder) resign(buf []byte, channelID string, p player) []byte {
	buf = b.header(buf, 2, channelID, p)
	buf = append(buf, `,"data":{"id":"`...)
	buf = append(buf, b.cmdID...)
	buf = append(buf, `","name":"ttt","type":1,"guild_id":"`...)
	buf = append(buf, b.guildID...)
	return append(buf, `","options":[{"type":1,"name":"resign","options":[]}]}}`...)
}

// click appends p's click on the button customID of message messageID in
// the channel; the message is the bot's, with the action rows components
// (JSON), as Discord sends it.
func (b *builder) click(buf []byte, channelID string, p player, messageID, customID, components string) []byte {
	buf = b.header(buf, 3, channelID, p)
	buf = append(buf, `,"message":{"type":0,"tts":false,"timestamp":"2025-01-01T00:00:00.000000+00:00","pinned":false,"mentions":[],"mention_roles":[],"mention_everyone":false,"id":"`...)
	buf = append(buf, messageID...)
	buf = append(buf, `","flags":0,"embeds":[],"edited_timestamp":null,"content":"","components":`...)
	buf = append(buf, components...)
	buf = append(buf, `,"channel_id":"`...)
	buf = append(buf, channelID...)
	buf = append(buf, `","author":`...)
	buf = appendUser(buf, player{id: b.botID, name: "tttbot"})
	buf = append(buf, `,"attachments":[]},"data":{"custom_id":"`...)
	buf = append(buf, customID...)
	return append(buf, `","component_type":2}}`...)
}

// pick appends p's choice of row (1-based) in the picker's menu customID
// on message messageID in the channel, whose action rows are components
// (JSON), as Discord sends a string select.
func (b *builder) pick(buf []byte, channelID string, p player, messageID, customID, components string, row int) []byte {
	buf = b.click(buf, channelID, p, messageID, customID, components)
	buf = buf[:len(buf)-len(`,"component_type":2}}`)]
	buf = append(buf, `,"component_type":3,"values":["`...)
	buf = strconv.AppendInt(buf, int64(row), 10)
	return append(buf, `"]}}`...)
}

// acceptRow is the components of a challenge message, as far as a click
// on Accept needs them.
func acceptRow(customID string) string {
	return `[{"type":1,"components":[{"type":2,"label":"Accept","style":3,"custom_id":"` + customID + `"}]}]`
}

// cellID returns the custom_id of the cell at row and col (1-based) of the
// board whose cells are "move/<game>/<serial>/".
func cellID(cells string, row, col int) string {
	return cells + strconv.Itoa(row) + "/" + strconv.Itoa(col)
}

// signed is a payload with Discord's signature headers' values.
type signed struct {
	body      []byte
	signature string // hex, X-Signature-Ed25519
	timestamp string // Unix seconds, X-Signature-Timestamp
}

// sign signs body at t as Discord does: Ed25519 over the timestamp followed
// by the body. It costs one ed25519.Sign (about 35 µs here).
func sign(key ed25519.PrivateKey, body []byte, t time.Time) signed {
	ts := strconv.FormatInt(t.Unix(), 10)
	msg := make([]byte, 0, len(ts)+len(body))
	msg = append(append(msg, ts...), body...)
	return signed{body: body, signature: hex.EncodeToString(ed25519.Sign(key, msg)), timestamp: ts}
}
