package discordtest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// apiURL sends discordgo's requests to the fake, as a bot configured with
// DISCORD_API_URL does.
type apiURL string

func (base apiURL) RoundTrip(r *http.Request) (*http.Response, error) {
	if rest, ok := strings.CutPrefix(r.URL.String(), discordgo.EndpointAPI); ok {
		u, err := url.Parse(string(base) + "/" + rest)
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.URL, r.Host = u, u.Host
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A user runs /ping, which answers with a button; another user clicks it,
// and the bot edits the message with UPDATE_MESSAGE.
func Example() {
	srv := discordtest.NewServer("secret")
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// The bot under test; tttbot would be started with DISCORD_TOKEN=secret
	// and DISCORD_API_URL=srv.APIURL instead.
	s, _ := discordgo.New("Bot secret")
	s.Client = &http.Client{Transport: apiURL(srv.APIURL)}
	s.Identify.Intents = discordgo.IntentsNone
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		resp := &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{
				Content: "pong",
				Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
					discordgo.Button{Label: "again", CustomID: "ping/again", Style: discordgo.PrimaryButton},
				}}},
			},
		}
		if i.Type == discordgo.InteractionMessageComponent {
			resp.Type = discordgo.InteractionResponseUpdateMessage
			resp.Data.Content = "pong, again"
		}
		_ = s.InteractionRespond(i.Interaction, resp)
	})
	if err := s.Open(); err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	guild, channel := srv.NewID(), srv.NewID()
	_, _ = s.ApplicationCommandBulkOverwrite(srv.AppID, guild, []*discordgo.ApplicationCommand{{Name: "ping", Description: "Ping"}})

	// The test plays the users.
	alice, bob := srv.NewMember("alice"), srv.NewMember("bob")
	in := srv.SlashCommand(guild, channel, alice, "ping")
	if err := srv.Send(ctx, in); err != nil {
		fmt.Println(err)
		return
	}
	resp, err := in.Response(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	board := resp.Message // the message the type 4 response created
	fmt.Println(resp.Type, board.Content, len(board.Buttons()))

	click := srv.Click(guild, channel, bob, board.ID, "ping/again")
	if err := srv.Send(ctx, click); err != nil {
		fmt.Println(err)
		return
	}
	resp, err = click.Response(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Type, resp.Message.Content, resp.Message.ID == board.ID, resp.Message.Edits)
	fmt.Println(len(srv.Messages(channel)), len(srv.Rejected()))
	// Output:
	// 4 pong 1
	// 7 pong, again true 1
	// 1 0
}
