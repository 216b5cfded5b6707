package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newLimiter returns a fresh, empty Limiter for one test; it is closed by t.Cleanup.
type newLimiter func(t *testing.T) Limiter

// behaviour is the test table run against every implementation.
var behaviour = []struct {
	name string
	run  func(t *testing.T, l Limiter)
}{
	{"LimitReachedAfterN", testLimitReached},
	{"RemainingCountsDown", testRemaining},
	{"ResetAboutNowPlusWindow", testReset},
	{"WindowExpiry", testExpiry},
	{"KeysIndependent", testKeysIndependent},
	{"Concurrent", testConcurrent},
	{"InvalidLimit", testInvalid},
}

func runBehaviour(t *testing.T, newL newLimiter) {
	for _, tc := range behaviour {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newL(t)) })
	}
}

func allow(t *testing.T, l Limiter, key string, limit int, window time.Duration) Result {
	t.Helper()
	r, err := l.Allow(context.Background(), key, limit, window)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return r
}

func testLimitReached(t *testing.T, l Limiter) {
	const n = 5
	for i := 1; i <= n; i++ {
		if r := allow(t, l, "k", n, time.Minute); !r.Allowed {
			t.Fatalf("request %d denied, want allowed", i)
		}
	}
	for i := 0; i < 3; i++ {
		r := allow(t, l, "k", n, time.Minute)
		if r.Allowed || r.Remaining != 0 || r.Limit != n {
			t.Fatalf("over limit: got %+v, want denied, Remaining 0, Limit %d", r, n)
		}
	}
}

func testRemaining(t *testing.T, l Limiter) {
	const n = 4
	for want := n - 1; want >= 0; want-- {
		if r := allow(t, l, "k", n, time.Minute); r.Remaining != want {
			t.Fatalf("Remaining = %d, want %d", r.Remaining, want)
		}
	}
}

func testReset(t *testing.T, l Limiter) {
	const window = 10 * time.Second
	start := time.Now()
	first := allow(t, l, "k", 3, window)
	if d := first.Reset.Sub(start.Add(window)); d < -50*time.Millisecond || d > 200*time.Millisecond {
		t.Fatalf("Reset is now+window%+v, want about now+window", d)
	}
	// A window that slid would move Reset by the whole pause; a reset
	// read from Redis may move by the jitter of a busy machine's round
	// trip (the client adds the key's remaining time to its own clock).
	time.Sleep(400 * time.Millisecond)
	second := allow(t, l, "k", 3, window)
	if d := second.Reset.Sub(first.Reset); d < -100*time.Millisecond || d > 100*time.Millisecond {
		t.Fatalf("Reset moved by %v within one window, want fixed", d)
	}
}

func testExpiry(t *testing.T, l Limiter) {
	const window = 300 * time.Millisecond
	allow(t, l, "k", 2, window)
	allow(t, l, "k", 2, window)
	if r := allow(t, l, "k", 2, window); r.Allowed {
		t.Fatal("third request allowed, want denied")
	}
	time.Sleep(window + 50*time.Millisecond)
	r := allow(t, l, "k", 2, window)
	if !r.Allowed || r.Remaining != 1 {
		t.Fatalf("after expiry: got %+v, want allowed with Remaining 1", r)
	}
}

func testKeysIndependent(t *testing.T, l Limiter) {
	allow(t, l, "a", 1, time.Minute)
	if r := allow(t, l, "a", 1, time.Minute); r.Allowed {
		t.Fatal("second request on a allowed, want denied")
	}
	if r := allow(t, l, "b", 1, time.Minute); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("first request on b: got %+v, want allowed", r)
	}
}

