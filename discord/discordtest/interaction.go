package discordtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// appPermissions are the bot's permissions in every channel, as sent in
// app_permissions.
const appPermissions = DefaultPermissions | discordgo.PermissionManageMessages

// userInstallPermissions are the app_permissions of a user-installed app in
// a guild that has no bot of it: it can answer, and nothing in the channel.
const userInstallPermissions = discordgo.PermissionSendMessages | discordgo.PermissionEmbedLinks |
	discordgo.PermissionAttachFiles | discordgo.PermissionUseExternalEmojis

// attachmentSizeLimit is the attachment_size_limit of every interaction.
const attachmentSizeLimit = 10 << 20

// Member is the Discord user who acts in an interaction, with the
// permissions Discord computes for them in the channel. The zero Member
// has no user and cannot be sent.
type Member struct {
	User        *discordgo.User
	Permissions int64
	Roles       []string
	Nick        string
}

// Option is a value a user gave to a slash command, built with Sub, Group,
// Int, Num, Str, Bool or User.
type Option struct {
	Name    string
	Type    discordgo.ApplicationCommandOptionType
	Value   any      // int64, float64, string or bool; a user ID for User
	Options []Option // of a subcommand or group
	Member  *Member  // the user of a User option
	// Focused marks the option an autocomplete is for (see Focused).
	Focused bool
}

// Sub is a subcommand with its options, e.g. Sub("move", Int("row", 2), Int("col", 3)).
func Sub(name string, options ...Option) Option {
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionSubCommand, Options: options}
}

// Group is a subcommand group holding one subcommand.
func Group(name string, sub Option) Option {
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionSubCommandGroup, Options: []Option{sub}}
}

// Int is an INTEGER option.
func Int(name string, v int64) Option {
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionInteger, Value: v}
}

// Num is a NUMBER option.
func Num(name string, v float64) Option {
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionNumber, Value: v}
}

// Str is a STRING option.
func Str(name, v string) Option {
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
}

// Bool is a BOOLEAN option.
func Bool(name string, v bool) Option {
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionBoolean, Value: v}
}

// User is a USER option: its value is the user's ID, and the user (and, in
// a guild, the partial member) appear in data.resolved as Discord sends them.
func User(name string, m Member) Option {
	id := ""
	if m.User != nil {
		id = m.User.ID
	}
	return Option{Name: name, Type: discordgo.ApplicationCommandOptionUser, Value: id, Member: &m}
}

// Interaction is an interaction a test makes a user start, built by
// SlashCommand or Click and dispatched by Send. Set its exported fields
// before Send, read them after; it is not safe to change it concurrently
// with Send.
type Interaction struct {
	Type      discordgo.InteractionType
	GuildID   string // "" for a DM with the bot
	ChannelID string
	Member    Member
	Locale    discordgo.Locale // the user's locale, default "en-US"
	// GuildLocale is the guild's locale, for an interaction in a guild;
	// default "en-US".
	GuildLocale discordgo.Locale
	// GroupDM makes an interaction outside a guild come from a group DM
	// (context PRIVATE_CHANNEL), not from a DM with the bot; only a user
	// install reaches group DMs.
	GroupDM bool
	// UserInstall says the app was installed by the user, not by the
	// guild: the interaction's authorizing_integration_owners name the user,
	// and in a guild the app has no bot there.
	UserInstall bool

	Name    string   // command name, for a slash command
	Options []Option // for a slash command

	MessageID string // the message clicked, for a component
	CustomID  string // the custom_id clicked, for a component
	// Values are the values chosen in a select menu (see Select); nil for
	// a button.
	Values []string
	// Fields are the values typed into a modal, by the custom_id of its
	// text inputs (see SubmitModal).
	Fields map[string]string
	from   *Interaction // answered with the modal that this one submits
	// Extra are fields of the INTERACTION_CREATE payload set over the
	// ones built, to send what Discord may send and a client library may
	// not know (a component type added since, in the clicked message).
	Extra map[string]any

	// Set by Send.
	ID    string
	Token string
	AppID string

	srv       *Server
	unchecked bool
	noMessage bool              // a modal submit without its component's message
	st        *interactionState // guarded by srv.mu
	sending   bool              // guarded by srv.mu

	entryPoint bool // the app's entry point command (EntryPointCommand), not /Name
}

