package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tttbot/tttbot/store"
)

// gatewayLock holds the locks that keep two processes of one bot (one
// token) on one database from both connecting to the gateway, where both
// would get, and answer, every interaction: a second process started by
// mistake says so and stops. A process that runs shard i of n takes the
// bot's lock shared and shard i's exclusively, so that different shards
// run side by side, but not the same shard twice nor beside an unsharded
// process. HTTP-only replicas take none. The locks live beside the SQLite
// file, or as advisory locks in PostgreSQL.
//
// A PostgreSQL lock is lost with its connection (a restart, a failover,
// an idle-connection killer). Then watch takes it again on a new
// connection, and /readyz fails until it has; if another process took it
// in between, the lock is gone for good: Gone is closed, and the gateway
// must stop. While a lock is lost, the gateway's interactions wait (see
// hold): another process may have the lock, and answer them. Make one
// with newGatewayLock.
type gatewayLock struct {
	every  time.Duration // how often a PostgreSQL lock's connection is checked; 0: store.DefaultLockCheck
	within time.Duration // how long hold holds an interaction at most
	log    *slog.Logger

	mu       sync.Mutex
	held     []*store.Lock
	released bool
	done     chan struct{} // closed by release: the watch ends
	lost     int           // locks lost and not yet taken again
	calm     chan struct{} // closed while lost is 0

	gone     chan struct{} // closed when another process took a lock
	goneErr  error         // why, written before gone is closed
	goneOnce sync.Once
}

// holdWithin is how long an interaction that arrives over the gateway
// while a lock is lost waits at most for the lock to be taken again:
// Discord wants an answer within 3 s.
const holdWithin = 2 * time.Second

// newGatewayLock makes a gatewayLock that holds nothing yet, whose
// PostgreSQL locks are checked every every (0: store.DefaultLockCheck),
// and whose interactions wait up to within (0: holdWithin) while a lock
// is lost.
func newGatewayLock(every, within time.Duration, log *slog.Logger) *gatewayLock {
	if within <= 0 {
		within = holdWithin
	}
	calm := make(chan struct{})
	close(calm)
	return &gatewayLock{every: every, within: within, log: log, calm: calm,
		done: make(chan struct{}), gone: make(chan struct{})}
}

// lockSpec is one lock to take: its name, and whether it is shared.
type lockSpec struct {
	name   string
	shared bool
}

// specs are the locks of cfg's gateway connection.
func (cfg config) gatewayLocks() []lockSpec {
	sum := sha256.Sum256([]byte(cfg.token))
	bot := "gateway-" + hex.EncodeToString(sum[:4]) // the token, not shown
	o := cfg.discord
	if o.ShardCount > 1 && !o.AutoShards {
		return []lockSpec{{bot, true}, {fmt.Sprintf("%s-shard-%d-of-%d", bot, o.ShardID, o.ShardCount), false}}
	}
	return []lockSpec{{bot, false}}
}

// take takes the locks of cfg's gateway connection, or none, with an
// error that says which other process holds one.
func (g *gatewayLock) take(ctx context.Context, cfg config) error {
	specs := cfg.gatewayLocks()
	sharded := len(specs) > 1
	var held []*store.Lock
	for i, l := range specs {
		h, err := g.lock(ctx, cfg, l)
		if err != nil {
			for _, h := range held {
				_ = h.Close()
			}
			if !errors.Is(err, store.ErrLockHeld) {
				return fmt.Errorf("take the gateway lock: %w", err)
			}
			where := cfg.database.where()
			o := cfg.discord
			switch {
			case !sharded:
				return fmt.Errorf("another tttbot process is already connected to the gateway as this bot (or as one of its shards), with the same database (%s): "+
					"both would answer every interaction. Stop the other one; to run several, give each its own SHARD_ID of SHARD_COUNT, "+
					"or serve INTERACTIONS_ADDR behind a load balancer", where)
			case i == 0:
				return fmt.Errorf("another tttbot process is connected to the gateway as this bot without shards, with the same database (%s): "+
					"stop it, or give it a SHARD_ID of SHARD_COUNT too", where)
			default:
				return fmt.Errorf("shard %d of %d already runs in another tttbot process with the same database (%s): give this one another SHARD_ID",
					o.ShardID, o.ShardCount, where)
			}
		}
		held = append(held, h)
	}
	g.mu.Lock()
	g.held = held
	g.mu.Unlock()
	return nil
}

func (g *gatewayLock) lock(ctx context.Context, cfg config, l lockSpec) (*store.Lock, error) {
	if cfg.database.kind == "postgres" {
		return store.LockPostgres(ctx, cfg.database.target, l.name, l.shared, g.every)
	}
	return store.LockSQLite(cfg.database.target, l.name, l.shared)
}

// watch keeps the locks taken by take until ctx ends or release: a lock
// that is lost is taken again at once on a new connection, then every
// g.every while the database does not answer; one that another process
// took is gone. Each change is logged.
func (g *gatewayLock) watch(ctx context.Context, cfg config, log *slog.Logger) {
	g.mu.Lock()
	held := append([]*store.Lock(nil), g.held...)
	g.mu.Unlock()
	specs := cfg.gatewayLocks()
	for i, h := range held {
		go g.keep(ctx, cfg, log, i, specs[i], h)
	}
}

