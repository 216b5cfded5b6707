package ratelimit

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/loyalty/loyalty/internal/testenv"
)

// redisOptions returns the options of the tests' Redis
// (LOYALTY_TEST_REDIS_URL, default redis://127.0.0.1:6379/0); "off" skips.
func redisOptions(tb testing.TB) *redis.Options {
	tb.Helper()
	url := testenv.RedisURL(tb)
	opts, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("parse %s: %v", url, err)
	}
	return opts
}

// closedPort is a loopback address nothing listens on.
func closedPort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// logLines is a log the limiter writes while the test reads it.
type logLines struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logLines) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), msg)
}

// failoverAt returns a Failover on the Redis at addr (the real one, a
// proxy to it, or a closed port) counting under prefix, closed when tb
// ends; its log goes to logs when not nil. It heartbeats and probes every
// 20 ms and opens after failures over 50 ms, so tests need not wait.
func failoverAt(tb testing.TB, addr, prefix string, logs *logLines) *Failover {
	tb.Helper()
	return failoverWith(tb, addr, prefix, logs, FailoverConfig{FailWindow: 50 * time.Millisecond})
}

// failoverWith is failoverAt with cfg (its zero fields: the defaults,
// but for Interval and Heartbeat, 20 ms). Each Failover has a client of
// its own, as another instance would.
func failoverWith(tb testing.TB, addr, prefix string, logs *logLines, cfg FailoverConfig) *Failover {
	tb.Helper()
	opts := redisOptions(tb)
	opts.Addr = addr
	c := newClient(opts)
	tb.Cleanup(func() { c.Close() })
	var out bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&out, nil))
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	if cfg.Interval == 0 {
		cfg.Interval = 20 * time.Millisecond
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 20 * time.Millisecond
	}
	f := NewFailover(context.Background(), NewRedis(c, prefix), cfg)
	tb.Cleanup(func() { f.Close() })
	return f
}

// sharedPrefix returns a key prefix of the real Redis whose keys are
// deleted when tb ends.
func sharedPrefix(tb testing.TB) string {
	tb.Helper()
	c := redis.NewClient(redisOptions(tb))
	prefix := "loyalty:test:rl:" + rand.Text() + ":"
	tb.Cleanup(func() {
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
		c.Close()
	})
	return prefix
}

// waitFor waits up to 10 s for cond, failing with what otherwise.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitUp waits until every f has found Redis back.
func waitUp(t *testing.T, fs ...*Failover) {
	t.Helper()
	waitFor(t, "Redis is back but a limiter still counts in memory after 10 s", func() bool {
		return !slices.ContainsFunc(fs, func(f *Failover) bool { return !f.Up() })
	})
}

// waitDown waits until every f has opened its breaker.
func waitDown(t *testing.T, fs ...*Failover) {
	t.Helper()
	waitFor(t, "Redis is gone but a limiter still takes it for up after 10 s", func() bool {
		return !slices.ContainsFunc(fs, (*Failover).Up)
	})
}

// waitInstances waits until every f counts n instances.
func waitInstances(t *testing.T, n int, fs ...*Failover) {
	t.Helper()
	waitFor(t, fmt.Sprintf("the limiters do not count %d instances after 10 s", n), func() bool {
		return !slices.ContainsFunc(fs, func(f *Failover) bool { return f.Instances() != n })
	})
}

// TestFailoverBehaviour: the limiter table holds through the breaker, on
// Redis while it answers and in memory while it does not.
func TestFailoverBehaviour(t *testing.T) {
	t.Run("redis up", func(t *testing.T) {
		runBehaviour(t, func(t *testing.T) Limiter {
			// The table's exact counts are Redis's: a deadline no busy
			// test machine misses keeps every call on Redis.
			f := failoverWith(t, redisOptions(t).Addr, sharedPrefix(t), nil, FailoverConfig{MinTimeout: 2 * time.Second, MaxTimeout: 2 * time.Second})
			if !f.Up() {
				t.Fatal("Failover on the real Redis starts down")
			}
			return f
		})
	})
	t.Run("redis down", func(t *testing.T) {
		runBehaviour(t, func(t *testing.T) Limiter {
			f := failoverAt(t, closedPort(t), "k:", nil)
			if f.Up() || f.Instances() != 1 {
				t.Fatalf("Failover on a closed port: up %v, %d instances; want down, 1 (alone, it enforces the whole limit)", f.Up(), f.Instances())
			}
			return f
		})
	})
}