// SlashCommand builds the interaction of member using /name with options in
// the channel. Send checks that the command is registered (in the guild or
// globally) and that the options fit its schema, as a Discord client would.
func (s *Server) SlashCommand(guildID, channelID string, member Member, name string, options ...Option) *Interaction {
	return &Interaction{
		Type:      discordgo.InteractionApplicationCommand,
		GuildID:   guildID,
		ChannelID: channelID,
		Member:    member,
		Locale:    discordgo.EnglishUS,
		Name:      name,
		Options:   options,
		srv:       s,
	}
}

// Click builds the interaction of member clicking the button with customID
// on the message. Send checks that the message is in the channel and visible
// to the member and that it has an enabled button with that custom_id; the
// interaction carries the message as stored at Send.
func (s *Server) Click(guildID, channelID string, member Member, messageID, customID string) *Interaction {
	return &Interaction{
		Type:      discordgo.InteractionMessageComponent,
		GuildID:   guildID,
		ChannelID: channelID,
		Member:    member,
		Locale:    discordgo.EnglishUS,
		MessageID: messageID,
		CustomID:  customID,
		srv:       s,
	}
}

// Unchecked makes Send skip the checks a Discord client makes (command
// registered, options fit the schema, button present and enabled), to model
// a client with a stale view: an old command after re-registration, or a
// click on a button that another user's click just disabled. It returns in.
func (in *Interaction) Unchecked() *Interaction {
	in.unchecked = true
	return in
}

// WithoutMessage makes a modal submit come without the message of the
// component that opened the modal, as a modal opened by a command does,
// or one that a hostile client crafts: there is then no message to
// update (UPDATE_MESSAGE is refused). It returns in.
func (in *Interaction) WithoutMessage() *Interaction {
	in.noMessage = true
	return in
}

