package app

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestTwoInstancesShareLimitUnderLoad is the reviewer's run through the
// whole service: two instances of one installation (each an App of its
// own, with its Redis client, breaker and memory) share one Redis whose every reply comes 100 ms
// late (twice the deadline that used to open the breaker), on a host
// whose every core is busy; 16 clients at once send 160 requests with one
// token, whose limit is 120 a minute (the reviewer's 320 and 240, halved
// to keep the run short). No more than 120 get past the limiter. Then
// Redis is cut: a fresh token gets no more than 120 across the two
// instances, and the token whose window was spent gets nothing more.
func TestTwoInstancesShareLimitUnderLoad(t *testing.T) {
	const limit, clients, each = 120, 16, 10
	u, _ := testRedis(t)
	proxy := testenv.NewProxy(t, u.Host)
	through := *u
	through.Host = proxy.Addr()
	// Two instances of one installation: one database, which names the
	// group whose instances count each other.
	db := filepath.Join(t.TempDir(), "loyalty.db")
	var bases []string
	for range 2 {
		a, err := Open(context.Background(), Config{DataDir: t.TempDir(), DB: db, Redis: through.String(), BehindProxy: true,
			Limits: httpapi.Limits{Business: limit, User: limit, Token: limit, Window: time.Minute},
			Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		srv := httptest.NewServer(a.Handler())
		t.Cleanup(srv.Close)
		bases = append(bases, srv.URL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, base := range bases {
		for metrics(t, base)["loyalty_ratelimit_instances"] != "2" {
			if time.Now().After(deadline) {
				t.Fatal("the instances do not count each other after 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	testenv.BurnCPU(t)
	proxy.Delay(100 * time.Millisecond)

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	burst := func(token string) int {
		var passed atomic.Int64
		var wg sync.WaitGroup
		for c := range clients {
			base, client := bases[c%2], randomClient()
			wg.Go(func() {
				for range each {
					req, _ := http.NewRequest(http.MethodGet, base+"/customers", nil)
					req.Header.Set("Authorization", "Bearer "+token)
					req.Header.Set("X-Forwarded-For", client) // each client's address budget its own
					resp, err := hc.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusTooManyRequests {
						passed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		return int(passed.Load())
	}

	slow := rand.Text()
	if n := burst(slow); n > limit {
		t.Errorf("slow Redis on a loaded host: %d of %d requests passed the limiter, limit %d", n, clients*each, limit)
	} else {
		t.Logf("slow Redis on a loaded host: %d of %d passed, limit %d", n, clients*each, limit)
	}
	for i, base := range bases {
		m := metrics(t, base)
		t.Logf("instance %d: redis up %s, %s state changes, %s failures, deadline %s s", i, m["loyalty_ratelimit_redis_up"],
			m["loyalty_ratelimit_redis_state_changes_total"], m["loyalty_ratelimit_redis_failures_total"],
			m["loyalty_ratelimit_redis_deadline_seconds"])
	}

	proxy.Cut()
	if n := burst(rand.Text()); n > limit {
		t.Errorf("Redis cut, a fresh token: %d of %d requests passed, limit %d", n, clients*each, limit)
	} else {
		t.Logf("Redis cut, a fresh token: %d of %d passed (each instance its share)", n, clients*each)
	}
	if n := burst(slow); n > 0 {
		t.Errorf("Redis cut, the token whose window was spent: %d more passed, want none", n)
	}
}
