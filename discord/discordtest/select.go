package discordtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/bwmarrin/discordgo"
)

// Select builds the interaction of member choosing values in the string
// select menu with customID on the message. Send checks, as a Discord
// client would, that the message is in the channel and visible to the
// member, that it has an enabled string select with that custom_id, and
// that each value is one of its options; the interaction carries the
// message as stored at Send.
func (s *Server) Select(guildID, channelID string, member Member, messageID, customID string, values ...string) *Interaction {
	in := s.Click(guildID, channelID, member, messageID, customID)
	in.Values = values
	in.isSelect = true
	return in
}

// SubmitModal builds the interaction of the user of opened submitting the
// modal that the bot answered opened with, its text fields filled with
// values (by custom_id). It is dispatched in opened's place (guild,
// channel, user, install); when opened was a component, the submit
// carries that message, and the bot may answer it with UPDATE_MESSAGE of
// it, as on Discord. Send checks that opened was answered with a MODAL,
// not submitted before, and that every field named is one of the modal's
// text inputs and every required one is given.
func (s *Server) SubmitModal(opened *Interaction, values map[string]string) *Interaction {
	return &Interaction{
		Type:        discordgo.InteractionModalSubmit,
		GuildID:     opened.GuildID,
		ChannelID:   opened.ChannelID,
		Member:      opened.Member,
		Locale:      opened.Locale,
		GuildLocale: opened.GuildLocale,
		GroupDM:     opened.GroupDM,
		UserInstall: opened.UserInstall,
		MessageID:   opened.MessageID,
		Fields:      values,
		opened:      opened,
		srv:         s,
	}
}

// ErrNoModal means SubmitModal's interaction was not answered with a
// modal that can still be submitted.
var ErrNoModal = errors.New("discordtest: no modal to submit")

// selectDataLocked returns the data of a choice in a select menu of m,
// after checking it unless in is unchecked.
func selectDataLocked(in *Interaction, m *message) (map[string]any, error) {
	if !in.unchecked {
		options, ok := enabledSelect(m.components, in.CustomID)
		if !ok {
			return nil, fmt.Errorf("%w: select %q on message %s", ErrUnknownComponent, in.CustomID, m.id)
		}
		if len(in.Values) == 0 {
			return nil, fmt.Errorf("%w: no value chosen in select %q", ErrUnknownComponent, in.CustomID)
		}
		for _, v := range in.Values {
			if !slices.Contains(options, v) {
				return nil, fmt.Errorf("%w: select %q on message %s has no option %q (options %q)", ErrUnknownComponent, in.CustomID, m.id, v, options)
			}
		}
	}
	values := in.Values
	if values == nil {
		values = []string{}
	}
	return map[string]any{"custom_id": in.CustomID, "component_type": int(discordgo.SelectMenuComponent), "values": values}, nil
}

// enabledSelect returns the option values of the enabled string select
// with customID in the components, at any depth.
func enabledSelect(raw json.RawMessage, customID string) ([]string, bool) {
	var comps []rawComponent
	if json.Unmarshal(raw, &comps) != nil {
		return nil, false
	}
	var walk func([]rawComponent) ([]string, bool)
	walk = func(cs []rawComponent) ([]string, bool) {
		for _, c := range cs {
			if c.Type == int(discordgo.SelectMenuComponent) && c.CustomID != nil && *c.CustomID == customID && !c.Disabled {
				var values []string
				for _, o := range c.Options {
					var opt struct {
						Value string `json:"value"`
					}
					if json.Unmarshal(o, &opt) == nil {
						values = append(values, opt.Value)
					}
				}
				return values, true
			}
			if v, ok := walk(c.Components); ok {
				return v, true
			}
		}
		return nil, false
	}
	return walk(comps)
}

// modalDataLocked returns the data of the submit in of the modal that
// in.opened was answered with, checking it unless in is unchecked; it
// marks the modal submitted and returns the message it was opened on
// ("" for a command).
func (s *Server) modalDataLocked(in *Interaction) (map[string]any, string, error) {
	op := in.opened
	if op == nil || op.srv != s || op.st == nil {
		return nil, "", fmt.Errorf("%w: the interaction that opened it was not sent", ErrNoModal)
	}
	st := op.st
	if !st.acked || st.resp.Type != discordgo.InteractionResponseModal {
		return nil, "", fmt.Errorf("%w: interaction %s was answered with type %d", ErrNoModal, st.id, st.resp.Type)
	}
	if st.modalSubmitted && !in.unchecked {
		return nil, "", fmt.Errorf("%w: the modal of interaction %s was submitted already", ErrNoModal, st.id)
	}
	var modal struct {
		CustomID   string `json:"custom_id"`
		Components []struct {
			Components []struct {
				Type     int    `json:"type"`
				CustomID string `json:"custom_id"`
				Required *bool  `json:"required"`
			} `json:"components"`
		} `json:"components"`
	}
	if err := json.Unmarshal(st.resp.Data, &modal); err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrNoModal, err)
	}
	var rows []any
	seen := map[string]bool{}
	for _, row := range modal.Components {
		for _, c := range row.Components {
			if c.Type != componentTextIn {
				continue
			}
			v, given := in.Fields[c.CustomID]
			if !given && (c.Required == nil || *c.Required) && !in.unchecked {
				return nil, "", fmt.Errorf("%w: required field %q of modal %q not filled", ErrNoModal, c.CustomID, modal.CustomID)
			}
			seen[c.CustomID] = true
			rows = append(rows, map[string]any{"type": componentRow, "components": []any{
				map[string]any{"type": componentTextIn, "custom_id": c.CustomID, "value": v},
			}})
		}
	}
	for id := range in.Fields {
		if !seen[id] && !in.unchecked {
			return nil, "", fmt.Errorf("%w: modal %q has no field %q", ErrNoModal, modal.CustomID, id)
		}
	}
	if rows == nil {
		rows = []any{}
	}
	st.modalSubmitted = true
	return map[string]any{"custom_id": modal.CustomID, "components": rows}, st.componentMsgID, nil
}
