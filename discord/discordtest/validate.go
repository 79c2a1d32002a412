package discordtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Discord's limits on messages.
const (
	maxContent         = 2000
	maxEmbeds          = 10
	maxEmbedTotal      = 6000
	maxEmbedTitle      = 256
	maxEmbedDesc       = 4096
	maxEmbedFields     = 25
	maxFieldName       = 256
	maxFieldValue      = 1024
	maxFooterText      = 2048
	maxAuthorName      = 256
	maxActionRows      = 5
	maxRowButtons      = 5
	maxCustomID        = 100
	maxButtonLabel     = 80
	maxSelectOptions   = 25
	maxPlaceholder     = 150
	maxV2Components    = 40
	maxModalTitle      = 45
	flagEphemeral      = int(discordgo.MessageFlagsEphemeral)
	flagLoading        = int(discordgo.MessageFlagsLoading)
	flagComponentsV2   = int(discordgo.MessageFlagsIsComponentsV2)
	componentRow       = int(discordgo.ActionsRowComponent)
	componentButton    = int(discordgo.ButtonComponent)
	componentTextIn    = int(discordgo.TextInputComponent)
	componentSection   = int(discordgo.SectionComponent)
	componentText      = int(discordgo.TextDisplayComponent)
	componentThumb     = int(discordgo.ThumbnailComponent)
	componentGallery   = int(discordgo.MediaGalleryComponent)
	componentFile      = int(discordgo.FileComponentType)
	componentSep       = int(discordgo.SeparatorComponent)
	componentContainer = int(discordgo.ContainerComponent)
	// Of modals, newer than discordgo v0.29.0 (Discord's component
	// reference, Component Types).
	componentLabel         = 18
	componentFileUpload    = 19
	componentRadioGroup    = 21
	componentCheckboxGroup = 22
	componentCheckbox      = 23
)

// fieldError is one entry of a 50035 "Invalid Form Body" answer.
type fieldError struct {
	path    string // dotted, e.g. "data.components.0.components.1.custom_id"
	code    string // e.g. "BASE_TYPE_MAX_LENGTH"
	message string
}

func (e fieldError) String() string { return e.path + ": " + e.message }

func tooLong(path string, limit int) fieldError {
	return fieldError{path, "BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length.", limit)}
}

func required(path string) fieldError {
	return fieldError{path, "BASE_TYPE_REQUIRED", "This field is required"}
}

// nestErrors turns field errors into Discord's nested "errors" object:
// {"data": {"content": {"_errors": [{"code": …, "message": …}]}}}.
func nestErrors(errs []fieldError) map[string]any {
	root := map[string]any{}
	for _, e := range errs {
		node := root
		if e.path != "" {
			for _, key := range strings.Split(e.path, ".") {
				child, ok := node[key].(map[string]any)
				if !ok {
					child = map[string]any{}
					node[key] = child
				}
				node = child
			}
		}
		list, _ := node["_errors"].([]any)
		node["_errors"] = append(list, map[string]string{"code": e.code, "message": e.message})
	}
	return root
}

// validateFields checks the fields given in a create or edit body against
// Discord's limits; flags are the flags the message will have.
func validateFields(prefix string, f fields, flags int) []fieldError {
	var errs []fieldError
	if f.hasContent && utf8.RuneCountInString(f.content) > maxContent {
		errs = append(errs, tooLong(prefix+"content", maxContent))
	}
	if f.hasEmbeds {
		errs = append(errs, validateEmbeds(prefix+"embeds", f.embeds)...)
	}
	if f.hasComponents {
		errs = append(errs, validateComponents(prefix+"components", f.components, flags&flagComponentsV2 != 0)...)
	}
	return errs
}