// MarshalJSON returns the INTERACTION_CREATE payload: the one dispatched if
// the interaction was sent, else the one it would have now (with empty id
// and token).
func (in *Interaction) MarshalJSON() ([]byte, error) {
	s := in.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if in.st != nil {
		return in.st.payload, nil
	}
	p, _, err := s.buildLocked(in, in.ID, in.Token)
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// interactionState is the server's side of an interaction, guarded by
// Server.mu.
type interactionState struct {
	id, token      string
	kind           discordgo.InteractionType
	guildID        string
	channelID      string
	user           *discordgo.User
	componentMsgID string // the message clicked, for a component, or of the component that opened a submitted modal
	userInstall    bool
	modal          *Modal                                 // the MODAL the interaction was answered with
	focusedType    discordgo.ApplicationCommandOptionType // of the focused option, for an autocomplete
	payload        []byte

	dispatched time.Time
	deadline   time.Duration
	ttl        time.Duration
	timer      *time.Timer

	acked, failed bool
	expired       bool // set by ExpireTokens: the token no longer works
	// posting: the interaction went to the bot's endpoint and its answer,
	// the HTTP response, has not been taken yet. A webhook request on its
	// token waits for it: the bot sends those after its answer, and Discord
	// takes the answer when the response arrives.
	posting  bool
	done     chan struct{} // closed when acked or failed
	resp     Response
	rejected []string // callbacks answered 4xx, for the failure message

	originalID string   // the @original message, once there is one
	followups  []string // followup message IDs, oldest first
}

func (st *interactionState) owners() map[string]string {
	switch {
	case st.userInstall:
		return map[string]string{"1": st.user.ID}
	case st.guildID == "":
		return map[string]string{"0": "0"}
	}
	return map[string]string{"0": st.guildID}
}

// contextOf is where in takes place: a guild, a DM with the bot, or a
// group DM.
func contextOf(in *Interaction) discordgo.InteractionContextType {
	switch {
	case in.GuildID != "":
		return discordgo.InteractionContextGuild
	case in.GroupDM:
		return discordgo.InteractionContextPrivateChannel
	}
	return discordgo.InteractionContextBotDM
}

// Send assigns the interaction its ID, token and application ID and
// dispatches it as INTERACTION_CREATE on the gateway connection of its
// guild's shard, waiting for one to be ready if needed, or, after
// UseEndpoint, posts it to the bot's interactions endpoint. The
// AckDeadline starts now.
func (s *Server) Send(ctx context.Context, in *Interaction) error {
	if in == nil || in.srv != s {
		return errors.New("discordtest: interaction not built by this server")
	}
	id, token := s.NewID(), randomString(48)
	s.mu.Lock()
	if s.isClosed {
		s.mu.Unlock()
		return ErrClosed
	}
	if in.st != nil || in.sending {
		s.mu.Unlock()
		return ErrAlreadySent
	}
	p, st, err := s.buildLocked(in, id, token)
	if err == nil {
		st.payload, err = json.Marshal(p)
	}
	if err != nil {
		s.mu.Unlock()
		return err
	}
	in.sending = true
	viaEndpoint := s.endpoint.url != ""
	s.mu.Unlock()

	var c *conn
	if !viaEndpoint {
		c, err = s.waitConn(ctx, in.GuildID)
	}
	s.mu.Lock()
	in.sending = false
	if err == nil && s.isClosed {
		err = ErrClosed
	}
	if err != nil {
		s.mu.Unlock()
		return fmt.Errorf("discordtest: no gateway connection for guild %q: %w", in.GuildID, err)
	}
	in.ID, in.Token, in.AppID = id, token, s.AppID
	in.st = st
	s.interactions[id] = st
	s.tokens[token] = st
	st.deadline = orDefault(s.AckDeadline, DefaultAckDeadline)
	st.ttl = orDefault(s.TokenTTL, DefaultTokenTTL)
	st.dispatched = time.Now()
	st.timer = time.AfterFunc(st.deadline, func() { s.expire(st) })
	s.broadcastLocked()
	if viaEndpoint {
		s.wg.Add(1) // Close waits for the delivery
		st.posting = true
		go s.post(st)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()

	if err := c.dispatch("INTERACTION_CREATE", json.RawMessage(st.payload)); err != nil {
		s.mu.Lock()
		s.failLocked(st)
		s.mu.Unlock()
		return fmt.Errorf("discordtest: dispatching interaction: %w", err)
	}
	return nil
}

// expire fails the interaction if it is still unacknowledged.
func (s *Server) expire(st *interactionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !st.acked {
		s.failLocked(st)
	}
}

// ExpireTokens ends the life of every interaction token issued so far,
// as if TokenTTL had passed since each was dispatched: from now on the
// webhook routes answer them 401 50027, as Discord does after 15 minutes,
// while the messages they made stay, and the bot's own token can still
// edit and delete them on the channel routes. Interactions sent later get
// tokens of their own that work. A test calls it to move Discord's side of
// time forward without waiting.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.tokens {
		st.expired = true
	}
	s.broadcastLocked()
}

func (s *Server) failLocked(st *interactionState) {
	if st.failed || st.acked {
		return
	}
	st.failed = true
	if st.timer != nil {
		st.timer.Stop()
	}
	close(st.done)
	s.broadcastLocked()
}

// Response is the bot's first valid callback to an interaction.
type Response struct {
	Type discordgo.InteractionResponseType
	// Message is the message the callback created or edited, as it was
	// right after the callback: the new message for
	// CHANNEL_MESSAGE_WITH_SOURCE, the loading placeholder for DEFERRED_
	// CHANNEL_MESSAGE_WITH_SOURCE, the clicked message for UPDATE_MESSAGE and
	// DEFERRED_UPDATE_MESSAGE; empty for MODAL and LAUNCH_ACTIVITY.
	Message Message
	// Ephemeral tells whether Message is visible only to the user.
	Ephemeral bool
	// At is the time from dispatch to the callback.
	At time.Duration
	// Data is the callback's "data" as the bot sent it (null if none).
	Data json.RawMessage
	// Modal is the modal of a MODAL callback, and Choices the choices of an
	// APPLICATION_COMMAND_AUTOCOMPLETE_RESULT (never nil then).
	Modal   *Modal
	Choices []Choice
}

