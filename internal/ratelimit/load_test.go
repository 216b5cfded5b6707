package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestSharedLimitUnderLoad is the reviewer's case: two instances (each
// with its own Redis client, breaker and memory) sharing one Redis, 16
// clients at once on one token, on a host whose every core is busy. First
// Redis answers, but each reply 100 ms late (twice the deadline that used
// to open the breaker); then Redis is cut. In neither case do the
// instances together let more than the limit through, and a window spent
// while Redis answered stays spent after it is gone.
func TestSharedLimitUnderLoad(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	prefix := sharedPrefix(t)
	// The production settings, with the probe's pace of the other tests.
	cfg := FailoverConfig{Heartbeat: DefaultHeartbeat}
	instances := []*Failover{failoverWith(t, proxy.Addr(), prefix, nil, cfg), failoverWith(t, proxy.Addr(), prefix, nil, cfg)}
	waitInstances(t, 2, instances...)
	testenv.BurnCPU(t)
	proxy.Delay(100 * time.Millisecond)

	const limit, clients, each = 240, 16, 20 // 320 requests
	burst := func(key string) int {
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for c := range clients {
			f := instances[c%2]
			wg.Go(func() {
				for range each {
					r, err := f.Allow(context.Background(), key, limit, time.Minute)
					if err != nil {
						t.Errorf("Allow: %v", err)
						return
					}
					if r.Allowed {
						allowed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		return int(allowed.Load())
	}

	start := time.Now()
	if n := burst("t:slow"); n > limit {
		t.Errorf("slow Redis on a loaded host: %d of %d requests allowed, limit %d", n, clients*each, limit)
	} else {
		t.Logf("slow Redis on a loaded host: %d of %d allowed, limit %d, in %v", n, clients*each, limit, time.Since(start).Round(time.Millisecond))
	}
	for i, f := range instances {
		t.Logf("instance %d: %d calls missed the deadline (now %v) and were decided alone, %d breaker changes",
			i, f.Failures(), f.Deadline().Round(time.Millisecond), f.StateChanges())
	}

	proxy.Cut()
	if n := burst("t:down"); n > limit {
		t.Errorf("Redis cut, a fresh window: %d of %d requests allowed, limit %d", n, clients*each, limit)
	} else {
		t.Logf("Redis cut, a fresh window: %d of %d allowed (each instance its share)", n, clients*each)
	}
	if n := burst("t:slow"); n > 0 {
		t.Errorf("Redis cut, the window spent while it answered: %d more allowed, want none", n)
	}
}
