package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/tttbot/tttbot/store"
)

// lockGateway takes the locks that keep two processes of one bot (one
// token) on one database from both connecting to the gateway, where both
// would get, and answer, every interaction: a second process started by
// mistake says so and stops. A process that runs shard i of n takes the
// bot's lock shared and shard i's exclusively, so that different shards
// run side by side, but not the same shard twice nor beside an unsharded
// process. HTTP-only replicas take none. The locks live beside the SQLite
// file, or as advisory locks in PostgreSQL; the returned function lets
// them go.
func lockGateway(ctx context.Context, cfg config) (release func(), err error) {
	sum := sha256.Sum256([]byte(cfg.token))
	bot := "gateway-" + hex.EncodeToString(sum[:4]) // the token, not shown
	type lock struct {
		name   string
		shared bool
	}
	locks := []lock{{bot, false}}
	o := cfg.discord
	sharded := o.ShardCount > 1 && !o.AutoShards
	if sharded {
		locks = []lock{{bot, true}, {fmt.Sprintf("%s-shard-%d-of-%d", bot, o.ShardID, o.ShardCount), false}}
	}
	var held []*store.Lock
	release = func() {
		for _, l := range held {
			_ = l.Close()
		}
	}
	for i, l := range locks {
		var h *store.Lock
		if cfg.database.kind == "postgres" {
			h, err = store.LockPostgres(ctx, cfg.database.target, l.name, l.shared)
		} else {
			h, err = store.LockSQLite(cfg.database.target, l.name, l.shared)
		}
		if err != nil {
			release()
			if !errors.Is(err, store.ErrLockHeld) {
				return nil, fmt.Errorf("take the gateway lock: %w", err)
			}
			where := cfg.database.where()
			switch {
			case !sharded:
				return nil, fmt.Errorf("another tttbot process is already connected to the gateway as this bot (or as one of its shards), with the same database (%s): "+
					"both would answer every interaction. Stop the other one; to run several, give each its own SHARD_ID of SHARD_COUNT, "+
					"or serve INTERACTIONS_ADDR behind a load balancer", where)
			case i == 0:
				return nil, fmt.Errorf("another tttbot process is connected to the gateway as this bot without shards, with the same database (%s): "+
					"stop it, or give it a SHARD_ID of SHARD_COUNT too", where)
			default:
				return nil, fmt.Errorf("shard %d of %d already runs in another tttbot process with the same database (%s): give this one another SHARD_ID",
					o.ShardID, o.ShardCount, where)
			}
		}
		held = append(held, h)
	}
	return release, nil
}
