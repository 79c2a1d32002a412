package discordtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Select menus, modals and autocomplete: the interactions a user starts
// with a string select, by submitting a modal the bot showed them, and by
// typing into an option that autocompletes, and the answers Discord
// accepts to them.

// ErrNoModal is the error of Send for a modal submit whose interaction
// was not answered with a MODAL.
var ErrNoModal = errors.New("discordtest: the interaction was not answered with a modal")

// ErrBadSubmit is the error of Send for a modal submit whose values do
// not fit the modal's text inputs (required, min_length, max_length), or
// for a choice that a select menu does not offer.
var ErrBadSubmit = errors.New("discordtest: the values do not fit the component")

// Discord's limits on modals, text inputs, select options and
// autocomplete choices.
const (
	maxInputLabel       = 45 // a label's label, or a text input's (deprecated)
	maxLabelDescription = 100
	maxInputPlaceholder = 100
	maxInputLength      = 4000
	maxOptionText       = 100 // a select option's label, value and description
	maxChoiceName       = 100
	maxChoiceValue      = 100 // of a string choice
)

// Select builds the interaction of member choosing values in the string
// select menu with customID on the message. Send checks, as a Discord
// client would, that the message is in the channel and visible to the
// member and holds an enabled select menu with that custom_id, offering
// the values, between its min_values and max_values of them (1 and 1 by
// default).
func (s *Server) Select(guildID, channelID string, member Member, messageID, customID string, values ...string) *Interaction {
	in := s.Click(guildID, channelID, member, messageID, customID)
	in.Values = append([]string{}, values...)
	return in
}

// Autocomplete builds the autocomplete interaction of member typing into
// the command /name in the channel: options holds what the user gave so
// far, exactly one of them Focused, the one being typed. Send checks that
// the command is registered, that the focused option autocompletes, and
// that the other options fit the schema; required options may be missing.
// The bot must answer with APPLICATION_COMMAND_AUTOCOMPLETE_RESULT.
func (s *Server) Autocomplete(guildID, channelID string, member Member, name string, options ...Option) *Interaction {
	in := s.SlashCommand(guildID, channelID, member, name, options...)
	in.Type = discordgo.InteractionApplicationCommandAutocomplete
	return in
}

// Focused is the option an autocomplete is for, with what the user has
// typed so far: Discord sends it as a string whatever the option's type.
func Focused(name, typed string) Option {
	return Option{Name: name, Value: typed, Focused: true}
}

// SubmitModal builds the interaction of the user of from, answered with a
// MODAL, submitting it with values, by the custom_id of its text inputs.
// It takes place where from did; a modal shown for a component carries
// that component's message, which the bot may update (UPDATE_MESSAGE).
// Send checks that from was answered with a modal, and, unless Unchecked,
// that the values fit its text inputs.
func (s *Server) SubmitModal(from *Interaction, values map[string]string) *Interaction {
	in := *from
	in.Type = discordgo.InteractionModalSubmit
	in.Fields = values
	in.from = from
	in.ID, in.Token, in.AppID = "", "", ""
	in.st, in.sending, in.unchecked, in.noMessage = nil, false, false, false
	return &in
}

// Modal is a MODAL answer as the bot sent it.
type Modal struct {
	CustomID string
	Title    string
	Inputs   []TextInput
}

// TextInput is a text input of a modal. Label and Description are its
// Label's when InLabel (Discord's form since Label, type 18), or its own
// label, in an action row (the deprecated form).
type TextInput struct {
	InLabel     bool   `json:"-"`
	Description string `json:"-"`
	CustomID    string `json:"custom_id"`
	Label       string `json:"label"`
	Style       int    `json:"style"`
	Placeholder string `json:"placeholder"`
	Value       string `json:"value"`
	Required    *bool  `json:"required"` // Discord's default is true
	MinLength   *int   `json:"min_length"`
	MaxLength   *int   `json:"max_length"`
}

// Choice is an autocomplete choice as the bot sent it.
type Choice struct {
	Name  string `json:"name"`
	Value any    `json:"value"` // a string, or a float64
}