// keep keeps lock i, spec, held as h.
func (g *gatewayLock) keep(ctx context.Context, cfg config, log *slog.Logger, i int, spec lockSpec, h *store.Lock) {
	every := g.every
	if every <= 0 {
		every = store.DefaultLockCheck
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.done:
			return
		case <-h.Lost():
		}
		g.setLost(+1)
		log.Warn("the gateway lock's connection to the database was lost (a restart, a failover, or a killed connection); taking the lock again",
			"lock", spec.name, "err", h.Cause())
		for try := 0; ; try++ {
			if try > 0 {
				t := time.NewTimer(every)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-g.done:
					t.Stop()
					return
				case <-t.C:
				}
			}
			if g.isReleased() || ctx.Err() != nil {
				return
			}
			tctx, cancel := context.WithTimeout(ctx, max(every, 5*time.Second))
			// The server may still hold the lost lock for this process's
			// old session: TakeAgain ends that session, and only another
			// session's hold is ErrLockHeld.
			nh, err := h.TakeAgain(tctx, cfg.database.target)
			cancel()
			if errors.Is(err, store.ErrLockHeld) {
				g.lose(fmt.Errorf("another tttbot process took the gateway lock (%s) while this one's connection to the database (%s) was lost: "+
					"this one stopped its gateway connection, so that interactions are not answered twice", spec.name, cfg.database.where()))
				log.Error("another tttbot process took the gateway lock while this one's connection to the database was lost: stopping the gateway connection, so that interactions are not answered twice",
					"lock", spec.name, "err", err)
				return
			}
			if err != nil {
				if try == 0 {
					log.Warn("the gateway lock cannot be taken again yet; trying again", "lock", spec.name, "every", every, "err", err)
				}
				continue
			}
			g.mu.Lock()
			if g.released {
				g.mu.Unlock()
				_ = nh.Close()
				return
			}
			g.held[i] = nh
			g.mu.Unlock()
			h = nh
			g.setLost(-1)
			log.Info("took the gateway lock again", "lock", spec.name)
			break
		}
	}
}

// setLost counts a lock lost (+1) or taken again (-1).
func (g *gatewayLock) setLost(d int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lost == 0 {
		g.calm = make(chan struct{})
	}
	g.lost += d
	if g.lost == 0 {
		close(g.calm)
	}
}

// hold says whether an interaction that arrived over the gateway is this
// process's to answer: at once while every lock is held; while one is
// lost, once it is taken again, waiting up to g.within for that. Not if
// another process took it (Gone), nor if it is still lost after the
// wait: then another process may have it, and answer.
func (g *gatewayLock) hold(ctx context.Context) bool {
	g.mu.Lock()
	calm := g.calm
	g.mu.Unlock()
	select {
	case <-g.gone:
		return false
	default:
	}
	select {
	case <-calm:
		return true
	default:
	}
	if g.log != nil {
		g.log.Debug("an interaction waits while the gateway lock is taken again", "within", g.within)
	}
	t := time.NewTimer(g.within)
	defer t.Stop()
	select {
	case <-calm:
	case <-g.gone:
		return false
	case <-ctx.Done():
		return false
	case <-t.C:
		if g.log != nil {
			g.log.Warn("an interaction was left unanswered: the gateway lock was lost and not taken again in time, and another process may have it",
				"within", g.within)
		}
		return false
	}
	select {
	case <-g.gone:
		return false
	default:
		return true
	}
}

func (g *gatewayLock) isReleased() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.released
}

// lose marks the locks gone for good, for err.
func (g *gatewayLock) lose(err error) {
	g.goneOnce.Do(func() {
		g.goneErr = err
		close(g.gone)
	})
}

// Gone is closed when another process took one of the locks: the gateway
// must stop. Err then says why.
func (g *gatewayLock) Gone() <-chan struct{} { return g.gone }

// Err is nil while every lock taken is held: the reason /readyz fails
// otherwise.
func (g *gatewayLock) Err() error {
	if err := g.goneCause(); err != nil {
		return err
	}
	g.mu.Lock()
	lost := g.lost
	g.mu.Unlock()
	if lost > 0 {
		return errors.New("the gateway lock's connection to the database was lost: taking the lock again")
	}
	return nil
}

// goneCause is the error of Gone, once it is closed.
func (g *gatewayLock) goneCause() error {
	select {
	case <-g.gone:
		return g.goneErr
	default:
		return nil
	}
}

// release lets the locks go.
func (g *gatewayLock) release() {
	g.mu.Lock()
	held := g.held
	if !g.released {
		close(g.done)
	}
	g.held, g.released = nil, true
	g.mu.Unlock()
	for _, l := range held {
		// The next process takes the lock at once only if this one let
		// it go: say so when the database did not confirm it (it lets
		// go when it sees the connection closed).
		if err := l.Close(); err != nil && g.log != nil {
			g.log.Warn("the gateway lock's release was not confirmed; the database lets it go when it sees the connection closed", "err", err)
		}
	}
}
