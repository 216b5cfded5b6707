package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/loyalty/loyalty/client"
	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/testenv"
)

// hookSettings are the webhook settings of the delivery tests: receivers
// on loopback, retries within a second, attempts cut at 5 s (a loaded
// machine took over 500 ms for a receiver's reply; a timed-out attempt
// is sent again, which the tests that count attempts do not expect).
func hookSettings(c *app.Config) {
	c.Webhooks = app.WebhookConfig{AllowPrivate: true, Poll: 20 * time.Millisecond, Timeout: 5 * time.Second,
		Backoff: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}}
}

// startHooks starts the service with hookSettings, then configure.
func startHooks(t *testing.T, engine string, configure func(*app.Config)) *env {
	t.Helper()
	return startWith(t, testenv.MigratedDSN(t, engine), roomy, func(c *app.Config) {
		hookSettings(c)
		if configure != nil {
			configure(c)
		}
	})
}

// hit is one request a receiver got.
type hit struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// answer is how a receiver replies: Status after Delay, with Body
// (default {"received":true}).
type answer struct {
	Status int
	Delay  time.Duration
	Body   string
}

// receiver is a webhook receiver on 127.0.0.1 that records every request
// and answers as reply says (200 when nil): reply is given the request's
// number (from 1) and the hit.
type receiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  []hit
	reply func(n int, h hit) answer
}

// setReply changes how the receiver answers from now on.
func (rc *receiver) setReply(reply func(n int, h hit) answer) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reply = reply
}

func newReceiver(t *testing.T, reply func(n int, h hit) answer) *receiver {
	t.Helper()
	rc := &receiver{reply: reply}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := hit{Header: r.Header.Clone(), Body: body, At: time.Now()}
		rc.mu.Lock()
		rc.hits = append(rc.hits, h)
		n, reply := len(rc.hits), rc.reply
		rc.mu.Unlock()
		a := answer{Status: http.StatusOK}
		if reply != nil {
			a = reply(n, h)
		}
		if a.Body == "" {
			a.Body = `{"received":true}`
		}
		select {
		case <-time.After(a.Delay):
		case <-r.Context().Done():
			return
		}
		w.WriteHeader(a.Status)
		io.WriteString(w, a.Body)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// all returns the requests so far.
func (rc *receiver) all() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// waitHits waits until the receiver got at least n requests and returns them.
func (rc *receiver) waitHits(t *testing.T, n int) []hit {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := rc.all()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d requests, want %d", len(got), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFor polls cond until it holds or 15 seconds passed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// createHook creates an endpoint through the SDK and returns it with its secret.
func createHook(t *testing.T, api *sdk.ClientWithResponses, url string, types ...string) sdk.WebhookWithSecret {
	t.Helper()
	body := sdk.WebhookWrite{Url: &url}
	if len(types) > 0 {
		body.EventTypes = &types
	}
	r, err := api.CreateWebhookWithResponse(context.Background(), body)
	if err != nil || r.JSON201 == nil {
		t.Fatalf("create webhook %s: %v %d %s", url, err, r.StatusCode(), r.Body)
	}
	return r.JSON201.Data
}

// deliveries reads an endpoint's delivery log through the SDK.
func deliveries(t *testing.T, api *sdk.ClientWithResponses, id string) []sdk.WebhookDelivery {
	t.Helper()
	r, err := api.ListWebhookDeliveriesWithResponse(context.Background(), id, nil)
	if err != nil || r.JSON200 == nil {
		t.Fatalf("deliveries of %s: %v %s", id, err, r.Body)
	}
	return r.JSON200.Data
}

// verifier returns the SDK's verifier of secrets with clock as its clock.
func verifier(t *testing.T, clock func() time.Time, secrets ...string) *sdk.WebhookVerifier {
	t.Helper()
	v, err := sdk.NewWebhookVerifier(secrets...)
	if err != nil {
		t.Fatal(err)
	}
	v.Now = clock
	return v
}
