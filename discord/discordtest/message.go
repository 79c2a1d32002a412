package discordtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// messageTypeChatInput is the type of a response to a slash command;
// other messages have type 0 (DEFAULT).
const messageTypeChatInput = 20

// Message is a snapshot of a message as Discord stores it. The embedded
// discordgo.Message is decoded from the JSON the fake would return for it,
// so its Content, Components (*discordgo.ActionsRow holding
// *discordgo.Button), Embeds, Flags and Author are what the bot would read.
type Message struct {
	discordgo.Message
	// InteractionID is the ID of the interaction whose response or
	// followup created the message, "" for a message sent with the bot's
	// token.
	InteractionID string
	// Edits is how many times the message was edited since it was created
	// (by UPDATE_MESSAGE, a webhook PATCH, a bot PATCH, or the completion of
	// a deferred response).
	Edits int
	// Deleted marks a message deleted since (History lists them).
	Deleted bool
	// Nonce is the nonce it was created with, "" for none (discordgo's
	// Message has no field for it).
	Nonce string
}

// Ephemeral reports whether only the invoking user can see the message.
func (m Message) Ephemeral() bool { return m.Flags&discordgo.MessageFlagsEphemeral != 0 }

// Loading reports whether the message is a deferred response still
// "thinking".
func (m Message) Loading() bool { return m.Flags&discordgo.MessageFlagsLoading != 0 }

// Button is a button of a message with its position: Row is the index of
// its action row among the message's top-level components, Col its index in
// the row.
type Button struct {
	discordgo.Button
	Row, Col int
}

// Buttons returns the message's buttons in reading order.
func (m Message) Buttons() []Button {
	var out []Button
	for i, c := range m.Components {
		row, ok := asRow(c)
		if !ok {
			continue
		}
		for j, cc := range row.Components {
			if b, ok := asButton(cc); ok {
				out = append(out, Button{Button: b, Row: i, Col: j})
			}
		}
	}
	return out
}

// Button returns the button with the given custom_id.
func (m Message) Button(customID string) (Button, bool) {
	for _, b := range m.Buttons() {
		if b.CustomID == customID {
			return b, true
		}
	}
	return Button{}, false
}

// SelectMenus returns the message's select menus in reading order, each
// with Row, the index of its action row.
func (m Message) SelectMenus() []SelectMenu {
	var out []SelectMenu
	for i, c := range m.Components {
		row, ok := asRow(c)
		if !ok {
			continue
		}
		for _, cc := range row.Components {
			switch s := cc.(type) {
			case *discordgo.SelectMenu:
				out = append(out, SelectMenu{SelectMenu: *s, Row: i})
			case discordgo.SelectMenu:
				out = append(out, SelectMenu{SelectMenu: s, Row: i})
			}
		}
	}
	return out
}

// SelectMenu is a select menu of a message with the index of its action
// row.
type SelectMenu struct {
	discordgo.SelectMenu
	Row int
}

func asRow(c discordgo.MessageComponent) (discordgo.ActionsRow, bool) {
	switch r := c.(type) {
	case *discordgo.ActionsRow:
		return *r, true
	case discordgo.ActionsRow:
		return r, true
	}
	return discordgo.ActionsRow{}, false
}

func asButton(c discordgo.MessageComponent) (discordgo.Button, bool) {
	switch b := c.(type) {
	case *discordgo.Button:
		return *b, true
	case discordgo.Button:
		return b, true
	}
	return discordgo.Button{}, false
}

// attachment is a file sent with a message; only its metadata is kept.
type attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	Size        int    `json:"size"`
	ContentType string `json:"content_type,omitempty"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url"`
}