// parseModal reads the data of a MODAL callback: its text inputs, each
// in a Label or in an action row (modalComponents has checked the
// layout).
func parseModal(raw json.RawMessage) *Modal {
	type input struct {
		Type int `json:"type"`
		TextInput
	}
	var m struct {
		CustomID   string `json:"custom_id"`
		Title      string `json:"title"`
		Components []struct {
			Type        int     `json:"type"`
			Label       string  `json:"label"`
			Description string  `json:"description"`
			Component   *input  `json:"component"`  // of a Label
			Components  []input `json:"components"` // of an action row
		} `json:"components"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	out := &Modal{CustomID: m.CustomID, Title: m.Title}
	for _, c := range m.Components {
		switch {
		case c.Type == componentLabel && c.Component != nil && c.Component.Type == componentTextIn:
			ti := c.Component.TextInput
			ti.InLabel, ti.Label, ti.Description = true, c.Label, c.Description
			out.Inputs = append(out.Inputs, ti)
		case c.Type == componentRow:
			for _, in := range c.Components {
				if in.Type == componentTextIn {
					out.Inputs = append(out.Inputs, in.TextInput)
				}
			}
		}
	}
	return out
}

// labelChildren are the components a Label may hold in a modal.
var labelChildren = []int{componentTextIn, int(discordgo.SelectMenuComponent), int(discordgo.UserSelectMenuComponent),
	int(discordgo.RoleSelectMenuComponent), int(discordgo.MentionableSelectMenuComponent), int(discordgo.ChannelSelectMenuComponent),
	componentFileUpload, componentRadioGroup, componentCheckboxGroup, componentCheckbox}

// modalComponents checks the components of a MODAL, as Discord's
// component reference describes them: Labels (type 18: a label of up to
// 45 characters, an optional description of up to 100, and one
// component, a text input among others), Text Displays, or, deprecated but
// still taken, action rows of one text input each (whose own label is
// then required).
func (c *componentChecker) modalComponents(prefix string, comps []rawComponent) {
	for i, top := range comps {
		p := fmt.Sprintf("%scomponents.%d", prefix, i)
		switch top.Type {
		case componentLabel:
			switch {
			case top.Label == nil || *top.Label == "":
				c.add(required(p + ".label"))
			case utf8.RuneCountInString(*top.Label) > maxInputLabel:
				c.add(tooLong(p+".label", maxInputLabel))
			}
			if top.Description != nil && utf8.RuneCountInString(*top.Description) > maxLabelDescription {
				c.add(tooLong(p+".description", maxLabelDescription))
			}
			in := top.Component
			switch {
			case in == nil:
				c.add(required(p + ".component"))
			case in.Type == componentTextIn:
				c.textInput(p+".component", *in, false)
			case slices.Contains(labelChildren, in.Type):
				c.customID(p+".component", in.CustomID)
			default:
				c.add(fieldError{p + ".component.type", "UNION_TYPE_CHOICES", fmt.Sprintf("Value of field \"type\" must be one of %v.", labelChildren)})
			}
		case componentText:
			if top.Content == nil || *top.Content == "" {
				c.add(required(p + ".content"))
			}
		case componentRow:
			if len(top.Components) != 1 {
				c.add(fieldError{p + ".components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 1 in length."})
			}
			for j, in := range top.Components {
				ip := fmt.Sprintf("%s.components.%d", p, j)
				if in.Type != componentTextIn {
					c.add(fieldError{ip + ".type", "UNION_TYPE_CHOICES", fmt.Sprintf("Value of field \"type\" must be one of (%d,).", componentTextIn)})
					continue
				}
				c.textInput(ip, in, true)
			}
		default:
			c.add(fieldError{p + ".type", "UNION_TYPE_CHOICES", fmt.Sprintf("Value of field \"type\" must be one of (%d, %d, %d).", componentRow, componentText, componentLabel)})
		}
	}
}

// textInput checks a text input of a modal; its own label is required in
// an action row (needLabel), and optional (deprecated) in a Label.
func (c *componentChecker) textInput(p string, in rawComponent, needLabel bool) {
	c.customID(p, in.CustomID)
	switch {
	case needLabel && (in.Label == nil || *in.Label == ""):
		c.add(required(p + ".label"))
	case in.Label != nil && *in.Label == "":
		c.add(fieldError{p + ".label", "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between 1 and %d in length.", maxInputLabel)})
	case in.Label != nil && utf8.RuneCountInString(*in.Label) > maxInputLabel:
		c.add(tooLong(p+".label", maxInputLabel))
	}
	if in.Style != int(discordgo.TextInputShort) && in.Style != int(discordgo.TextInputParagraph) {
		c.add(fieldError{p + ".style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2}."})
	}
	if in.Placeholder != nil && utf8.RuneCountInString(*in.Placeholder) > maxInputPlaceholder {
		c.add(tooLong(p+".placeholder", maxInputPlaceholder))
	}
	if in.Value != nil && utf8.RuneCountInString(*in.Value) > maxInputLength {
		c.add(tooLong(p+".value", maxInputLength))
	}
	if in.MinLength != nil && (*in.MinLength < 0 || *in.MinLength > maxInputLength) {
		c.add(fieldError{p + ".min_length", "NUMBER_TYPE_MAX", fmt.Sprintf("int value should be less than or equal to %d.", maxInputLength)})
	}
	if in.MaxLength != nil && (*in.MaxLength < 1 || *in.MaxLength > maxInputLength) {
		c.add(fieldError{p + ".max_length", "NUMBER_TYPE_MAX", fmt.Sprintf("int value should be less than or equal to %d.", maxInputLength)})
	}
	if in.MinLength != nil && in.MaxLength != nil && *in.MinLength > *in.MaxLength {
		c.add(fieldError{p + ".min_length", "TEXT_INPUT_MIN_GREATER_THAN_MAX", "min_length must be less than or equal to max_length"})
	}
}

// selectOptions checks the options of a string select menu.
func (c *componentChecker) selectOptions(p string, opts []json.RawMessage, maxValues *int) {
	values := map[string]bool{}
	defaults := 0
	for i, raw := range opts {
		op := fmt.Sprintf("%s.options.%d", p, i)
		var o struct {
			Label       *string   `json:"label"`
			Value       *string   `json:"value"`
			Description *string   `json:"description"`
			Emoji       *rawEmoji `json:"emoji"`
			Default     bool      `json:"default"`
		}
		if json.Unmarshal(raw, &o) != nil {
			c.add(fieldError{op, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"})
			continue
		}
		for name, v := range map[string]*string{"label": o.Label, "value": o.Value} {
			switch {
			case v == nil || *v == "":
				c.add(required(op + "." + name))
			case utf8.RuneCountInString(*v) > maxOptionText:
				c.add(tooLong(op+"."+name, maxOptionText))
			}
		}
		if o.Description != nil && utf8.RuneCountInString(*o.Description) > maxOptionText {
			c.add(tooLong(op+".description", maxOptionText))
		}
		if o.Emoji != nil && !validEmoji(*o.Emoji) {
			c.add(fieldError{op + ".emoji.name", "SELECT_COMPONENT_INVALID_EMOJI", "Invalid emoji"})
		}
		if o.Value != nil {
			if values[*o.Value] {
				c.add(fieldError{op + ".value", "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED", "Select component option values cannot be duplicated"})
			}
			values[*o.Value] = true
		}
		if o.Default {
			defaults++
		}
	}
	limit := 1
	if maxValues != nil {
		limit = *maxValues
	}
	if defaults > limit {
		c.add(fieldError{p + ".options", "SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES", fmt.Sprintf("The number of default options exceeds max_values (%d)", limit)})
	}
}

// validateChoices checks the data of an APPLICATION_COMMAND_AUTOCOMPLETE_
// RESULT for an option of type typ.
func validateChoices(raw json.RawMessage, typ discordgo.ApplicationCommandOptionType) ([]Choice, []fieldError) {
	var d struct {
		Choices *[]json.RawMessage `json:"choices"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return nil, []fieldError{{"data", "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"}}
	}
	if d.Choices == nil {
		return nil, []fieldError{required("data.choices")}
	}
	var errs []fieldError
	if len(*d.Choices) > maxChoices {
		errs = append(errs, tooLong("data.choices", maxChoices))
	}
	out := []Choice{}
	for i, raw := range *d.Choices {
		p := fmt.Sprintf("data.choices.%d", i)
		var c Choice
		if json.Unmarshal(raw, &c) != nil {
			errs = append(errs, fieldError{p, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"})
			continue
		}
		if n := utf8.RuneCountInString(c.Name); n < 1 || n > maxChoiceName {
			errs = append(errs, fieldError{p + ".name", "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between 1 and %d in length.", maxChoiceName)})
		}
		switch v := c.Value.(type) {
		case string:
			if typ != discordgo.ApplicationCommandOptionString {
				errs = append(errs, fieldError{p + ".value", "APPLICATION_COMMAND_OPTION_CHOICE_TYPE_MISMATCH", "Choice value must be of the option's type"})
			} else if utf8.RuneCountInString(v) > maxChoiceValue {
				errs = append(errs, tooLong(p+".value", maxChoiceValue))
			}
		case float64:
			if typ == discordgo.ApplicationCommandOptionString || typ == discordgo.ApplicationCommandOptionInteger && v != math.Trunc(v) {
				errs = append(errs, fieldError{p + ".value", "APPLICATION_COMMAND_OPTION_CHOICE_TYPE_MISMATCH", "Choice value must be of the option's type"})
			}
		default:
			errs = append(errs, required(p+".value"))
		}
		out = append(out, c)
	}
	return out, errs
}

// rawSelect is what a click on a select menu needs of it.
type rawSelect struct {
	options              []string
	minValues, maxValues int
}

// findSelect returns the enabled string select menu with customID in the
// components, at any depth.
func findSelect(raw json.RawMessage, customID string) (rawSelect, bool) {
	found := findEnabled(raw, int(discordgo.SelectMenuComponent), customID)
	if found == nil {
		return rawSelect{}, false
	}
	sel := rawSelect{minValues: 1, maxValues: 1}
	if found.MinValues != nil {
		sel.minValues = *found.MinValues
	}
	if found.MaxValues != nil {
		sel.maxValues = *found.MaxValues
	}
	for _, raw := range found.Options {
		var o struct {
			Value string `json:"value"`
		}
		if json.Unmarshal(raw, &o) == nil {
			sel.options = append(sel.options, o.Value)
		}
	}
	return sel, true
}

// checkSelected checks values against a select menu, as a client offers it.
func checkSelected(sel rawSelect, values []string) error {
	if len(values) < sel.minValues || len(values) > sel.maxValues {
		return fmt.Errorf("%w: %d values, want %d to %d", ErrBadSubmit, len(values), sel.minValues, sel.maxValues)
	}
	for _, v := range values {
		if !slices.Contains(sel.options, v) {
			return fmt.Errorf("%w: %q is not an option", ErrBadSubmit, v)
		}
	}
	return nil
}

// checkSubmitted checks the values of a modal submit against its text
// inputs, as a client lets them be sent.
func checkSubmitted(m *Modal, values map[string]string) error {
	known := map[string]bool{}
	for _, in := range m.Inputs {
		known[in.CustomID] = true
		v, given := values[in.CustomID]
		n := utf8.RuneCountInString(v)
		req := in.Required == nil || *in.Required
		switch {
		case req && n == 0:
			return fmt.Errorf("%w: %q is required", ErrBadSubmit, in.CustomID)
		case !given || n == 0:
			continue
		case in.MinLength != nil && n < *in.MinLength:
			return fmt.Errorf("%w: %q is shorter than %d", ErrBadSubmit, in.CustomID, *in.MinLength)
		case in.MaxLength != nil && n > *in.MaxLength, n > maxInputLength:
			return fmt.Errorf("%w: %q is too long", ErrBadSubmit, in.CustomID)
		}
	}
	for id := range values {
		if !known[id] {
			return fmt.Errorf("%w: the modal has no text input %q", ErrBadSubmit, id)
		}
	}
	return nil
}

// submitData is the data of a modal submit: the modal's custom_id and,
// per text input with its value, what held it: a Label (type 18, with its
// id and the input as its component: Discord's Label Interaction
// Response Structure), or an action row. Discord numbers the components
// it sends back (id) in order, from 1.
func submitData(m *Modal, values map[string]string) map[string]any {
	comps := []any{}
	id := 0
	next := func() int { id++; return id }
	for _, in := range m.Inputs {
		if in.InLabel {
			label := next()
			comps = append(comps, map[string]any{"type": componentLabel, "id": label, "component": map[string]any{
				"type": componentTextIn, "id": next(), "custom_id": in.CustomID, "value": values[in.CustomID]}})
			continue
		}
		row := next()
		comps = append(comps, map[string]any{"type": componentRow, "id": row, "components": []any{
			map[string]any{"type": componentTextIn, "id": next(), "custom_id": in.CustomID, "value": values[in.CustomID]},
		}})
	}
	return map[string]any{"custom_id": m.CustomID, "components": comps}
}
