package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// script is a server that answers its requests with statuses in turn
// (0 drops the connection without a reply) and records what it got.
type script struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header // added to every reply
	got      []recorded
}

type recorded struct {
	key, body string
	at        time.Time
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.got)
	s.got = append(s.got, recorded{key: r.Header.Get("Idempotency-Key"), body: string(body), at: time.Now()})
	status := http.StatusOK
	if n < len(s.statuses) {
		status = s.statuses[n]
	}
	s.mu.Unlock()
	if status == 0 {
		panic(http.ErrAbortHandler) // the reply is lost
	}
	for k, v := range s.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
}

func (s *script) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.got...)
}

// serve starts s and returns a client of it with policy.
func serve(t *testing.T, s *script, policy Retry) (*http.Client, string) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return httpClient("key", nil, Options{Retry: policy}), srv.URL
}

var quick = Retry{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}

func post(t *testing.T, hc *http.Client, url, key string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/transactions", strings.NewReader(`{"intent":"reward","points":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return resp, err
}

func TestRetryResendsWritesWithOneKey(t *testing.T) {
	s := &script{statuses: []int{http.StatusServiceUnavailable, 0, http.StatusBadGateway}}
	hc, url := serve(t, s, quick)
	resp, err := post(t, hc, url, "")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST after 503, a lost reply and 502: %v %v, want 200", resp, err)
	}
	got := s.requests()
	if len(got) != 4 {
		t.Fatalf("%d attempts, want 4", len(got))
	}
	for _, r := range got {
		if r.key == "" || r.key != got[0].key || r.body != `{"intent":"reward","points":5}` {
			t.Errorf("attempt with key %q and body %q; want the first attempt's key %q and the same body", r.key, r.body, got[0].key)
		}
	}

	// A key the caller chose is kept; a read carries none.
	s2 := &script{statuses: []int{http.StatusInternalServerError}}
	hc, url = serve(t, s2, quick)
	post(t, hc, url, "order-1042")
	if resp, err := hc.Get(url + "/customers"); err == nil {
		resp.Body.Close()
	}
	got = s2.requests()
	if len(got) != 3 || got[0].key != "order-1042" || got[1].key != "order-1042" || got[2].key != "" {
		t.Errorf("requests %+v, want two attempts with the caller's key then a GET without one", got)
	}
}

func TestRetryGivesUp(t *testing.T) {
	// Refusals are final.
	s := &script{statuses: []int{http.StatusUnprocessableEntity}}
	hc, url := serve(t, s, quick)
	if resp, _ := post(t, hc, url, ""); resp.StatusCode != http.StatusUnprocessableEntity || len(s.requests()) != 1 {
		t.Errorf("422: %d attempts, want 1", len(s.requests()))
	}
	// Attempts run out: the last reply is the caller's.
	s = &script{statuses: []int{500, 500, 500, 500, 500}}
	hc, url = serve(t, s, Retry{Attempts: 3, BaseDelay: time.Millisecond})
	if resp, _ := post(t, hc, url, ""); resp.StatusCode != 500 || len(s.requests()) != 3 {
		t.Errorf("500s: %d attempts ending in %d, want 3 ending in 500", len(s.requests()), resp.StatusCode)
	}
	// A cancelled context ends the wait.
	s = &script{statuses: []int{503, 503}, header: http.Header{"Retry-After": {"5"}}}
	hc, url = serve(t, s, Retry{MaxDelay: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	start := time.Now()
	if _, err := hc.Do(req); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled during the backoff: %v after %v, want the deadline at once", err, time.Since(start))
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	s := &script{statuses: []int{http.StatusTooManyRequests}, header: http.Header{"Retry-After": {"1"}}}
	hc, url := serve(t, s, Retry{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second})
	if resp, err := post(t, hc, url, ""); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after a 429: %v %v", resp, err)
	}
	got := s.requests()
	if len(got) != 2 || got[1].at.Sub(got[0].at) < time.Second {
		t.Fatalf("%d attempts, the second %v after the first; want 2, at least Retry-After (1s) apart", len(got), got[1].at.Sub(got[0].at))
	}
	// A wait longer than MaxDelay is not waited: the 429 is returned.
	s = &script{statuses: []int{http.StatusTooManyRequests}, header: http.Header{"Retry-After": {"900"}}}
	hc, url = serve(t, s, Retry{MaxDelay: time.Second})
	if resp, _ := post(t, hc, url, ""); resp.StatusCode != http.StatusTooManyRequests || len(s.requests()) != 1 {
		t.Errorf("Retry-After 900 with MaxDelay 1s: %d attempts, status %d; want the 429 at once", len(s.requests()), resp.StatusCode)
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	p := Retry{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n, bound := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 9: time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.backoff(n)
			if d <= 0 || d > bound {
				t.Fatalf("backoff(%d) = %v, want in (0, %v]", n, d, bound)
			}
			seen[d] = true
		}
		if len(seen) < 100 {
			t.Errorf("backoff(%d) took %d distinct values in 200 draws: not jittered", n, len(seen))
		}
	}
}