// TestFailoverOutage: two instances share counts through Redis; while it
// is cut each enforces its share of each limit, with no error, and a
// window Redis had already spent stays spent; when it is back they share
// Redis's counts again. Each change is logged once.
func TestFailoverOutage(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	prefix := sharedPrefix(t)
	logs := &logLines{}
	a, b := failoverAt(t, proxy.Addr(), prefix, logs), failoverAt(t, proxy.Addr(), prefix, logs)
	waitInstances(t, 2, a, b)
	ctx := context.Background()
	allow := func(f *Failover, key string, limit int) Result {
		t.Helper()
		r, err := f.Allow(ctx, key, limit, time.Minute)
		if err != nil {
			t.Fatalf("Allow: %v, want no error whatever Redis does", err)
		}
		return r
	}
	for i, f := range []*Failover{a, b, a} {
		if r := allow(f, "k", 3); !r.Allowed || r.Remaining != 2-i {
			t.Fatalf("shared request %d: %+v, want allowed, Remaining %d", i+1, r, 2-i)
		}
	}
	if r := allow(b, "k", 3); r.Allowed {
		t.Fatal("over the shared limit: allowed")
	}

	proxy.Cut()
	for _, f := range []*Failover{a, b} {
		if r := allow(f, "k", 3); r.Allowed || r.Remaining != 0 || r.Reset.IsZero() {
			t.Fatalf("the window Redis had spent, during the outage: %+v, want denied with a Reset", r)
		}
		// Its share of 5 between two: 2 (the shared count says 2 × 2 = 4).
		for _, want := range []int{3, 1} {
			if r := allow(f, "fresh", 5); !r.Allowed || r.Remaining != want || r.Limit != 5 {
				t.Fatalf("a fresh window during the outage: %+v, want allowed, Remaining %d, Limit 5", r, want)
			}
		}
		if r := allow(f, "fresh", 5); r.Allowed || r.Remaining != 0 {
			t.Fatalf("over its share during the outage: %+v, want denied", r)
		}
	}
	waitDown(t, a, b)
	if a.StateChanges() != 1 || b.StateChanges() != 1 || a.Instances() != 2 {
		t.Errorf("during the outage: %d, %d state changes, %d instances; want 1, 1 and 2 (the last count)", a.StateChanges(), b.StateChanges(), a.Instances())
	}

	proxy.Restore()
	waitUp(t, a, b)
	if r := allow(a, "other", 3); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("fresh key after the outage: %+v, want allowed, Remaining 2", r)
	}
	if r := allow(b, "other", 3); r.Remaining != 1 {
		t.Fatalf("fresh key on the other instance: %+v, want the shared count (Remaining 1)", r)
	}
	if a.StateChanges() != 2 || b.StateChanges() != 2 {
		t.Errorf("state changes %d, %d; want 2 each", a.StateChanges(), b.StateChanges())
	}
	if down, up := logs.count("redis unreachable"), logs.count("redis reachable again"); down != 2 || up != 2 {
		t.Errorf("log lines: %d unreachable, %d reachable again; want one of each per instance", down, up)
	}
}

// TestFailoverInstances: instances sharing a prefix (and group) count
// each other through their heartbeats; one that closes is no longer
// counted; one that starts with Redis down takes the configured number.
func TestFailoverInstances(t *testing.T) {
	addr, prefix := redisOptions(t).Addr, sharedPrefix(t)
	a, b, c := failoverAt(t, addr, prefix, nil), failoverAt(t, addr, prefix, nil), failoverAt(t, addr, prefix, nil)
	other := failoverAt(t, addr, sharedPrefix(t), nil)
	grouped := failoverWith(t, addr, prefix, nil, FailoverConfig{Group: "another-installation"})
	waitInstances(t, 3, a, b, c)
	c.Close()
	waitInstances(t, 2, a, b)
	if n := other.Instances(); n != 1 {
		t.Errorf("an instance of another prefix counts %d, want 1", n)
	}
	if n := grouped.Instances(); n != 1 {
		t.Errorf("an instance of another group on the prefix counts %d, want 1", n)
	}
	alone := failoverWith(t, closedPort(t), "k:", nil, FailoverConfig{Instances: 4})
	if n := alone.Instances(); alone.Up() || n != 4 {
		t.Errorf("started with Redis down: up %v, %d instances; want down, 4 (configured)", alone.Up(), n)
	}
	if r := allow(t, alone, "k", 8, time.Minute); !r.Allowed || r.Remaining != 4 {
		t.Errorf("one of 4 instances, limit 8: %+v, want allowed, Remaining 4", r)
	}
	if r := allow(t, alone, "k", 8, time.Minute); !r.Allowed || r.Remaining != 0 {
		t.Errorf("second request: %+v, want allowed, Remaining 0", r)
	}
	if r := allow(t, alone, "k", 8, time.Minute); r.Allowed {
		t.Errorf("third request of one of 4 instances, limit 8: %+v, want denied (its share is 2)", r)
	}
}