// message is a stored message. It is guarded by Server.mu.
type message struct {
	id, channelID string
	typ           int
	content       string
	embeds        json.RawMessage // a JSON array
	components    json.RawMessage // a JSON array
	attachments   []attachment
	hasPoll       bool
	flags         int
	tts           bool
	created       time.Time
	edited        time.Time // zero if never edited
	edits         int
	deleted       bool
	webhook       bool              // created through an interaction webhook
	interaction   *interactionState // that created it, or nil
	visibleTo     string            // for an ephemeral message, the user who sees it
	nonce         string            // sent with the create, "" for none
}

// fields are the message fields of a create or edit body. For each field,
// has* tells whether the key was present; a null value clears the field.
type fields struct {
	hasContent, hasEmbeds, hasComponents, hasFlags, hasPoll bool

	content     string
	embeds      json.RawMessage
	components  json.RawMessage
	flags       int
	tts         bool
	attachments []attachment // files of a multipart body
	// keep, when hasKeep, are the ids of the attachments an edit retains;
	// without it an edit keeps them all and adds its files.
	hasKeep bool
	keep    []string
}

var emptyArray = json.RawMessage("[]")

// parseFields decodes the message fields of a JSON object (null or empty
// means no fields). The errors are paths under prefix.
func parseFields(prefix string, raw json.RawMessage) (fields, []fieldError) {
	var f fields
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return f, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return f, []fieldError{{strings.TrimSuffix(prefix, "."), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"}}
	}
	var errs []fieldError
	if v, ok := obj["content"]; ok {
		f.hasContent = true
		if !isNull(v) && json.Unmarshal(v, &f.content) != nil {
			errs = append(errs, fieldError{prefix + "content", "BASE_TYPE_STRING", "Could not interpret " + string(v) + " as string."})
		}
	}
	array := func(key string, dst *json.RawMessage, has *bool) {
		v, ok := obj[key]
		if !ok {
			return
		}
		*has = true
		*dst = emptyArray
		if isNull(v) {
			return
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			errs = append(errs, fieldError{prefix + key, "BASE_TYPE_ARRAY", "Must be an array."})
			return
		}
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			*dst = b.Bytes()
		}
	}
	array("embeds", &f.embeds, &f.hasEmbeds)
	array("components", &f.components, &f.hasComponents)
	if v, ok := obj["flags"]; ok && !isNull(v) {
		f.hasFlags = true
		if json.Unmarshal(v, &f.flags) != nil {
			errs = append(errs, fieldError{prefix + "flags", "NUMBER_TYPE_COERCE", "Value \"" + string(v) + "\" is not int."})
		}
	}
	if v, ok := obj["tts"]; ok && !isNull(v) {
		_ = json.Unmarshal(v, &f.tts)
	}
	if v, ok := obj["poll"]; ok && !isNull(v) {
		f.hasPoll = true
	}
	if v, ok := obj["attachments"]; ok {
		f.hasKeep = true
		var atts []struct {
			ID json.RawMessage `json:"id"`
		}
		if !isNull(v) && json.Unmarshal(v, &atts) != nil {
			errs = append(errs, fieldError{prefix + "attachments", "BASE_TYPE_ARRAY", "Must be an array."})
		}
		for _, a := range atts {
			var id string
			if json.Unmarshal(a.ID, &id) != nil {
				id = string(a.ID) // a number: the index of a new file
			}
			f.keep = append(f.keep, id)
		}
	}
	return f, errs
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// newMessage returns a message made of f (not yet stored).
func (s *Server) newMessage(channelID string, f fields) *message {
	m := &message{
		id:          s.NewID(),
		channelID:   channelID,
		content:     f.content,
		embeds:      emptyArray,
		components:  emptyArray,
		attachments: f.attachments,
		hasPoll:     f.hasPoll,
		flags:       f.flags,
		tts:         f.tts,
		created:     time.Now(),
	}
	if f.hasEmbeds {
		m.embeds = f.embeds
	}
	if f.hasComponents {
		m.components = f.components
	}
	return m
}

// patched returns a copy of m with f applied like Discord's PATCH: absent
// fields keep their value, present ones replace it. Flags other than
// SUPPRESS_EMBEDS cannot change on an edit.
func (m *message) patched(f fields) *message {
	n := *m
	if f.hasContent {
		n.content = f.content
	}
	if f.hasEmbeds {
		n.embeds = f.embeds
	}
	if f.hasComponents {
		n.components = f.components
	}
	if f.hasFlags {
		const suppressEmbeds = int(discordgo.MessageFlagsSuppressEmbeds)
		n.flags = n.flags&^suppressEmbeds | f.flags&suppressEmbeds
	}
	// Like Discord: an attachments array names what stays (old ones by
	// id; new files by their index, and they are always added).
	n.attachments = nil
	for _, a := range m.attachments {
		if !f.hasKeep || slices.Contains(f.keep, a.ID) {
			n.attachments = append(n.attachments, a)
		}
	}
	n.attachments = append(n.attachments, f.attachments...)
	if f.hasPoll {
		n.hasPoll = true
	}
	n.flags &^= int(discordgo.MessageFlagsLoading)
	return &n
}

// storeLocked adds a new message to the store and, unless it is ephemeral,
// to its channel.
func (s *Server) storeLocked(m *message) {
	s.messages[m.id] = m
	if m.visibleTo == "" {
		s.channels[m.channelID] = append(s.channels[m.channelID], m.id)
		s.history[m.channelID] = append(s.history[m.channelID], m.id)
	}
	s.broadcastLocked()
}

// replaceLocked stores n as the edited version of the message with its ID.
func (s *Server) replaceLocked(n *message) {
	n.edits++
	n.edited = time.Now()
	s.messages[n.id] = n
	s.broadcastLocked()
}

func (s *Server) deleteLocked(m *message) {
	m.deleted = true
	ids := s.channels[m.channelID]
	for i, id := range ids {
		if id == m.id {
			s.channels[m.channelID] = append(ids[:i:i], ids[i+1:]...)
			break
		}
	}
	s.broadcastLocked()
}

// render returns the message as Discord's JSON object.
func (s *Server) render(m *message) map[string]any {
	var edited any
	if !m.edited.IsZero() {
		edited = timestamp(m.edited)
	}
	atts := m.attachments
	if atts == nil {
		atts = []attachment{}
	}
	out := map[string]any{
		"id":               m.id,
		"type":             m.typ,
		"content":          m.content,
		"channel_id":       m.channelID,
		"author":           renderUser(s.BotUser),
		"attachments":      atts,
		"embeds":           m.embeds,
		"mentions":         []any{},
		"mention_roles":    []any{},
		"mention_everyone": false,
		"pinned":           false,
		"tts":              m.tts,
		"timestamp":        timestamp(m.created),
		"edited_timestamp": edited,
		"flags":            m.flags,
		"components":       m.components,
	}
	if m.nonce != "" {
		out["nonce"] = m.nonce
	}
	if m.webhook {
		out["webhook_id"] = s.AppID
		out["application_id"] = s.AppID
	}
	if st := m.interaction; st != nil {
		md := map[string]any{
			"id":                             st.id,
			"type":                           int(st.kind),
			"user":                           renderUser(st.user),
			"authorizing_integration_owners": st.owners(),
		}
		if st.componentMsgID != "" {
			md["interacted_message_id"] = st.componentMsgID
		}
		out["interaction_metadata"] = md
	}
	return out
}

// snapshot decodes the rendered message the way the bot would.
func (s *Server) snapshot(m *message) Message {
	b, err := json.Marshal(s.render(m))
	if err != nil {
		panic(fmt.Sprintf("discordtest: rendering message: %v", err)) // the fake's own bug
	}
	var out Message
	// A component type discordgo does not know fails here; keep the rest.
	_ = json.Unmarshal(b, &out.Message)
	out.Edits, out.Deleted, out.Nonce = m.edits, m.deleted, m.nonce
	if m.interaction != nil {
		out.InteractionID = m.interaction.id
	}
	return out
}

// Messages returns the messages visible to everyone in the channel, oldest
// first: no ephemeral messages, no deleted ones.
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messagesLocked(channelID)
}

