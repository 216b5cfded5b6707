package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
)

// proxied starts the service behind the proxies trusted (loopback when
// none is given) with a budget of 2 requests per minute on every limit.
func proxied(t *testing.T, trusted ...string) string {
	t.Helper()
	a, err := Open(context.Background(), Config{DataDir: t.TempDir(), BehindProxy: true, TrustedProxies: trusted,
		Limits: httpapi.Limits{Business: 2, User: 2, Token: 2, Window: time.Minute},
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// forwarded sends method path with one X-Forwarded-For line per entry of
// xff, as proxies that add a line (rather than extend the last) do.
func forwarded(t *testing.T, base, method, path string, xff ...string) *http.Response {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("grant_type=password")
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Forwarded-Proto", "https")
	for _, v := range xff {
		req.Header.Add("X-Forwarded-For", v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestProxiedClientLimits: behind a trusted proxy each client has its own
// per-IP budget, read from X-Forwarded-For from the right so that a
// client's own header cannot pick its address.
func TestProxiedClientLimits(t *testing.T) {
	base := proxied(t)
	for _, path := range []string{"GET /me", "POST /oauth/token"} {
		method, path, _ := strings.Cut(path, " ")
		t.Run(path, func(t *testing.T) {
			for i, want := range []string{"1", "0"} {
				r := forwarded(t, base, method, path, "203.0.113.1")
				if r.StatusCode == http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Remaining") != want {
					t.Fatalf("client A request %d: %d, remaining %q; want not 429, remaining %s", i+1, r.StatusCode, r.Header.Get("X-RateLimit-Remaining"), want)
				}
			}
			if r := forwarded(t, base, method, path, "203.0.113.1"); r.StatusCode != http.StatusTooManyRequests {
				t.Errorf("client A's third request: %d, want 429", r.StatusCode)
			}
			// A forged address in front of the proxy's own is skipped, in
			// one header line or in a line of its own.
			if r := forwarded(t, base, method, path, "198.51.100.7, 203.0.113.1"); r.StatusCode != http.StatusTooManyRequests {
				t.Errorf("client A with a forged X-Forwarded-For: %d, want 429", r.StatusCode)
			}
			if r := forwarded(t, base, method, path, "198.51.100.8", "203.0.113.1"); r.StatusCode != http.StatusTooManyRequests {
				t.Errorf("client A with a forged X-Forwarded-For line: %d, want 429", r.StatusCode)
			}
			r := forwarded(t, base, method, path, "203.0.113.2")
			if r.StatusCode == http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Remaining") != "1" {
				t.Errorf("client B: %d, remaining %q; want its own budget (remaining 1)", r.StatusCode, r.Header.Get("X-RateLimit-Remaining"))
			}
		})
	}
}

// TestUntrustedForwardedFor: X-Forwarded-For from a peer that is not a
// trusted proxy is ignored: its requests share the peer's budget.
func TestUntrustedForwardedFor(t *testing.T) {
	base := proxied(t, "10.0.0.0/8") // the test's loopback peer is not trusted
	forwarded(t, base, http.MethodGet, "/me", "203.0.113.1")
	forwarded(t, base, http.MethodGet, "/me", "203.0.113.2")
	if r := forwarded(t, base, http.MethodGet, "/me", "203.0.113.3"); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("third request from one untrusted peer: %d, want 429", r.StatusCode)
	}
}