// TestFailoverSlowRedis: a Redis slower than the deadline is not taken
// for down: the calls that miss the deadline are decided alone and
// double it, until Redis's answers fit in it; from then on Redis decides
// again, and the breaker never opened.
func TestFailoverSlowRedis(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	f := failoverWith(t, proxy.Addr(), sharedPrefix(t), nil, FailoverConfig{MinTimeout: 50 * time.Millisecond})
	proxy.Delay(150 * time.Millisecond) // three times the deadline
	ctx := context.Background()
	for i := range 8 {
		if r, err := f.Allow(ctx, "k", 100, time.Minute); err != nil || !r.Allowed {
			t.Fatalf("call %d on a slow Redis: %+v, %v; want allowed", i, r, err)
		}
	}
	if f.Failures() == 0 {
		t.Error("no call missed a 50 ms deadline on a Redis answering 150 ms late")
	}
	if d := f.Deadline(); d < 150*time.Millisecond {
		t.Errorf("deadline %v after answers 150 ms late, want more than 150 ms", d)
	}
	missed := f.Failures()
	for range 4 {
		f.Allow(ctx, "k", 100, time.Minute)
	}
	if n := f.Failures() - missed; n != 0 {
		t.Errorf("%d calls missed the deadline once it had grown to %v", n, f.Deadline())
	}
	if !f.Up() || f.StateChanges() != 0 {
		t.Errorf("a slow Redis: up %v, %d state changes; want up, none", f.Up(), f.StateChanges())
	}
}

// TestFailoverRunOfFailures: a failed call does not open the breaker;
// failures in a row over FailWindow do.
func TestFailoverRunOfFailures(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	const window = 300 * time.Millisecond
	f := failoverWith(t, proxy.Addr(), sharedPrefix(t), nil, FailoverConfig{FailWindow: window})
	ctx := context.Background()
	proxy.Cut()
	start := time.Now()
	if r, err := f.Allow(ctx, "k", 10, time.Minute); err != nil || !r.Allowed {
		t.Fatalf("a call on a cut Redis: %+v, %v; want allowed from memory", r, err)
	}
	if f.Failures() == 0 {
		t.Fatal("a call on a cut Redis did not count as a failure")
	}
	if time.Since(start) < window && !f.Up() {
		t.Fatal("the breaker opened within FailWindow of the first failure")
	}
	waitDown(t, f)
	if d := time.Since(start); d < window {
		t.Errorf("the breaker opened %v after the first failure, want FailWindow (%v) or more", d, window)
	}
}

