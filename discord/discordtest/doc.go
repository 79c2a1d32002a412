// Package discordtest is a fake Discord for tests, in the spirit of
// net/http/httptest: a real REST server and a real gateway websocket on
// 127.0.0.1 that an unmodified discordgo session connects to.
//
// A test starts a [Server], points the bot at [Server.APIURL] (every request
// whose URL starts with discordgo.EndpointAPI is rewritten to APIURL plus the
// rest of the URL), lets the bot open its session, and then plays the part of
// Discord's users: it builds interactions with [Server.SlashCommand] and
// [Server.Click], [Server.Select], [Server.Autocomplete] and
// [Server.SubmitModal], dispatches them with [Server.Send] and reads what the bot
// answered with [Interaction.Response], [Server.Messages] and
// [Server.Followups]. Nothing in the bot is mocked away: the bot's own
// discordgo session speaks HTTP and websocket to this server.
//
// # What it models
//
// The fake checks what Discord checks, so that tests catch the bugs Discord
// would reject in production:
//
//   - Gateway: Hello (op 10), Identify (op 2; a wrong token closes the socket
//     with 4004, privileged intents not enabled in [Server.PrivilegedIntents]
//     close it with 4014), READY, heartbeats (op 1) answered with op 11,
//     Resume (op 6) of a known session answered with RESUMED, and an
//     Invalid Session (op 9) for an unknown one. Dispatches carry an increasing
//     sequence number per session. Several connections (shards) may be open;
//     an event for a guild goes to the shard (guild_id >> 22) % num_shards.
//   - Interactions: the callback must come within [Server.AckDeadline] of the
//     dispatch (else 404 10062 and the user sees "This interaction failed"),
//     only the first callback counts (40060 afterwards), UPDATE_MESSAGE and
//     DEFERRED_UPDATE_MESSAGE are only valid for components (and modals
//     they opened), the interaction
//     token works for [Server.TokenTTL] (webhook routes answer 401 50027
//     after it, after [Server.ExpireTokens], or after a failed
//     interaction), ephemeral messages are
//     visible only to the invoking user and never appear in the channel nor
//     to the bot token's routes. A followup always returns its message (wait
//     is implied), and right after a DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE it
//     completes the loading message instead of creating one, as on Discord.
//   - Select menus, modals and autocomplete: a choice in a string select
//     ([Server.Select]) must be among the menu's options, min_values to
//     max_values of them; a MODAL callback is valid for commands and
//     components, not for a modal submit; its components are checked
//     against Discord's component reference: Labels (type 18: a label of 1
//     to 45, a description of up to 100, one child of the documented
//     kinds), Text Displays, and the deprecated action rows of one labelled
//     text input; text inputs by style and lengths. [Server.SubmitModal]
//     submits it with values that fit its inputs, each in what held it (a
//     Label with its id and component, or an action row), and carries the
//     message of the component that opened it, which UPDATE_MESSAGE may
//     then edit; an
//     autocomplete ([Server.Autocomplete], one option [Focused], sent as a
//     string) takes only APPLICATION_COMMAND_AUTOCOMPLETE_RESULT, whose
//     choices (an array, even empty; at most 25; names of 1 to 100, values
//     of the option's type) answer nothing else. [Response.Modal] and
//     [Response.Choices] hold what the bot answered.
//   - Message limits, on every route that creates or edits a message: 2000
//     code points of content, 5 action rows of 5 buttons, custom_id of at
//     most 100 characters and unique in the message, labels of at most 80,
//     select menus alone in their row with 1 to 25 options (labels and
//     values of at most 100, values unique, no more defaults than
//     max_values), 10 embeds, 4096 characters of embed description and 6000 of embed text
//     in all; violations get 400 50035 "Invalid Form Body" with Discord's
//     nested "errors" object, and an empty message gets 400 50006.
//   - Edits follow Discord's PATCH semantics: a field that is absent keeps
//     its value, a field that is present replaces it, and null or "" clears
//     it. discordgo's InteractionResponseData always sends content,
//     components and embeds, so an UPDATE_MESSAGE built from it replaces all
//     three, exactly as on Discord.
//   - Command registration by bulk overwrite, per scope (global or guild),
//     with Discord's rules on names, descriptions and options; a command keeps
//     its id when it is overwritten under the same name (or its id).
//   - Activities ([Server.EnableActivities]): the app's entry point command
//     (PRIMARY_ENTRY_POINT, global, with its handler, which discordgo's type
//     lacks), which a bulk overwrite of the global commands must keep (else
//     400 50240); [Server.EntryPointCommand] sends it to the app only with
//     the handler APP_HANDLER; the LAUNCH_ACTIVITY callback (12), without
//     data, valid only for an app with Activities.
//   - Bot authentication ("Authorization: Bot <token>") on bot routes.
//   - Nonces on Create Message (POST /channels/{id}/messages): a nonce of
//     at most 25 characters (a string, or an integer taken as its
//     digits) is kept with the message and returned with it; with
//     enforce_nonce, a create by the same author with a nonce used within
//     [Server.NonceWindow] (in any channel) makes no message and is
//     answered with the one made with it, as it is now, or with 404 10008
//     if that was deleted since, as on Discord. Webhooks and follow-ups
//     take no nonce on Discord, and the fake ignores one there.
//
// Every REST request is recorded ([Server.Requests], [Server.WaitRequests]);
// requests the fake rejected ([Server.Rejected]) or did not know
// ([Server.Unhandled]) can be asserted to be none.
//
// # Faults
//
// A test can make the fake misbehave the ways Discord does, and check that
// the bot recovers:
//
//   - REST: [Server.FailNext] fails the next matching request once, with
//     any status: a 5xx, or a 429 limited per route (X-RateLimit-Scope
//     user, with Retry-After, X-RateLimit-Reset-After and a retry_after in
//     the body); [Server.FailNextGlobal] with a 429 of the global limit
//     ("global": true in the body, X-RateLimit-Global, scope global).
//     [Server.InjectFaults] fails a share of the matching requests, per
//     route (a path prefix, a method, or every write), by chance from a
//     seed: 429s of the route's or the global limit with a retry_after,
//     5xx; and delays their answers (latency). [Server.LoseNextAnswer],
//     and Faults.LostAnswers by chance, carry a request out and then
//     answer it with a 5xx all the same (Request.Lost): Discord acted,
//     and the bot cannot know; [Server.History] lists every message a
//     channel got, the deleted ones too, to count what players were
//     shown. The fake holds the bot to
//     every 429 it answered: a request on that route (for the global
//     limit, on any route but the interaction endpoints) before its
//     retry_after has passed gets another 429, which is not injected and
//     so is in [Server.Rejected] and [Server.RateLimitsIgnored].
//   - Gateway: [Server.DropConnections] closes every socket with code 4000
//     (the client resumes); [Server.Reconnect] sends Reconnect (op 7: the
//     client closes, reconnects and resumes); [Server.InvalidateSessions]
//     sends Invalid Session (op 9), resumable or not (then the sessions are
//     forgotten and a Resume fails; discordgo identifies again on the same
//     socket either way); [Server.ExpireSessions] forgets the sessions
//     without a word, so that the Resume after a DropConnections fails;
//     [Server.StopHeartbeatACKs] turns the connections
//     into zombies that no longer acknowledge heartbeats (discordgo notices
//     after 5 heartbeat intervals: set [Server.HeartbeatInterval] small).
//     Each takes the connections it acts on out of service, so that Send
//     and [Server.WaitReady] wait for the client to come back.
//     [Server.Resumes], [Server.Identifies], [Server.WaitResumes] and
//     [Server.WaitIdentifies] tell how it came back.
//
// # What it does not model
//
// No zlib or zstd transport compression and no ETF encoding (frames are plain
// JSON text, even when Identify asks for compress); no voice; no rate-limit
// headers or 429s except the ones injected (FailNext, FailNextGlobal,
// InjectFaults) and those of a client that ignored them; no guilds, channels,
// roles or permissions beyond the IDs a test uses (any channel ID is a text
// channel the bot may write to, and READY lists no guilds); no events other
// than READY, RESUMED and INTERACTION_CREATE, and no replay of missed events
// on resume; no closing of connections whose client stops heartbeating;
// no select menus of users, roles, mentionables or channels, and no modal
// field but a text input can be submitted (a Label's other children are
// checked for their custom_id alone); attachments
// sent as multipart/form-data are accepted and listed but not stored.
//
// Error messages of the fake's own making (for instance for a callback type
// that does not fit the interaction) are plain English; the codes are
// Discord's.
package discordtest