func (s *Server) messagesLocked(channelID string) []Message {
	ids := s.channels[channelID]
	out := make([]Message, 0, len(ids))
	for _, id := range ids {
		out = append(out, s.snapshot(s.messages[id]))
	}
	return out
}

// History returns every message created in the channel that everyone
// sees, oldest first, the deleted ones too (Message.Deleted): what the
// channel's members may have been notified of.
func (s *Server) History(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.history[channelID]
	out := make([]Message, 0, len(ids))
	for _, id := range ids {
		out = append(out, s.snapshot(s.messages[id]))
	}
	return out
}

// Message returns the message with the given ID in the channel, ephemeral
// ones included (see Message.Ephemeral); deleted messages are not found.
func (s *Server) Message(channelID, id string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[id]
	if m == nil || m.deleted || m.channelID != channelID {
		return Message{}, false
	}
	return s.snapshot(m), true
}

// WaitMessages blocks until the channel shows at least n messages and
// returns them, oldest first.
func (s *Server) WaitMessages(ctx context.Context, channelID string, n int) ([]Message, error) {
	var out []Message
	err := s.waitUntil(ctx, func() (bool, error) {
		if len(s.channels[channelID]) < n {
			return false, nil
		}
		out = s.messagesLocked(channelID)
		return true, nil
	})
	return out, err
}