func testConcurrent(t *testing.T, l Limiter) {
	const workers, perWorker, limit = 50, 4, 100
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range perWorker {
				r, err := l.Allow(context.Background(), "hot", limit, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != limit {
		t.Fatalf("admitted %d of %d, want exactly %d", got, workers*perWorker, limit)
	}
}

func testInvalid(t *testing.T, l Limiter) {
	for _, c := range []struct {
		limit  int
		window time.Duration
	}{{0, time.Second}, {-1, time.Second}, {1, 0}} {
		if _, err := l.Allow(context.Background(), "k", c.limit, c.window); err != ErrInvalidLimit {
			t.Errorf("Allow(limit %d, window %v) err = %v, want ErrInvalidLimit", c.limit, c.window, err)
		}
	}
}

func TestMemory(t *testing.T) {
	runBehaviour(t, func(t *testing.T) Limiter {
		m := NewMemory()
		t.Cleanup(func() { m.Close() })
		return m
	})
}

// TestMemoryShare: one of several instances deciding alone allows its
// share of a limit; a window Redis counted carries on from Redis's count
// and this instance's own; a window Redis began afresh starts afresh; a
// mark (limit 1) and a counter read through Peek keep their meaning.
func TestMemoryShare(t *testing.T) {
	m := NewMemory()
	defer m.Close()
	const win = time.Minute
	for i, want := range []Result{{Allowed: true, Remaining: 3}, {Allowed: true, Remaining: 1}, {Remaining: 0}} {
		if r := m.share("fresh", 5, win, 2); r.Allowed != want.Allowed || r.Remaining != want.Remaining {
			t.Fatalf("request %d of one of 2 instances, limit 5: %+v, want %+v", i+1, r, want)
		}
	}

	// Redis counted 3 requests, 1 of them this instance's.
	reset := time.Now().Add(30 * time.Second)
	m.mirror("shared", 5, win, 3, reset, true)
	if r := m.share("shared", 5, win, 2); !r.Allowed || r.Remaining != 1 || r.Reset.Sub(reset).Abs() > time.Millisecond {
		t.Fatalf("after Redis's count of 3: %+v, want allowed, Remaining 1 (3 + this one), Redis's reset", r)
	}
	if r := m.share("shared", 5, win, 2); r.Allowed {
		t.Fatalf("a third request of this instance: %+v, want denied (its share is 2)", r)
	}
	m.mirror("busy", 5, win, 5, reset, true) // the others spent the window
	if r := m.share("busy", 5, win, 2); r.Allowed {
		t.Fatalf("a window Redis counted full: %+v, want denied", r)
	}
	m.mirror("shared", 5, win, 1, reset.Add(win), true) // Redis's next window
	if r := m.share("shared", 5, win, 2); !r.Allowed || r.Remaining != 1 {
		t.Fatalf("in Redis's next window: %+v, want allowed, Remaining 1 (this instance's 2 of 5, times 2)", r)
	}
	m.mirror("peeked", 5, win, 2, reset, false)
	m.mirror("long", 5, 2*maxMirrored, 5, reset, true)
	if n := m.len(); n != 3 {
		t.Errorf("%d windows, want 3 (fresh, shared, busy): a peek or a long window starts none", n)
	}

	// Guesses' marks and counters, through Peek, one of 2 instances.
	if r := m.peekShare("mark", 1, win, 2); !r.Allowed {
		t.Error("an unset mark reads as set")
	}
	m.share("mark", 1, win, 2)
	if r := m.peekShare("mark", 1, win, 2); r.Allowed {
		t.Error("a set mark reads as unset")
	}
	for range 3 {
		m.share("counter", 1<<30, win, 2)
	}
	if r := m.peekShare("counter", 1<<30, win, 2); 1<<30-r.Remaining-1 != 6 {
		t.Errorf("a counter of 3 here, one of 2 instances: Peek gives %d, want 6", 1<<30-r.Remaining-1)
	}
}

func TestMemorySweep(t *testing.T) {
	m := NewMemory()
	defer m.Close()
	for i := range 100 {
		allow(t, m, fmt.Sprint("short", i), 1, 10*time.Millisecond)
	}
	allow(t, m, "long", 1, time.Minute)
	time.Sleep(20 * time.Millisecond)
	m.sweep()
	if n := m.len(); n != 1 {
		t.Fatalf("after sweep %d keys remain, want 1", n)
	}
}

func TestMemoryJanitorStops(t *testing.T) {
	m := NewMemory()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil { // second Close is a no-op
		t.Fatal(err)
	}
	select {
	case <-m.done:
	default:
		t.Fatal("janitor still running after Close")
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := NewMemory()
	defer m.Close()
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%d", i)
	}
	ctx := context.Background()
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)) * 7919
		for pb.Next() {
			if _, err := m.Allow(ctx, keys[i%len(keys)], 1000, time.Minute); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
