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
// ends; its log goes to logs when not nil.
func failoverAt(tb testing.TB, addr, prefix string, logs *logLines) *Failover {
	tb.Helper()
	return failoverWith(tb, addr, prefix, logs, 0)
}

// failoverWith is failoverAt with a Redis call timeout (0: the default).
func failoverWith(tb testing.TB, addr, prefix string, logs *logLines, timeout time.Duration) *Failover {
	tb.Helper()
	opts := redisOptions(tb)
	opts.Addr = addr
	c := newClient(opts)
	tb.Cleanup(func() { c.Close() })
	var out bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&out, nil))
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	f := NewFailover(context.Background(), NewRedis(c, prefix), FailoverConfig{Interval: 20 * time.Millisecond, Timeout: timeout, Logger: logger})
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

// waitUp waits until every f has found Redis back.
func waitUp(t *testing.T, fs ...*Failover) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for slices.ContainsFunc(fs, func(f *Failover) bool { return !f.Up() }) {
		if time.Now().After(deadline) {
			t.Fatal("Redis is back but a limiter still counts in memory after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFailoverBehaviour: the limiter table holds through the breaker, on
// Redis while it answers and in memory while it does not.
func TestFailoverBehaviour(t *testing.T) {
	t.Run("redis up", func(t *testing.T) {
		runBehaviour(t, func(t *testing.T) Limiter {
			// Counts are exact only while Redis answers in time: on a busy
			// test machine a call can take longer than the default 50 ms,
			// which would rightly (but here needlessly) open the breaker.
			f := failoverWith(t, redisOptions(t).Addr, sharedPrefix(t), nil, 2*time.Second)
			if !f.Up() {
				t.Fatal("Failover on the real Redis starts down")
			}
			return f
		})
	})
	t.Run("redis down", func(t *testing.T) {
		runBehaviour(t, func(t *testing.T) Limiter {
			f := failoverAt(t, closedPort(t), "k:", nil)
			if f.Up() {
				t.Fatal("Failover on a closed port starts up")
			}
			return f
		})
	})
}

// TestFailoverOutage: two instances share counts through Redis; while it
// is cut each enforces the same limit on its own, with no error; when it
// is back they share Redis's counts again. Each change is logged once.
func TestFailoverOutage(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	prefix := sharedPrefix(t)
	logs := &logLines{}
	a, b := failoverAt(t, proxy.Addr(), prefix, logs), failoverAt(t, proxy.Addr(), prefix, logs)
	ctx := context.Background()
	allow := func(f *Failover, key string) Result {
		t.Helper()
		r, err := f.Allow(ctx, key, 3, time.Minute)
		if err != nil {
			t.Fatalf("Allow: %v, want no error whatever Redis does", err)
		}
		return r
	}
	for i, f := range []*Failover{a, b, a} {
		if r := allow(f, "k"); !r.Allowed || r.Remaining != 2-i {
			t.Fatalf("shared request %d: %+v, want allowed, Remaining %d", i+1, r, 2-i)
		}
	}
	if r := allow(b, "k"); r.Allowed {
		t.Fatal("over the shared limit: allowed")
	}

	proxy.Cut()
	for _, f := range []*Failover{a, b} { // each from zero, in its own memory
		for want := 2; want >= 0; want-- {
			if r := allow(f, "k"); !r.Allowed || r.Remaining != want || r.Limit != 3 || r.Reset.IsZero() {
				t.Fatalf("during the outage: %+v, want allowed, Remaining %d, Limit 3, a Reset", r, want)
			}
		}
		if r := allow(f, "k"); r.Allowed || r.Remaining != 0 {
			t.Fatalf("over the limit during the outage: %+v, want denied", r)
		}
		if f.Up() || f.StateChanges() != 1 {
			t.Errorf("during the outage: Up %v, %d state changes; want false, 1", f.Up(), f.StateChanges())
		}
	}

	proxy.Restore()
	waitUp(t, a, b)
	if r := allow(a, "other"); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("fresh key after the outage: %+v, want allowed, Remaining 2", r)
	}
	if r := allow(b, "other"); r.Remaining != 1 {
		t.Fatalf("fresh key on the other instance: %+v, want the shared count (Remaining 1)", r)
	}
	if a.StateChanges() != 2 || b.StateChanges() != 2 {
		t.Errorf("state changes %d, %d; want 2 each", a.StateChanges(), b.StateChanges())
	}
	if down, up := logs.count("redis unreachable"), logs.count("redis reachable again"); down != 2 || up != 2 {
		t.Errorf("log lines: %d unreachable, %d reachable again; want one of each per instance", down, up)
	}
}

// TestFailoverSilentRedis: a Redis that stops answering (no error, no
// reply) holds up at most the calls in flight, for Timeout; after that no
// call touches it until a probe finds it back.
func TestFailoverSilentRedis(t *testing.T) {
	proxy := testenv.NewProxy(t, redisOptions(t).Addr)
	f := failoverAt(t, proxy.Addr(), sharedPrefix(t), nil)
	ctx := context.Background()
	if _, err := f.Allow(ctx, "k", 100, time.Minute); err != nil || !f.Up() {
		t.Fatalf("Allow through the proxy: %v, up %v", err, f.Up())
	}
	proxy.Silence()
	start := time.Now()
	if r, err := f.Allow(ctx, "k", 100, time.Minute); err != nil || !r.Allowed || r.Remaining != 99 {
		t.Fatalf("first call on a silent Redis: %+v, %v; want allowed from memory (Remaining 99)", r, err)
	}
	// Without a breaker each call would wait for the client's timeouts
	// (seconds); these bounds are far above the expected microseconds.
	if d := time.Since(start); d > time.Second {
		t.Errorf("first call on a silent Redis took %v, want about the 50 ms timeout", d)
	}
	if f.Up() {
		t.Fatal("a silent Redis is still taken for up")
	}
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
				// Requests, not a busy loop: starved of CPU, the probe's
				// ping would miss its 50 ms.
				time.Sleep(200 * time.Microsecond)
			}
		})
	}
	for range 3 {
		time.Sleep(30 * time.Millisecond)
		proxy.Cut()
		time.Sleep(30 * time.Millisecond)
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
