package discord

import (
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// A MODAL_SUBMIT whose field is in a Label (Discord's component
// reference, Label Interaction Response Structure; discordgo v0.29.0
// refuses the type) decodes with the Label and its text input; the form
// before Labels, an action row, still decodes as discordgo does.
func TestDecodeModalSubmitWithLabel(t *testing.T) {
	body := []byte(`{"id":"1","application_id":"2","type":5,"token":"t","version":1,"channel_id":"3",
		"data":{"custom_id":"typed/1","components":[
			{"type":18,"id":1,"component":{"type":4,"id":2,"custom_id":"cell","value":"3 7"}},
			{"type":1,"id":3,"components":[{"type":4,"id":4,"custom_id":"old","value":"x"}]}]}}`)
	i, err := DecodeInteraction(body)
	if err != nil {
		t.Fatalf("DecodeInteraction = %v", err)
	}
	d := i.ModalSubmitData()
	if d.CustomID != "typed/1" || len(d.Components) != 2 {
		t.Fatalf("data = %+v; want typed/1 with two components", d)
	}
	l, ok := d.Components[0].(Label)
	in, isInput := l.Child().(*discordgo.TextInput)
	if !ok || l.ID != 1 || !isInput || in.CustomID != "cell" || in.Value != "3 7" {
		t.Errorf("components[0] = %#v; want the Label (id 1) of cell = \"3 7\"", d.Components[0])
	}
	row, ok := d.Components[1].(*discordgo.ActionsRow)
	if !ok || row.Components[0].(*discordgo.TextInput).Value != "x" {
		t.Errorf("components[1] = %#v; want the action row of old = \"x\"", d.Components[1])
	}
	if _, err := DecodeInteraction([]byte(`{"type":5,"data":{"components":[{"type":18,"component":{"type":99}}]}}`)); err == nil {
		t.Error("a Label of an unknown component decoded; want an error")
	}
}

// A Label is written as the component reference has it: type 18, the
// label, the description if any, and the component.
func TestLabelJSON(t *testing.T) {
	b, err := json.Marshal(Label{Label: "Row and column", Component: discordgo.TextDisplay{Content: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":18,"label":"Row and column","component":{"content":"x","type":10}}`; string(b) != want {
		t.Errorf("Label = %s; want %s", b, want)
	}
}