// Response blocks until the bot answered the interaction with a valid
// callback, or the AckDeadline passed without one: then it returns an error
// wrapping ErrInteractionFailed, such as "interaction failed: no response
// within 3s", followed by the callbacks that were rejected, if any.
func (in *Interaction) Response(ctx context.Context) (*Response, error) {
	s := in.srv
	s.mu.Lock()
	st := in.st
	s.mu.Unlock()
	if st == nil {
		return nil, errors.New("discordtest: interaction not sent")
	}
	select {
	case <-st.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closed:
		return nil, ErrClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.failed {
		err := fmt.Errorf("%w: no response within %v", ErrInteractionFailed, st.deadline)
		if len(st.rejected) > 0 {
			err = fmt.Errorf("%w; rejected callbacks: %s", err, strings.Join(st.rejected, "; "))
		}
		return nil, err
	}
	r := st.resp
	return &r, nil
}

// Original returns the interaction's @original message in its current
// state: the response message, or for a component answered with
// (DEFERRED_)UPDATE_MESSAGE the clicked message.
func (s *Server) Original(in *Interaction) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := in.st
	if st == nil || st.originalID == "" {
		return Message{}, false
	}
	m := s.messages[st.originalID]
	if m == nil || m.deleted {
		return Message{}, false
	}
	return s.snapshot(m), true
}

// Followups returns the followup messages of the interaction in their
// current state, oldest first, ephemeral ones included and deleted ones not.
func (s *Server) Followups(in *Interaction) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.followupsLocked(in)
}

func (s *Server) followupsLocked(in *Interaction) []Message {
	var out []Message
	if in.st == nil {
		return out
	}
	for _, id := range in.st.followups {
		if m := s.messages[id]; m != nil && !m.deleted {
			out = append(out, s.snapshot(m))
		}
	}
	return out
}

// WaitFollowups blocks until the interaction has at least n followups and
// returns them.
func (s *Server) WaitFollowups(ctx context.Context, in *Interaction, n int) ([]Message, error) {
	var out []Message
	err := s.waitUntil(ctx, func() (bool, error) {
		out = s.followupsLocked(in)
		return len(out) >= n, nil
	})
	return out, err
}

// buildLocked validates in and returns its INTERACTION_CREATE payload and
// the server state to keep for it.
func (s *Server) buildLocked(in *Interaction, id, token string) (map[string]any, *interactionState, error) {
	if in.Member.User == nil || in.Member.User.ID == "" {
		return nil, nil, errors.New("discordtest: interaction member has no user")
	}
	if in.ChannelID == "" {
		return nil, nil, errors.New("discordtest: interaction has no channel")
	}
	ctxType := contextOf(in)
	if ctxType == discordgo.InteractionContextPrivateChannel && !in.UserInstall {
		return nil, nil, errors.New("discordtest: only a user install reaches a group DM")
	}
	st := &interactionState{
		id:          id,
		token:       token,
		kind:        in.Type,
		guildID:     in.GuildID,
		channelID:   in.ChannelID,
		user:        in.Member.User,
		userInstall: in.UserInstall,
		done:        make(chan struct{}),
	}
	channel := map[string]any{"id": in.ChannelID, "type": int(discordgo.ChannelTypeGuildText)}
	switch ctxType {
	case discordgo.InteractionContextBotDM:
		channel["type"] = int(discordgo.ChannelTypeDM)
	case discordgo.InteractionContextPrivateChannel:
		channel["type"] = int(discordgo.ChannelTypeGroupDM)
	default:
		channel["guild_id"] = in.GuildID
	}
	perms := int64(appPermissions)
	if in.UserInstall && in.GuildID != "" {
		perms = userInstallPermissions // no bot in the guild: what any user app may do
	}
	p := map[string]any{
		"id":                             id,
		"application_id":                 s.AppID,
		"type":                           int(in.Type),
		"token":                          token,
		"version":                        1,
		"channel_id":                     in.ChannelID,
		"channel":                        channel,
		"app_permissions":                strconv.FormatInt(perms, 10),
		"locale":                         cmpOr(string(in.Locale), string(discordgo.EnglishUS)),
		"entitlements":                   []any{},
		"authorizing_integration_owners": st.owners(),
		"context":                        int(ctxType),
		"attachment_size_limit":          attachmentSizeLimit,
	}
	if in.GuildID != "" {
		p["guild_id"] = in.GuildID
		p["guild_locale"] = cmpOr(string(in.GuildLocale), string(discordgo.EnglishUS))
		p["member"] = renderMember(in.Member, false)
	} else {
		p["user"] = renderUser(in.Member.User)
	}

	switch in.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		data, focused, err := s.commandDataLocked(in)
		if err != nil {
			return nil, nil, err
		}
		st.focusedType = focused
		p["data"] = data
	case discordgo.InteractionMessageComponent:
		m := s.messages[in.MessageID]
		if m == nil || m.deleted || m.channelID != in.ChannelID ||
			(m.visibleTo != "" && m.visibleTo != in.Member.User.ID) {
			return nil, nil, fmt.Errorf("%w: %s in channel %s", ErrUnknownMessage, in.MessageID, in.ChannelID)
		}
		data := map[string]any{"custom_id": in.CustomID, "component_type": int(discordgo.ButtonComponent)}
		if in.Values != nil {
			sel, ok := findSelect(m.components, in.CustomID)
			if !in.unchecked && !ok {
				return nil, nil, fmt.Errorf("%w: %q on message %s", ErrUnknownComponent, in.CustomID, in.MessageID)
			}
			if !in.unchecked {
				if err := checkSelected(sel, in.Values); err != nil {
					return nil, nil, err
				}
			}
			data["component_type"], data["values"] = int(discordgo.SelectMenuComponent), in.Values
		} else if !in.unchecked && !hasEnabledComponent(m.components, in.CustomID) {
			return nil, nil, fmt.Errorf("%w: %q on message %s", ErrUnknownComponent, in.CustomID, in.MessageID)
		}
		st.componentMsgID = m.id
		p["data"] = data
		p["message"] = s.render(m)
	case discordgo.InteractionModalSubmit:
		var from *interactionState
		if in.from != nil {
			from = in.from.st
		}
		if from == nil || from.modal == nil {
			return nil, nil, ErrNoModal
		}
		if !in.unchecked {
			if err := checkSubmitted(from.modal, in.Fields); err != nil {
				return nil, nil, err
			}
		}
		p["data"] = submitData(from.modal, in.Fields)
		if id := from.componentMsgID; id != "" && !in.noMessage {
			// A modal opened from a component carries its message.
			m := s.messages[id]
			if m == nil || m.deleted {
				return nil, nil, fmt.Errorf("%w: %s in channel %s", ErrUnknownMessage, id, in.ChannelID)
			}
			st.componentMsgID = m.id
			p["message"] = s.render(m)
		}
	default:
		return nil, nil, fmt.Errorf("discordtest: cannot send interactions of type %v", in.Type)
	}
	for k, v := range in.Extra {
		p[k] = v
	}
	return p, st, nil
}