// TestFailoverSilentRedis: a Redis that stops answering (no error, no
// reply) holds up the calls in flight for at most the deadline, and
// after the run of failures that opens the breaker no call touches it
// until a probe finds it back.
func TestFailoverSilentRedis(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	const least, most = 100 * time.Millisecond, 300 * time.Millisecond
	f := failoverWith(t, proxy.Addr(), sharedPrefix(t), nil, FailoverConfig{MinTimeout: least, MaxTimeout: most, FailWindow: 50 * time.Millisecond})
	ctx := context.Background()
	if _, err := f.Allow(ctx, "k", 100, time.Minute); err != nil || !f.Up() {
		t.Fatalf("Allow through the proxy: %v, up %v", err, f.Up())
	}
	proxy.Silence()
	start := time.Now()
	if r, err := f.Allow(ctx, "k", 100, time.Minute); err != nil || !r.Allowed || r.Remaining != 98 {
		t.Fatalf("first call on a silent Redis: %+v, %v; want allowed from memory (Remaining 98, the window carried on)", r, err)
	}
	// Without a deadline each call would wait for the client's timeouts
	// (seconds); this bound is MaxTimeout plus a busy machine's slack.
	if d := time.Since(start); d > most+500*time.Millisecond {
		t.Errorf("first call on a silent Redis took %v, want at most the deadline", d)
	}
	waitDown(t, f)
	start = time.Now()
	for range 200 {
		if _, err := f.Allow(ctx, "k", 100, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("200 calls with Redis known to be silent took %v, want no waiting", d)
	}
	proxy.Restore()
	waitUp(t, f)
}

// TestFailoverStartsDown: a Redis that does not answer at start is said
// once, and found as soon as it answers.
func TestFailoverStartsDown(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	proxy.Cut()
	logs := &logLines{}
	f := failoverAt(t, proxy.Addr(), sharedPrefix(t), logs)
	if f.Up() || f.StateChanges() != 1 || logs.count("redis unreachable") != 1 {
		t.Fatalf("at start: up %v, %d changes, %d log lines; want down, 1, 1", f.Up(), f.StateChanges(), logs.count("redis unreachable"))
	}
	time.Sleep(100 * time.Millisecond) // several probes fail
	if n := logs.count("redis unreachable"); n != 1 {
		t.Errorf("%d log lines while Redis stays down, want 1", n)
	}
	proxy.Restore()
	waitUp(t, f)
	if n := logs.count("redis reachable again"); n != 1 {
		t.Errorf("%d log lines say Redis is back, want 1", n)
	}
}

// TestFailoverFlapping: calls from many goroutines while Redis goes and
// comes back never fail, and Close stops the probe (run with -race).
func TestFailoverFlapping(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	f := failoverAt(t, proxy.Addr(), sharedPrefix(t), nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r, err := f.Allow(context.Background(), fmt.Sprint("k", w, i%5), 1000, time.Minute)
				if err != nil || r.Limit != 1000 {
					t.Errorf("Allow while flapping: %+v, %v", r, err)
					return
				}
				// Requests, not a busy loop, which would starve the
				// probe of CPU.
				time.Sleep(200 * time.Microsecond)
			}
		})
	}
	for range 3 {
		time.Sleep(30 * time.Millisecond)
		proxy.Cut()
		time.Sleep(150 * time.Millisecond) // over FailWindow: the breaker opens
		proxy.Restore()
	}
	waitUp(t, f)
	close(stop)
	wg.Wait()
	if n := f.StateChanges(); n < 2 || n%2 != 0 {
		t.Errorf("%d state changes after flapping and coming back, want an even number, 2 or more", n)
	}
	done := make(chan struct{})
	go func() { f.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}

// BenchmarkFailoverAllow measures one call's latency (serial, so the
// percentiles are per call): in memory alone, through a Redis that
// answers, and with Redis down, refusing or silent. The added latency
// while down is the down rows against the memory row.
func BenchmarkFailoverAllow(b *testing.B) {
	cases := []struct {
		name string
		new  func(b *testing.B) Limiter
	}{
		{"memory", func(b *testing.B) Limiter {
			m := NewMemory()
			b.Cleanup(func() { m.Close() })
			return m
		}},
		{"redis-up", func(b *testing.B) Limiter { return failoverAt(b, redisOptions(b).Addr, sharedPrefix(b), nil) }},
		{"redis-down-refusing", func(b *testing.B) Limiter { return failoverAt(b, closedPort(b), "k:", nil) }},
		{"redis-down-silent", func(b *testing.B) Limiter {
			proxy := testenv.NewProxy(b, redisOptions(b).Addr)
			f := failoverAt(b, proxy.Addr(), sharedPrefix(b), nil)
			proxy.Silence()
			f.Allow(context.Background(), "trip", 1, time.Minute) // the one call that waits
			return f
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			l := c.new(b)
			ctx := context.Background()
			var lat []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := l.Allow(ctx, fmt.Sprint("user:", i%1024), 1<<30, time.Minute); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			slices.Sort(lat)
			at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1000 }
			b.ReportMetric(at(0.50), "p50-µs")
			b.ReportMetric(at(0.99), "p99-µs")
			b.ReportMetric(at(1), "max-µs")
		})
	}
}