// WaitMessageEdit blocks until the message has been edited more than after
// times (Message.Edits > after) and returns it. It fails with
// ErrUnknownMessage if the message is deleted; a message that does not
// exist yet is waited for.
func (s *Server) WaitMessageEdit(ctx context.Context, channelID, messageID string, after int) (Message, error) {
	var out Message
	err := s.waitUntil(ctx, func() (bool, error) {
		m := s.messages[messageID]
		switch {
		case m == nil:
			return false, nil
		case m.deleted || m.channelID != channelID:
			return false, fmt.Errorf("%w: %s in channel %s", ErrUnknownMessage, messageID, channelID)
		case m.edits <= after:
			return false, nil
		}
		out = s.snapshot(m)
		return true, nil
	})
	return out, err
}

// WaitMessageGone blocks until the message is deleted (or never existed in
// the channel).
func (s *Server) WaitMessageGone(ctx context.Context, channelID, messageID string) error {
	return s.waitUntil(ctx, func() (bool, error) {
		m := s.messages[messageID]
		return m == nil || m.deleted || m.channelID != channelID, nil
	})
}

// renderUser returns a user as Discord sends it in interactions and messages.
func renderUser(u *discordgo.User) map[string]any {
	if u == nil {
		return nil
	}
	out := map[string]any{
		"id":            u.ID,
		"username":      u.Username,
		"avatar":        nullable(u.Avatar),
		"discriminator": cmpOr(u.Discriminator, "0"),
		"public_flags":  int(u.PublicFlags),
		"global_name":   nullable(u.GlobalName),
	}
	if u.Bot {
		out["bot"] = true
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// joinedAt is the join time of every member: the fake has no history.
var joinedAt = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// renderMember returns a member as Discord sends it; a partial member (in
// resolved data) has no user, deaf or mute.
func renderMember(m Member, partial bool) map[string]any {
	roles := m.Roles
	if roles == nil {
		roles = []string{}
	}
	out := map[string]any{
		"roles":         roles,
		"premium_since": nil,
		"permissions":   strconv.FormatInt(m.Permissions, 10),
		"pending":       false,
		"nick":          nullable(m.Nick),
		"joined_at":     timestamp(joinedAt),
		"is_pending":    false,
		"avatar":        nil,
		"flags":         0,
	}
	if !partial {
		out["user"] = renderUser(m.User)
		out["mute"] = false
		out["deaf"] = false
	}
	return out
}