// hasEnabledComponent reports whether the components hold an enabled
// button with the custom_id, at any depth.
func hasEnabledComponent(raw json.RawMessage, customID string) bool {
	return findEnabled(raw, componentButton, customID) != nil
}

// findEnabled returns the enabled component of type typ with customID in
// the components raw, searched in rows and section accessories, or nil.
func findEnabled(raw json.RawMessage, typ int, customID string) *rawComponent {
	var comps []rawComponent
	if json.Unmarshal(raw, &comps) != nil {
		return nil
	}
	var walk func([]rawComponent) *rawComponent
	walk = func(cs []rawComponent) *rawComponent {
		for i := range cs {
			c := &cs[i]
			if c.Type == typ && c.CustomID != nil && *c.CustomID == customID && !c.Disabled {
				return c
			}
			if f := walk(c.Components); f != nil {
				return f
			}
			if c.Accessory != nil {
				if f := walk([]rawComponent{*c.Accessory}); f != nil {
					return f
				}
			}
		}
		return nil
	}
	return walk(comps)
}

// commandDataLocked returns the data of a slash command interaction, or of
// an autocomplete with the type of its focused option.
func (s *Server) commandDataLocked(in *Interaction) (map[string]any, discordgo.ApplicationCommandOptionType, error) {
	if in.entryPoint {
		data, err := s.entryPointDataLocked(in)
		return data, 0, err
	}
	scopes := []string{""}
	if in.GuildID != "" {
		scopes = []string{in.GuildID, ""} // Discord shows both; prefer the guild's
	}
	var cmd *discordgo.ApplicationCommand
	var focused discordgo.ApplicationCommandOptionType
	scope := ""
	for _, g := range scopes {
		if cmd = s.findCommandLocked(g, in.Name); cmd != nil {
			scope = g
			break
		}
	}
	data := map[string]any{"name": in.Name, "type": int(discordgo.ChatApplicationCommand)}
	switch {
	case cmd != nil:
		data["id"] = cmd.ID
		if scope != "" {
			data["guild_id"] = scope
		}
		if !in.unchecked {
			if err := usableIn(cmd, scope, in); err != nil {
				return nil, 0, err
			}
			auto := in.Type == discordgo.InteractionApplicationCommandAutocomplete
			if err := checkOptions("/"+in.Name, cmd.Options, in.Options, auto); err != nil {
				return nil, 0, err
			}
			if auto {
				o, err := focusedOption("/"+in.Name, cmd.Options, in.Options)
				if err != nil {
					return nil, 0, err
				}
				focused = o.Type
			}
		}
	case in.unchecked:
		data["id"] = s.NewID()
	default:
		return nil, 0, fmt.Errorf("%w: /%s in guild %q", ErrUnknownCommand, in.Name, in.GuildID)
	}
	if in.unchecked {
		focused = discordgo.ApplicationCommandOptionInteger
	}
	res := resolved{guild: in.GuildID != ""}
	if len(in.Options) > 0 {
		opts := in.Options
		if cmd != nil {
			opts = typedFocus(cmd.Options, opts)
		}
		data["options"] = renderOptions(opts, &res)
	}
	if len(res.users) > 0 {
		r := map[string]any{"users": res.users}
		if res.guild {
			r["members"] = res.members
		}
		data["resolved"] = r
	}
	return data, focused, nil
}

