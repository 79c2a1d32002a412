package discord

import (
	"encoding/json"

	"github.com/bwmarrin/discordgo"
)

// LabelComponent is the type of a Label (Discord's component reference:
// 18), which discordgo v0.29.0 does not know.
const LabelComponent discordgo.ComponentType = 18

// Label is Discord's Label component, the form of a modal's fields since
// a text input's own label was deprecated: a label of up to 45 characters
// and an optional description of up to 100 for one component (here a
// text input). In a modal submit Discord sends back only its ID and its
// Component, with the value typed.
type Label struct {
	ID          int                        `json:"id,omitempty"`
	Label       string                     `json:"label,omitempty"`
	Description string                     `json:"description,omitempty"`
	Component   discordgo.MessageComponent `json:"component"`
}

// Type is LabelComponent.
func (Label) Type() discordgo.ComponentType { return LabelComponent }

// Child is the component the Label holds.
func (l Label) Child() discordgo.MessageComponent { return l.Component }

// MarshalJSON writes l with its type.
func (l Label) MarshalJSON() ([]byte, error) {
	type fields Label
	return json.Marshal(struct {
		Type discordgo.ComponentType `json:"type"`
		fields
	}{LabelComponent, fields(l)})
}

// decodeModalSubmit decodes the data of a MODAL_SUBMIT as discordgo does,
// but with Labels: discordgo v0.29.0 refuses the whole interaction for a
// component type it does not know. A Label's child is decoded by
// discordgo.
func decodeModalSubmit(raw json.RawMessage) (discordgo.ModalSubmitInteractionData, error) {
	var d struct {
		CustomID   string            `json:"custom_id"`
		Components []json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return discordgo.ModalSubmitInteractionData{}, err
	}
	out := discordgo.ModalSubmitInteractionData{CustomID: d.CustomID, Components: make([]discordgo.MessageComponent, 0, len(d.Components))}
	for _, c := range d.Components {
		var l struct {
			Type      discordgo.ComponentType `json:"type"`
			ID        int                     `json:"id"`
			Component json.RawMessage         `json:"component"`
		}
		if err := json.Unmarshal(c, &l); err != nil {
			return discordgo.ModalSubmitInteractionData{}, err
		}
		if l.Type != LabelComponent {
			mc, err := discordgo.MessageComponentFromJSON(c)
			if err != nil {
				return discordgo.ModalSubmitInteractionData{}, err
			}
			out.Components = append(out.Components, mc)
			continue
		}
		label := Label{ID: l.ID}
		if len(l.Component) > 0 && string(l.Component) != "null" {
			mc, err := discordgo.MessageComponentFromJSON(l.Component)
			if err != nil {
				return discordgo.ModalSubmitInteractionData{}, err
			}
			label.Component = mc
		}
		out.Components = append(out.Components, label)
	}
	return out, nil
}
