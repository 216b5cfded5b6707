package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/testenv"
)

// testRedis returns the URL of the tests' Redis (LOYALTY_TEST_REDIS_URL,
// default redis://127.0.0.1:6379/0) and a client to it; "off" skips.
func testRedis(t *testing.T) (*url.URL, *redis.Client) {
	t.Helper()
	raw := os.Getenv("LOYALTY_TEST_REDIS_URL")
	if raw == "off" {
		t.Skip("LOYALTY_TEST_REDIS_URL=off")
	}
	if raw == "" {
		raw = "redis://127.0.0.1:6379/0"
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := redis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis %s: %v (set LOYALTY_TEST_REDIS_URL=off to skip)", raw, err)
	}
	return u, c
}

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// count is how many log lines contain msg.
func (s *syncBuffer) count(msg string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.b.String(), msg)
}

// withRedis opens the service with --redis redisURL behind a loopback
// proxy (so the test names each client's address) with 3 requests per
// minute on every limit.
func withRedis(t *testing.T, redisURL string) (base string, logs *syncBuffer) {
	t.Helper()
	logs = &syncBuffer{}
	a, err := Open(context.Background(), Config{DataDir: t.TempDir(), Redis: redisURL, BehindProxy: true,
		Limits: httpapi.Limits{Business: 3, User: 3, Token: 3, Window: time.Minute},
		Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatalf("Open with Redis %s: %v", redisURL, err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, logs
}

// randomClient is a client address (in its canonical form, as the
// limiter's keys hold it) that no other run of the tests uses, so its
// counts in the shared Redis are its own.
func randomClient() string {
	var b [16]byte
	rand.Read(b[8:])
	b[0], b[1], b[2], b[3] = 0x20, 0x01, 0x0d, 0xb8 // 2001:db8::/32, for documentation
	return netip.AddrFrom16(b).String()
}

// getText sends GET path and returns the response with its body.
func getText(t *testing.T, base, path string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// metrics returns the value of each series /metrics exposes, by its
// name with its labels.
func metrics(t *testing.T, base string) map[string]string {
	t.Helper()
	_, body := getText(t, base, "/metrics")
	m := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		if name, value, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") {
			m[name] = value
		}
	}
	return m
}

// readiness returns /readyz's status code and body.
func readiness(t *testing.T, base string) (int, map[string]string) {
	t.Helper()
	resp, body := getText(t, base, "/readyz")
	var m map[string]string
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("/readyz body %q: %v", body, err)
	}
	return resp.StatusCode, m
}

// waitStatus waits up to 10 s for /readyz to say status.
func waitStatus(t *testing.T, base, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, m := readiness(t, base); m["status"] == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz not %s after 10 s", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wantBudget sends GET /me (no token) as client and checks the answer
// spends its per-IP budget: remaining left, or 429 when remaining is -1.
func wantBudget(t *testing.T, base, client string, remaining int) {
	t.Helper()
	r := forwarded(t, base, http.MethodGet, "/me", client)
	if remaining < 0 {
		if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("GET /me: %d, Retry-After %q, remaining %q; want 429 with Retry-After and remaining 0",
				r.StatusCode, r.Header.Get("Retry-After"), r.Header.Get("X-RateLimit-Remaining"))
		}
		return
	}
	if r.StatusCode != http.StatusUnauthorized || r.Header.Get("X-RateLimit-Limit") != "3" ||
		r.Header.Get("X-RateLimit-Remaining") != string(rune('0'+remaining)) {
		t.Fatalf("GET /me: %d, limit %q, remaining %q; want 401 with limit 3, remaining %d",
			r.StatusCode, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"), remaining)
	}
}

// TestOpenBadRedisURL: a malformed --redis is a clear error at start,
// never a panic.
func TestOpenBadRedisURL(t *testing.T) {
	for _, bad := range []string{"not-a-url", "http://127.0.0.1:6379", "redis://127.0.0.1:6379/not-a-db"} {
		a, err := Open(context.Background(), Config{DataDir: t.TempDir(), Redis: bad,
			Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
		if err == nil {
			a.Close()
			t.Errorf("Open(--redis %s) succeeded, want an error", bad)
		} else if !strings.Contains(err.Error(), "redis") {
			t.Errorf("Open(--redis %s): %v, want an error that names redis", bad, err)
		}
	}
}

// TestServeWithRedisUnreachable: with Redis unreachable at start the
// service starts, says so once, reports itself degraded on /readyz (still
// ready: it serves with limits of its own), and enforces every limit in
// memory, with its headers.
func TestServeWithRedisUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	base, logs := withRedis(t, "redis://"+closed+"/0")
	if n := logs.count("redis unreachable"); n != 1 {
		t.Errorf("%d log lines say redis is unreachable, want 1", n)
	}
	if st, m := readiness(t, base); st != http.StatusOK || m["status"] != "degraded" || m["redis"] != "unreachable" {
		t.Errorf("/readyz: %d %v, want 200 degraded, redis unreachable", st, m)
	}
	client := randomClient()
	for _, left := range []int{2, 1, 0, -1} {
		wantBudget(t, base, client, left)
	}
	wantBudget(t, base, randomClient(), 2)
	if m := metrics(t, base); m["loyalty_ratelimit_redis_up"] != "0" || m["loyalty_ratelimit_redis_state_changes_total"] != "1" {
		t.Errorf("metrics: redis_up %q, %q state changes; want 0, 1", m["loyalty_ratelimit_redis_up"], m["loyalty_ratelimit_redis_state_changes_total"])
	}
	if n := logs.count("redis unreachable"); n != 1 {
		t.Errorf("%d log lines say redis is unreachable after the requests, want 1 (one per state change)", n)
	}
}

// TestRedisOutage: limits are shared through Redis while it answers; when
// it goes away every limit holds in memory (the window in progress
// carrying on from Redis's count), with its headers; when it comes back
// the shared counts apply again. Each change is logged once and counted
// in the metrics.
func TestRedisOutage(t *testing.T) {
	u, rc := testRedis(t)
	proxy := testenv.NewProxy(t, u.Host)
	through := *u
	through.Host = proxy.Addr()
	base, logs := withRedis(t, through.String())
	client := randomClient()
	key := "loyalty:rl:b:ip:" + client
	t.Cleanup(func() { rc.Del(context.Background(), key) })

	if st, m := readiness(t, base); st != http.StatusOK || m["status"] != "ok" || m["redis"] != "up" {
		t.Fatalf("/readyz: %d %v, want 200 ok, redis up", st, m)
	}
	wantBudget(t, base, client, 2)
	if n, err := rc.Get(context.Background(), key).Int(); err != nil || n != 1 {
		t.Fatalf("shared count %s = %d, %v; want 1", key, n, err)
	}

	proxy.Cut()
	for _, left := range []int{1, 0, -1} { // alone, the window in progress carries on
		wantBudget(t, base, client, left)
	}
	// The breaker opens on failures in a row over a second, not on one.
	waitStatus(t, base, "degraded")
	if st, m := readiness(t, base); st != http.StatusOK || m["status"] != "degraded" || m["redis"] != "unreachable" {
		t.Errorf("/readyz during the outage: %d %v, want 200 degraded, redis unreachable", st, m)
	}
	if m := metrics(t, base); m["loyalty_ratelimit_redis_up"] != "0" || m["loyalty_ratelimit_redis_state_changes_total"] != "1" {
		t.Errorf("metrics during the outage: redis_up %q, %q state changes; want 0, 1", m["loyalty_ratelimit_redis_up"], m["loyalty_ratelimit_redis_state_changes_total"])
	}

	proxy.Restore()
	waitStatus(t, base, "ok")
	wantBudget(t, base, client, 1) // the shared count again: 2 of 3
	if n, err := rc.Get(context.Background(), key).Int(); err != nil || n != 2 {
		t.Errorf("shared count %s = %d, %v; want 2", key, n, err)
	}
	if m := metrics(t, base); m["loyalty_ratelimit_redis_up"] != "1" || m["loyalty_ratelimit_redis_state_changes_total"] != "2" {
		t.Errorf("metrics after the outage: redis_up %q, %q state changes; want 1, 2", m["loyalty_ratelimit_redis_up"], m["loyalty_ratelimit_redis_state_changes_total"])
	}
	if down, up := logs.count("redis unreachable"), logs.count("redis reachable again"); down != 1 || up != 1 {
		t.Errorf("log lines: %d unreachable, %d reachable again; want one each", down, up)
	}
}

// BenchmarkLimitedRequest measures a rate-limited request through the
// whole handler (GET /me without credentials: limit, then 401), serially
// so the percentiles are per request: limits in memory (no --redis),
// shared through a Redis that answers, and with Redis down. The latency
// Redis being down adds is the redis-down row against the memory row.
func BenchmarkLimitedRequest(b *testing.B) {
	for _, c := range []struct{ name, redis string }{
		{"memory", ""},
		{"redis-up", "real"},
		{"redis-down", "closed"},
	} {
		b.Run(c.name, func(b *testing.B) {
			switch c.redis {
			case "real":
				raw := os.Getenv("LOYALTY_TEST_REDIS_URL")
				if raw == "off" {
					b.Skip("LOYALTY_TEST_REDIS_URL=off")
				}
				if c.redis = raw; raw == "" {
					c.redis = "redis://127.0.0.1:6379/0"
				}
			case "closed":
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					b.Fatal(err)
				}
				c.redis = "redis://" + ln.Addr().String() + "/0"
				ln.Close()
			}
			a, err := Open(context.Background(), Config{DataDir: b.TempDir(), Redis: c.redis,
				Limits: httpapi.Limits{Business: 1 << 30, User: 1 << 30, Token: 1 << 30, Window: time.Minute},
				Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { a.Close() })
			h := a.Handler()
			req := httptest.NewRequest(http.MethodGet, "/me", nil)
			req.RemoteAddr = "[2001:db8::1]:1"
			var lat []time.Duration
			for b.Loop() {
				w := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(w, req)
				lat = append(lat, time.Since(start))
				if w.Code != http.StatusUnauthorized || w.Header().Get("X-RateLimit-Remaining") == "" {
					b.Fatalf("GET /me: %d, remaining %q; want 401 with rate-limit headers", w.Code, w.Header().Get("X-RateLimit-Remaining"))
				}
			}
			slices.Sort(lat)
			at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1000 }
			b.ReportMetric(at(0.50), "p50-µs")
			b.ReportMetric(at(0.99), "p99-µs")
			b.ReportMetric(at(1), "max-µs")
		})
	}
}