// usableIn reports, as a Discord client would by not offering it, a command
// that cannot be used where in takes place: a global command lists the
// contexts and the installation types it is available in (by default every
// context, and guild installs only); a guild command is used in its guild.
func usableIn(cmd *discordgo.ApplicationCommand, scope string, in *Interaction) error {
	if scope != "" {
		return nil
	}
	ctxType := contextOf(in)
	if cmd.Contexts != nil && !slices.Contains(*cmd.Contexts, ctxType) {
		return fmt.Errorf("%w: /%s is not offered in context %d", ErrUnknownCommand, in.Name, ctxType)
	}
	install := discordgo.ApplicationIntegrationGuildInstall
	if in.UserInstall {
		install = discordgo.ApplicationIntegrationUserInstall
	}
	types := []discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall}
	if cmd.IntegrationTypes != nil {
		types = *cmd.IntegrationTypes
	}
	if !slices.Contains(types, install) {
		return fmt.Errorf("%w: /%s is not offered to a %s install", ErrUnknownCommand, in.Name, map[bool]string{true: "user", false: "guild"}[in.UserInstall])
	}
	return nil
}

// resolved collects data.resolved of a slash command.
type resolved struct {
	guild   bool
	users   map[string]any
	members map[string]any
}

func renderOptions(opts []Option, res *resolved) []any {
	out := make([]any, 0, len(opts))
	for _, o := range opts {
		m := map[string]any{"name": o.Name, "type": int(o.Type)}
		if o.Focused {
			m["focused"] = true
		}
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
			m["options"] = renderOptions(o.Options, res)
		default:
			m["value"] = o.Value
		}
		if o.Type == discordgo.ApplicationCommandOptionUser && o.Member != nil && o.Member.User != nil {
			if res.users == nil {
				res.users, res.members = map[string]any{}, map[string]any{}
			}
			res.users[o.Member.User.ID] = renderUser(o.Member.User)
			res.members[o.Member.User.ID] = renderMember(*o.Member, true)
		}
		out = append(out, m)
	}
	return out
}

