package bot

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
)

// New returns a bot that edits and registers through dc and keeps its games
// in st.
func New(dc Discord, st Stores, cfg Config, log *slog.Logger) *Bot {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bot{dc: dc, cfg: cfg, log: log, stores: st, meter: noMeter{},
		starts: &startLimits{stored: st.Challenges.ChallengesFrom}, think: newThinking(thinkSlots()), self: new(self), run: newRunner()}
	b.catalog, b.catalogErr = catalog()
	if cfg.Meter != nil {
		b.meter = cfg.Meter
	}
	b.settings = &settings{store: st.Settings, table: cfg.Table, now: cfg.Now, log: log, activity: cfg.Activity}
	b.tables = &tables{games: st.Games, challenges: st.Challenges, meter: b.meter, log: log, now: cfg.Now, self: b.self, starts: b.starts, run: b.run, settings: b.settings}
	b.boards = &boards{dc: dc, catalog: b.catalog, log: log, now: cfg.Now, run: b.run, settings: b.settings, keeper: b.tables,
		pictures: &pictures{dc: dc, catalog: b.catalog, log: log, settings: b.settings}}
	b.tables.upkeep = b.boards
	b.records = &records{store: st.Stats, catalog: b.catalog, settings: b.settings, self: b.self, log: log, program: cfg.About, started: cfg.Now()}
	b.seen = &seen{store: st.Interactions, now: cfg.Now, run: b.run, log: log, answer: b.answerSeen}
	b.routes = newRoutes(b)
	return b
}

// SetSelf records the bot's own user id, from READY. Until it is known the
// bot cannot tell "play against me" from a challenge.
func (b *Bot) SetSelf(userID string) { b.self.set(userID) }

// Register overwrites the application's commands with Commands(), in
// cfg.GuildID when set, else globally. Globally it keeps the app's entry
// point command, which Discord creates when Activities are enabled and
// will not have dropped by a bulk overwrite (keptCommands). Registering
// globally also empties
// the guilds that got a copy of their own from an earlier run with a guild
// set (the store remembers them), so that nobody sees every command twice.
// It fails, registering nothing, if the message catalog could not be
// parsed: the bot must not start then.
func (b *Bot) Register(ctx context.Context, appID string) error {
	if b.catalogErr != nil {
		return fmt.Errorf("register commands: %w", b.catalogErr)
	}
	guild := b.cfg.GuildID
	if guild != "" {
		if _, err := b.dc.ApplicationCommandBulkOverwrite(appID, guild, Commands(), discordgo.WithContext(ctx)); err != nil {
			return fmt.Errorf("register commands: %w", err)
		}
		if err := b.stores.CommandGuilds.SetCommandGuild(ctx, guild, true); err != nil {
			return fmt.Errorf("register commands: %w", err)
		}
		return nil
	}
	if err := b.registerGlobal(ctx, appID); err != nil {
		return fmt.Errorf("register commands: %w", err)
	}
	old, err := b.stores.CommandGuilds.CommandGuilds(ctx)
	if err != nil {
		return fmt.Errorf("register commands: %w", err)
	}
	for _, g := range old {
		if _, err := b.dc.ApplicationCommandBulkOverwrite(appID, g, []*discordgo.ApplicationCommand{}, discordgo.WithContext(ctx)); err != nil {
			return fmt.Errorf("remove the commands of guild %s, registered there before: %w", g, err)
		}
		if err := b.stores.CommandGuilds.SetCommandGuild(ctx, g, false); err != nil {
			return fmt.Errorf("register commands: %w", err)
		}
		b.log.Info("removed the guild's own copy of the commands, now registered globally", "guild", g)
	}
	return nil
}

// Close stops every timer and waits for interactions and background edits
// in flight. Games and open challenges stay in the store, deadlines with
// them. Interactions that arrive during Close are told the bot is
// restarting.
func (b *Bot) Close() {
	// Answers in flight finish first (their edits may still start), so
	// that no challenge is opened after the timers stop.
	b.run.close()
	b.tables.stopTimers()
	b.run.drain()
}

// Restore ends the games whose time ran out while the bot was away and
// restarts the turn timers of the others. Then, every sweepEvery, it ends
// the games whose time ran out without a timer here: games another process
// was timing when it stopped, and sends the reminders due of those it
// does not time. Whichever process saves the timeout (or claims the
// reminder) first wins; the others find the game over (or reminded).
func (b *Bot) Restore(ctx context.Context) error { return b.tables.restore(ctx) }
