-- The leaderboard against the computer, in its order, so that its first
-- few rows are read without sorting every player of the guild.
CREATE INDEX players_computer ON players (guild_id, computer_wins DESC, computer_draws DESC, computer_losses, user_id)
	WHERE computer_games > 0;