// checkResult checks the message as it will be stored: not empty, and no
// content or embeds with Components V2. It returns a Discord error code and
// message, or 0.
func checkResult(prefix string, m *message) (int, string, []fieldError) {
	hasEmbeds := string(m.embeds) != "[]"
	hasComponents := string(m.components) != "[]"
	if m.flags&flagComponentsV2 != 0 {
		var errs []fieldError
		if m.content != "" {
			errs = append(errs, fieldError{prefix + "content", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2", "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"})
		}
		if hasEmbeds {
			errs = append(errs, fieldError{prefix + "embeds", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2", "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"})
		}
		if len(errs) > 0 {
			return codeInvalidFormBody, "Invalid Form Body", errs
		}
	}
	if m.flags&flagLoading == 0 && strings.TrimSpace(m.content) == "" && !hasEmbeds && !hasComponents && len(m.attachments) == 0 && !m.hasPoll {
		return codeEmptyMessage, "Cannot send an empty message", nil
	}
	return 0, "", nil
}

type rawEmbed struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Fields      []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"fields"`
	Footer *struct {
		Text string `json:"text"`
	} `json:"footer"`
	Author *struct {
		Name string `json:"name"`
	} `json:"author"`
}

func validateEmbeds(path string, raw json.RawMessage) []fieldError {
	var embeds []rawEmbed
	if err := json.Unmarshal(raw, &embeds); err != nil {
		return []fieldError{{path, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"}}
	}
	var errs []fieldError
	if len(embeds) > maxEmbeds {
		errs = append(errs, tooLong(path, maxEmbeds))
	}
	total := 0
	count := func(p string, s string, limit int) {
		n := utf8.RuneCountInString(s)
		total += n
		if n > limit {
			errs = append(errs, tooLong(p, limit))
		}
	}
	for i, e := range embeds {
		p := fmt.Sprintf("%s.%d.", path, i)
		count(p+"title", e.Title, maxEmbedTitle)
		count(p+"description", e.Description, maxEmbedDesc)
		if len(e.Fields) > maxEmbedFields {
			errs = append(errs, tooLong(p+"fields", maxEmbedFields))
		}
		for j, fld := range e.Fields {
			fp := fmt.Sprintf("%sfields.%d.", p, j)
			if fld.Name == "" {
				errs = append(errs, required(fp+"name"))
			}
			if fld.Value == "" {
				errs = append(errs, required(fp+"value"))
			}
			count(fp+"name", fld.Name, maxFieldName)
			count(fp+"value", fld.Value, maxFieldValue)
		}
		if e.Footer != nil {
			count(p+"footer.text", e.Footer.Text, maxFooterText)
		}
		if e.Author != nil {
			count(p+"author.name", e.Author.Name, maxAuthorName)
		}
	}
	if total > maxEmbedTotal {
		errs = append(errs, fieldError{path, "MAX_EMBED_SIZE_EXCEEDED", fmt.Sprintf("Embed size exceeds maximum size of %d", maxEmbedTotal)})
	}
	return errs
}

type rawEmoji struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// rawComponent holds what validation needs of any component; pointers tell
// absent keys from empty values.
type rawComponent struct {
	Type        int               `json:"type"`
	CustomID    *string           `json:"custom_id"`
	Label       *string           `json:"label"`
	Style       int               `json:"style"`
	URL         *string           `json:"url"`
	SKUID       *string           `json:"sku_id"`
	Emoji       *rawEmoji         `json:"emoji"`
	Disabled    bool              `json:"disabled"`
	Components  []rawComponent    `json:"components"`
	Accessory   *rawComponent     `json:"accessory"`
	Options     []json.RawMessage `json:"options"`
	Placeholder *string           `json:"placeholder"`
	MinValues   *int              `json:"min_values"`
	MaxValues   *int              `json:"max_values"`
	// Of a text input.
	Value     *string `json:"value"`
	MinLength *int    `json:"min_length"`
	MaxLength *int    `json:"max_length"`
	// Of a Text Display.
	Content *string `json:"content"`
	// Of a Label.
	Description *string       `json:"description"`
	Component   *rawComponent `json:"component"`
}

// componentChecker validates one message's components.
type componentChecker struct {
	errs      []fieldError
	customIDs map[string]bool
	count     int
}

func validateComponents(path string, raw json.RawMessage, v2 bool) []fieldError {
	var comps []rawComponent
	if err := json.Unmarshal(raw, &comps); err != nil {
		return []fieldError{{path, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"}}
	}
	c := &componentChecker{customIDs: map[string]bool{}}
	if v2 {
		for i, comp := range comps {
			c.v2(fmt.Sprintf("%s.%d", path, i), comp, true)
		}
		if c.count > maxV2Components {
			c.add(tooLong(path, maxV2Components))
		}
		return c.errs
	}
	if len(comps) > maxActionRows {
		c.add(tooLong(path, maxActionRows))
	}
	for i, comp := range comps {
		p := fmt.Sprintf("%s.%d", path, i)
		if comp.Type != componentRow {
			c.add(fieldError{p + ".type", "UNION_TYPE_CHOICES", fmt.Sprintf("Value of field \"type\" must be one of (%d,).", componentRow)})
			continue
		}
		c.row(p, comp)
	}
	return c.errs
}

func (c *componentChecker) add(e fieldError) { c.errs = append(c.errs, e) }

// row checks an action row: 1 to 5 buttons, or one select menu.
func (c *componentChecker) row(p string, row rawComponent) {
	c.count++
	switch n := len(row.Components); {
	case n == 0:
		c.add(fieldError{p + ".components", "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between 1 and %d in length.", maxRowButtons)})
	case n > maxRowButtons:
		c.add(tooLong(p+".components", maxRowButtons))
	}
	for j, comp := range row.Components {
		cp := fmt.Sprintf("%s.components.%d", p, j)
		switch {
		case comp.Type == componentButton:
			c.button(cp, comp)
		case isSelect(comp.Type):
			if len(row.Components) > 1 {
				c.add(fieldError{p + ".components", "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width"})
			}
			c.selectMenu(cp, comp)
		default:
			c.add(fieldError{cp + ".type", "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (2, 3, 5, 6, 7, 8)."})
		}
	}
}

func isSelect(t int) bool {
	switch discordgo.ComponentType(t) {
	case discordgo.SelectMenuComponent, discordgo.UserSelectMenuComponent, discordgo.RoleSelectMenuComponent,
		discordgo.MentionableSelectMenuComponent, discordgo.ChannelSelectMenuComponent:
		return true
	}
	return false
}

// customID checks a required custom_id: present, at most 100 characters,
// unique in the message.
func (c *componentChecker) customID(p string, id *string) {
	switch {
	case id == nil || *id == "":
		c.add(required(p + ".custom_id"))
	case utf8.RuneCountInString(*id) > maxCustomID:
		c.add(tooLong(p+".custom_id", maxCustomID))
	case c.customIDs[*id]:
		c.add(fieldError{p + ".custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated"})
	default:
		c.customIDs[*id] = true
	}
}

func (c *componentChecker) button(p string, b rawComponent) {
	c.count++
	if b.Label != nil && utf8.RuneCountInString(*b.Label) > maxButtonLabel {
		c.add(tooLong(p+".label", maxButtonLabel))
	}
	if b.Emoji != nil && !validEmoji(*b.Emoji) {
		c.add(fieldError{p + ".emoji.name", "BUTTON_COMPONENT_INVALID_EMOJI", "Invalid emoji"})
	}
	switch discordgo.ButtonStyle(b.Style) {
	case discordgo.PrimaryButton, discordgo.SecondaryButton, discordgo.SuccessButton, discordgo.DangerButton:
		c.customID(p, b.CustomID)
		if b.URL != nil && *b.URL != "" {
			c.add(fieldError{p + ".url", "BUTTON_COMPONENT_URL_WITH_CUSTOM_ID", "A button cannot have both a url and a custom_id"})
		}
	case discordgo.LinkButton:
		if b.URL == nil || *b.URL == "" {
			c.add(required(p + ".url"))
		}
		if b.CustomID != nil && *b.CustomID != "" {
			c.add(fieldError{p + ".custom_id", "BUTTON_COMPONENT_LINK_WITH_CUSTOM_ID", "A link button cannot have a custom_id"})
		}
	case discordgo.PremiumButton:
		if b.SKUID == nil || *b.SKUID == "" {
			c.add(required(p + ".sku_id"))
		}
		return // a premium button shows the SKU, not a label
	default:
		c.add(fieldError{p + ".style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}."})
	}
	if (b.Label == nil || *b.Label == "") && b.Emoji == nil {
		c.add(fieldError{p + ".label", "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A button must have a label or an emoji"})
	}
}

// validEmoji reports whether a partial emoji is usable: a custom emoji has
// an ID; a Unicode emoji's name is an emoji, not plain text.
func validEmoji(e rawEmoji) bool {
	if e.ID != "" {
		_, err := strconv.ParseUint(e.ID, 10, 64)
		return err == nil
	}
	if e.Name == "" {
		return false
	}
	for _, r := range e.Name {
		if r > unicode.MaxASCII {
			return true
		}
	}
	return false
}

func (c *componentChecker) selectMenu(p string, m rawComponent) {
	c.count++
	c.customID(p, m.CustomID)
	if m.Placeholder != nil && utf8.RuneCountInString(*m.Placeholder) > maxPlaceholder {
		c.add(tooLong(p+".placeholder", maxPlaceholder))
	}
	if m.Type == int(discordgo.SelectMenuComponent) {
		switch n := len(m.Options); {
		case n == 0:
			c.add(required(p + ".options"))
		case n > maxSelectOptions:
			c.add(tooLong(p+".options", maxSelectOptions))
		}
		c.selectOptions(p, m.Options, m.MaxValues)
	}
	if m.MinValues != nil && (*m.MinValues < 0 || *m.MinValues > maxSelectOptions) {
		c.add(fieldError{p + ".min_values", "NUMBER_TYPE_MAX", fmt.Sprintf("int value should be less than or equal to %d.", maxSelectOptions)})
	}
	if m.MaxValues != nil && (*m.MaxValues < 1 || *m.MaxValues > maxSelectOptions) {
		c.add(fieldError{p + ".max_values", "NUMBER_TYPE_MAX", fmt.Sprintf("int value should be less than or equal to %d.", maxSelectOptions)})
	}
}

// v2 checks a component of a Components V2 message, recursively.
func (c *componentChecker) v2(p string, comp rawComponent, top bool) {
	switch comp.Type {
	case componentRow:
		c.row(p, comp)
	case componentButton:
		if top {
			c.add(fieldError{p + ".type", "UNION_TYPE_CHOICES", "A button must be in an action row or a section"})
		}
		c.button(p, comp)
	case componentSection:
		c.count++
		for i, sub := range comp.Components {
			c.v2(fmt.Sprintf("%s.components.%d", p, i), sub, false)
		}
		if comp.Accessory != nil {
			c.v2(p+".accessory", *comp.Accessory, false)
		}
	case componentContainer:
		c.count++
		for i, sub := range comp.Components {
			c.v2(fmt.Sprintf("%s.components.%d", p, i), sub, false)
		}
	case componentText, componentThumb, componentGallery, componentFile, componentSep:
		c.count++
	default:
		c.add(fieldError{p + ".type", "UNION_TYPE_CHOICES", "Value of field \"type\" is not a message component."})
	}
}

// validateModal checks the data of a MODAL callback.
func validateModal(prefix string, raw json.RawMessage) []fieldError {
	var m struct {
		CustomID   *string        `json:"custom_id"`
		Title      *string        `json:"title"`
		Components []rawComponent `json:"components"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return []fieldError{{strings.TrimSuffix(prefix, "."), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"}}
	}
	c := &componentChecker{customIDs: map[string]bool{}}
	c.customID(strings.TrimSuffix(prefix, "."), m.CustomID)
	switch {
	case m.Title == nil || *m.Title == "":
		c.add(required(prefix + "title"))
	case utf8.RuneCountInString(*m.Title) > maxModalTitle:
		c.add(tooLong(prefix+"title", maxModalTitle))
	}
	switch n := len(m.Components); {
	case n == 0:
		c.add(required(prefix + "components"))
	case n > maxActionRows:
		c.add(tooLong(prefix+"components", maxActionRows))
	}
	c.modalComponents(prefix, m.Components)
	return c.errs
}

// Rules of application commands.
const (
	maxCommandsPerScope  = 100
	maxOptions           = 25
	maxChoices           = 25
	maxDescription       = 100
	maxCommandCharacters = 4000
)

// commandName is Discord's pattern for command and option names; chat
// input names must also be lower case.
var commandName = regexp.MustCompile(`^[-_'\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// validateCommands checks a bulk overwrite body.
func validateCommands(cmds []*discordgo.ApplicationCommand) []fieldError {
	var errs []fieldError
	if len(cmds) > maxCommandsPerScope {
		errs = append(errs, tooLong("", maxCommandsPerScope))
	}
	seen := map[string]bool{}
	for i, cmd := range cmds {
		p := strconv.Itoa(i)
		if cmd == nil {
			errs = append(errs, fieldError{p, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"})
			continue
		}
		typ := cmd.Type
		if typ == 0 {
			typ = discordgo.ChatApplicationCommand
		}
		key := fmt.Sprint(typ, "/", cmd.Name)
		if seen[key] {
			errs = append(errs, fieldError{p + ".name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"})
		}
		seen[key] = true
		switch typ {
		case discordgo.ChatApplicationCommand:
			errs = append(errs, checkName(p+".name", cmd.Name, true)...)
			errs = append(errs, checkDescription(p+".description", cmd.Description)...)
			errs = append(errs, validateOptions(p+".options", cmd.Options)...)
			total := utf8.RuneCountInString(cmd.Name) + utf8.RuneCountInString(cmd.Description) + optionCharacters(cmd.Options)
			if total > maxCommandCharacters {
				errs = append(errs, fieldError{p, "APPLICATION_COMMAND_TOO_LARGE", fmt.Sprintf("Command exceeds maximum size (%d)", maxCommandCharacters)})
			}
		case commandEntryPoint:
			// Named like a context menu command ("Launch" by default);
			// a description like a chat input command's, and no options.
			if cmd.Name == "" || utf8.RuneCountInString(cmd.Name) > 32 {
				errs = append(errs, fieldError{p + ".name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."})
			}
			if utf8.RuneCountInString(cmd.Description) > maxDescription {
				errs = append(errs, tooLong(p+".description", maxDescription))
			}
			if len(cmd.Options) > 0 {
				errs = append(errs, fieldError{p + ".options", "APPLICATION_COMMAND_OPTIONS_INVALID", "Only chat input commands can have options"})
			}
		case discordgo.UserApplicationCommand, discordgo.MessageApplicationCommand:
			if cmd.Name == "" || utf8.RuneCountInString(cmd.Name) > 32 {
				errs = append(errs, fieldError{p + ".name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."})
			}
			if cmd.Description != "" || len(cmd.Options) > 0 {
				errs = append(errs, fieldError{p + ".description", "APPLICATION_COMMAND_CONTEXT_MENU_FIELDS", "Context menu commands cannot have a description or options"})
			}
		default:
			errs = append(errs, fieldError{p + ".type", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4}."})
		}
	}
	return errs
}

func checkName(p, name string, lower bool) []fieldError {
	if !commandName.MatchString(name) {
		return []fieldError{{p, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"}}
	}
	if lower && strings.ToLower(name) != name {
		return []fieldError{{p, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"}}
	}
	return nil
}

func checkDescription(p, d string) []fieldError {
	if n := utf8.RuneCountInString(d); n < 1 || n > maxDescription {
		return []fieldError{{p, "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between 1 and %d in length.", maxDescription)}}
	}
	return nil
}

// validateOptions checks the options of a command, group or subcommand;
// each group and subcommand checks the types of its own options, so that a
// group holds only subcommands and a subcommand holds only parameters.
func validateOptions(p string, opts []*discordgo.ApplicationCommandOption) []fieldError {
	var errs []fieldError
	if len(opts) > maxOptions {
		errs = append(errs, tooLong(p, maxOptions))
	}
	names := map[string]bool{}
	subs, params, optional := 0, 0, false
	for i, o := range opts {
		op := fmt.Sprintf("%s.%d", p, i)
		if o == nil {
			errs = append(errs, fieldError{op, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"})
			continue
		}
		errs = append(errs, checkName(op+".name", o.Name, true)...)
		errs = append(errs, checkDescription(op+".description", o.Description)...)
		if names[o.Name] {
			errs = append(errs, fieldError{op + ".name", "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Option names must be unique"})
		}
		names[o.Name] = true
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommandGroup:
			subs++
			for j, sub := range o.Options {
				if sub == nil || sub.Type != discordgo.ApplicationCommandOptionSubCommand {
					errs = append(errs, fieldError{fmt.Sprintf("%s.options.%d.type", op, j), "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Subcommand groups can only contain subcommands"})
				}
			}
			errs = append(errs, validateOptions(op+".options", o.Options)...)
		case discordgo.ApplicationCommandOptionSubCommand:
			subs++
			for j, sub := range o.Options {
				if sub != nil && (sub.Type == discordgo.ApplicationCommandOptionSubCommand || sub.Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
					errs = append(errs, fieldError{fmt.Sprintf("%s.options.%d.type", op, j), "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Subcommands cannot contain subcommands"})
				}
			}
			errs = append(errs, validateOptions(op+".options", o.Options)...)
		case discordgo.ApplicationCommandOptionString, discordgo.ApplicationCommandOptionInteger,
			discordgo.ApplicationCommandOptionBoolean, discordgo.ApplicationCommandOptionUser,
			discordgo.ApplicationCommandOptionChannel, discordgo.ApplicationCommandOptionRole,
			discordgo.ApplicationCommandOptionMentionable, discordgo.ApplicationCommandOptionNumber,
			discordgo.ApplicationCommandOptionAttachment:
			params++
			if o.Required && optional {
				errs = append(errs, fieldError{op + ".required", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options"})
			}
			optional = optional || !o.Required
			if len(o.Choices) > maxChoices {
				errs = append(errs, tooLong(op+".choices", maxChoices))
			}
			if o.Autocomplete && len(o.Choices) > 0 {
				errs = append(errs, fieldError{op + ".autocomplete", "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_WITH_CHOICES", "Autocomplete cannot be set with choices"})
			}
			if o.MinValue != nil && o.MaxValue != 0 && *o.MinValue > o.MaxValue {
				errs = append(errs, fieldError{op + ".min_value", "APPLICATION_COMMAND_OPTION_MIN_GREATER_THAN_MAX", "min_value must be less than or equal to max_value"})
			}
			if len(o.Options) > 0 {
				errs = append(errs, fieldError{op + ".options", "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Only subcommands and groups can have options"})
			}
		default:
			errs = append(errs, fieldError{op + ".type", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}."})
		}
	}
	if subs > 0 && params > 0 {
		errs = append(errs, fieldError{p, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Subcommands and groups cannot be mixed with other options"})
	}
	return errs
}

func optionCharacters(opts []*discordgo.ApplicationCommandOption) int {
	n := 0
	for _, o := range opts {
		if o == nil {
			continue
		}
		n += utf8.RuneCountInString(o.Name) + utf8.RuneCountInString(o.Description) + optionCharacters(o.Options)
		for _, c := range o.Choices {
			if c != nil {
				n += utf8.RuneCountInString(c.Name) + utf8.RuneCountInString(fmt.Sprint(c.Value))
			}
		}
	}
	return n
}
