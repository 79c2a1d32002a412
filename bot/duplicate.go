package bot

import "context"

// answerSeen answers req, whose first delivery another process (or this
// one) acted on, done (serveOnce), without acting on it again. If
// the channel's stored game shows req's own change (playedBy), req is a
// delivery to a second replica, and its player gets the board as the
// first process answered; anything else (a replay) is told it came twice.
func (b *Bot) answerSeen(ctx context.Context, req *request) {
	b.log.Warn("an interaction was acted on before; answering without acting on it again", "channel", req.ChannelID, "interaction", req.ID)
	if ch, err := b.tables.lock(ctx, req.ChannelID, false); err == nil {
		m := ch.match
		replayed := m != nil && playedBy(m, req)
		if replayed {
			err = b.replay(ctx, req, m)
		}
		b.tables.unlock(ch)
		if replayed {
			if err != nil {
				b.log.Warn("could not answer a second delivery", "err", err)
			}
			b.meter.Interaction(req.kind, "duplicate", req.answerTook)
			return
		}
	}
	if err := req.say(ctx, req.lang.T("error.duplicate", nil)); err != nil {
		b.log.Warn("could not answer a duplicate", "err", err)
	}
	b.meter.Interaction(req.kind, "duplicate", req.answerTook)
}
