package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// run heartbeats while Redis answers and probes it while it does not,
// until Close.
func (f *Failover) run() {
	defer close(f.done)
	for {
		wait := f.cfg.Heartbeat
		if !f.up.Load() {
			wait = f.cfg.Interval
		}
		t := time.NewTimer(wait)
		select {
		case <-f.stop:
			t.Stop()
			return
		case <-f.wake:
			t.Stop()
			continue
		case <-t.C:
		}
		if f.up.Load() {
			f.heartbeat(context.Background()) //nolint:errcheck // a failure counts against the breaker
			continue
		}
		if f.reach(context.Background()) != nil {
			continue
		}
		f.mu.Lock()
		if !f.closed && !f.up.Load() {
			f.up.Store(true)
			f.changes.Add(1)
			f.cfg.Logger.Info("redis reachable again: rate limits are shared through redis", "instances", f.Instances())
			f.nudge()
		}
		f.mu.Unlock()
	}
}

// reach checks that Redis answers in time: a first ping may connect,
// the heartbeat after it must answer within the deadline.
func (f *Failover) reach(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	err := f.redis.Ping(cctx)
	cancel()
	if err != nil {
		return err
	}
	return f.heartbeat(ctx)
}

// heartbeat marks this instance alive in Redis and records how many
// instances share the limits.
func (f *Failover) heartbeat(ctx context.Context) error {
	n, err := timed(f, ctx, func(ctx context.Context) (int, error) {
		return f.redis.Heartbeat(ctx, f.cfg.Group, f.id, max(5*f.cfg.Heartbeat, minMark))
	})
	if err != nil {
		return err
	}
	if old := f.instances.Swap(int64(n)); old != int64(n) {
		f.cfg.Logger.Info("instances sharing rate limits", "instances", n)
	}
	return nil
}

// heartbeatScript marks instance ARGV[1] alive for ARGV[2] ms in the
// sorted set KEYS[1] (scored by when each mark ends, on Redis's clock, so
// the instances' clocks need not agree), drops the marks that ended and
// returns how many instances are alive.
var heartbeatScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
`)

// instancesKey is the sorted set of the instances of group sharing the
// limits of a prefix; no limit's key has the @.
func (r *Redis) instancesKey(group string) string {
	if group == "" {
		return r.prefix + "@instances"
	}
	return r.prefix + "@instances:" + group
}

// Heartbeat marks the instance id of group as sharing these limits for
// ttl and returns how many instances of group are marked, itself
// included.
func (r *Redis) Heartbeat(ctx context.Context, group, id string, ttl time.Duration) (int, error) {
	n, err := heartbeatScript.Run(ctx, r.client, []string{r.instancesKey(group)}, id, max(ttl.Milliseconds(), 1)).Int()
	if err != nil {
		return 0, fmt.Errorf("ratelimit: redis heartbeat: %w", err)
	}
	return n, nil
}

// Leave removes the mark of the instance id of group, so the others
// count one fewer at once rather than when the mark ends.
func (r *Redis) Leave(ctx context.Context, group, id string) error {
	return r.client.ZRem(ctx, r.instancesKey(group), id).Err()
}