// checkOptions checks given options against a command's schema the way a
// Discord client enforces it; in an autocomplete (auto), required options
// may be missing, and the focused one, typed so far, is not checked.
func checkOptions(path string, schema []*discordgo.ApplicationCommandOption, given []Option, auto bool) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadOption, path, fmt.Sprintf(format, args...))
	}
	isSub := func(t discordgo.ApplicationCommandOptionType) bool {
		return t == discordgo.ApplicationCommandOptionSubCommand || t == discordgo.ApplicationCommandOptionSubCommandGroup
	}
	byName := map[string]*discordgo.ApplicationCommandOption{}
	hasSubs := false
	for _, o := range schema {
		if o != nil {
			byName[o.Name] = o
			hasSubs = hasSubs || isSub(o.Type)
		}
	}
	if hasSubs {
		if len(given) != 1 || !isSub(given[0].Type) {
			return bad("exactly one subcommand is required")
		}
		g := given[0]
		o := byName[g.Name]
		if o == nil || o.Type != g.Type {
			return bad("no subcommand or group %q", g.Name)
		}
		return checkOptions(path+" "+g.Name, o.Options, g.Options, auto)
	}
	seen := map[string]bool{}
	for _, g := range given {
		o := byName[g.Name]
		switch {
		case o == nil:
			return bad("no option %q", g.Name)
		case seen[g.Name]:
			return bad("option %q given twice", g.Name)
		case g.Focused && !auto:
			return bad("option %q is focused outside an autocomplete", g.Name)
		case g.Focused:
			if _, ok := g.Value.(string); !ok || !o.Autocomplete {
				return bad("option %q does not autocomplete, or its typed value is not a string", g.Name)
			}
			seen[g.Name] = true
			continue
		case o.Type != g.Type:
			return bad("option %q is of type %v, not %v", g.Name, o.Type, g.Type)
		}
		seen[g.Name] = true
		if err := checkValue(o, g); err != nil {
			return bad("option %q: %v", g.Name, err)
		}
	}
	for _, o := range schema {
		if o != nil && o.Required && !seen[o.Name] && !auto {
			return bad("required option %q missing", o.Name)
		}
	}
	return nil
}

// checkValue checks a value against the option's choices and bounds.
func checkValue(o *discordgo.ApplicationCommandOption, g Option) error {
	var num float64
	isNum := false
	switch v := g.Value.(type) {
	case int64:
		num, isNum = float64(v), true
	case float64:
		num, isNum = v, true
	case string:
		n := utf8.RuneCountInString(v)
		if o.MinLength != nil && n < *o.MinLength {
			return fmt.Errorf("shorter than min_length %d", *o.MinLength)
		}
		if o.MaxLength != 0 && n > o.MaxLength {
			return fmt.Errorf("longer than max_length %d", o.MaxLength)
		}
	case bool:
	default:
		return fmt.Errorf("value of type %T", g.Value)
	}
	if g.Type == discordgo.ApplicationCommandOptionUser && (g.Member == nil || g.Member.User == nil) {
		return errors.New("no user")
	}
	if isNum {
		if o.MinValue != nil && num < *o.MinValue {
			return fmt.Errorf("%v is below min_value %v", num, *o.MinValue)
		}
		if o.MaxValue != 0 && num > o.MaxValue {
			return fmt.Errorf("%v is above max_value %v", num, o.MaxValue)
		}
	}
	if len(o.Choices) > 0 {
		for _, c := range o.Choices {
			if c != nil && sameValue(c.Value, g.Value) {
				return nil
			}
		}
		return fmt.Errorf("%v is not one of the choices", g.Value)
	}
	return nil
}

// sameValue compares a choice value (decoded from JSON) with an option value.
func sameValue(choice, v any) bool {
	switch v := v.(type) {
	case int64:
		f, ok := choice.(float64)
		return ok && f == float64(v)
	default:
		return choice == v
	}
}

// focusedOption returns the schema of the one focused option of an
// autocomplete's options.
func focusedOption(path string, schema []*discordgo.ApplicationCommandOption, given []Option) (*discordgo.ApplicationCommandOption, error) {
	var found *discordgo.ApplicationCommandOption
	n := 0
	var walk func(schema []*discordgo.ApplicationCommandOption, given []Option)
	walk = func(schema []*discordgo.ApplicationCommandOption, given []Option) {
		for _, g := range given {
			for _, o := range schema {
				if o == nil || o.Name != g.Name {
					continue
				}
				if g.Focused {
					found, n = o, n+1
				}
				walk(o.Options, g.Options)
			}
		}
	}
	walk(schema, given)
	if n != 1 {
		return nil, fmt.Errorf("%w: %s: %d focused options, want exactly 1", ErrBadOption, path, n)
	}
	return found, nil
}

// typedFocus returns given with the type of each focused option, which
// Focused leaves out, taken from the schema.
func typedFocus(schema []*discordgo.ApplicationCommandOption, given []Option) []Option {
	out := slices.Clone(given)
	for i, g := range out {
		for _, o := range schema {
			if o == nil || o.Name != g.Name {
				continue
			}
			if g.Focused && g.Type == 0 {
				out[i].Type = o.Type
			}
			out[i].Options = typedFocus(o.Options, g.Options)
		}
	}
	return out
}
