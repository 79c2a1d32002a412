package i18n_test

import (
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
)

// One refusal, for a player whose Discord speaks American English and for
// one whose Discord speaks German; the guild's locale only counts when the
// user's is missing.
func Example() {
	catalog, err := i18n.New()
	if err != nil {
		log.Fatal(err)
	}
	data := map[string]any{"Mark": "⭕", "Player": "<@42>"}
	for _, userLocale := range []string{"en-US", "de"} {
		l := catalog.For(userLocale, "fr")
		fmt.Printf("%s: %s\n", l.Tag(), l.T("move.not_your_turn", data))
	}
	// Output:
	// en: It's not your turn: ⭕ <@42> is to move.
	// de: Du bist nicht dran: ⭕ <@42> ist am Zug.
}

// A counted text takes the plural form its language needs for the count,
// and a count can be a placeholder of a bigger text.
func ExampleLanguage_N() {
	catalog, err := i18n.New()
	if err != nil {
		log.Fatal(err)
	}
	ru := catalog.For("ru")
	for _, n := range []int{1, 3, 5} {
		fmt.Println(ru.N("count.wins", n, nil))
	}
	en := catalog.For("en-GB")
	fmt.Println(en.T("stats.streak", map[string]any{
		"Streak": en.N("count.wins", 1, nil),
		"Best":   en.N("count.wins", 4, nil),
	}))
	// Output:
	// 1 победа
	// 3 победы
	// 5 побед
	// Streak: 1 win (best 4 wins)
}

// The command schema keeps its English names and descriptions, and gets
// the others' from the catalog.
func ExampleCatalog_Localizations() {
	catalog, err := i18n.New()
	if err != nil {
		log.Fatal(err)
	}
	row := &discordgo.ApplicationCommandOption{
		Type:                     discordgo.ApplicationCommandOptionInteger,
		Name:                     "row",
		NameLocalizations:        catalog.Localizations("command.ttt.move.row.name"),
		Description:              "Row number, as labelled on the board",
		DescriptionLocalizations: catalog.Localizations("command.ttt.move.row.description"),
	}
	var names []string
	for locale, name := range row.NameLocalizations {
		names = append(names, string(locale)+"="+name)
	}
	slices.Sort(names)
	fmt.Println(strings.Join(names, " "))
	fmt.Println(row.DescriptionLocalizations[discordgo.SpanishLATAM])
	// Output:
	// de=zeile es-419=fila es-ES=fila fr=ligne ja=行 pt-BR=linha ru=строка zh-CN=行
	// Número de fila, como aparece en el tablero
}
