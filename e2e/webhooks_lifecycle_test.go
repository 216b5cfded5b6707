package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/loyalty/loyalty/client"
	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// getHook reads an endpoint through the SDK.
func getHook(t *testing.T, api *sdk.ClientWithResponses, id string) sdk.Webhook {
	t.Helper()
	r, err := api.GetWebhookWithResponse(context.Background(), id)
	if err != nil || r.JSON200 == nil {
		t.Fatalf("get webhook: %v %s", err, r.Body)
	}
	return r.JSON200.Data
}

// TestWebhookSecretRotation: after a rotation, deliveries carry two v1
// signatures for the overlap, and a receiver holding either secret
// accepts them; once the overlap ended, only the new secret signs.
func TestWebhookSecretRotation(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := startHooks(t, engine, nil)
		a := e.owner(t, e.biz)
		api := e.sdkOwner(t)
		rc := newReceiver(t, nil)
		w := createHook(t, api, rc.srv.URL, "customer.created")

		rot, err := api.RotateWebhookSecretWithResponse(context.Background(), w.Id, sdk.WebhookRotate{OverlapSeconds: ptr(3600)})
		if err != nil || rot.JSON200 == nil {
			t.Fatalf("rotate: %v %s", err, rot.Body)
		}
		fresh := rot.JSON200.Data
		until := fresh.PreviousSecretExpiresAt
		if fresh.Secret == w.Secret || !strings.HasPrefix(fresh.Secret, "whsec_") || until == nil ||
			until.Sub(e.db.Now()) < 59*time.Minute || until.Sub(e.db.Now()) > 61*time.Minute {
			t.Fatalf("rotated %+v", fresh)
		}
		a.createCustomer(t, map[string]any{"email": "overlap@hooks.example"})
		h := rc.waitHits(t, 1)[0]
		if sigs := strings.Fields(h.Header.Get("webhook-signature")); len(sigs) != 2 || !strings.HasPrefix(sigs[0], "v1,") || !strings.HasPrefix(sigs[1], "v1,") {
			t.Errorf("signatures during the overlap: %q, want two v1", h.Header.Get("webhook-signature"))
		}
		for name, secret := range map[string]string{"old": w.Secret, "new": fresh.Secret} {
			if err := verifier(t, e.db.Now, secret).Verify(h.Header, h.Body); err != nil {
				t.Errorf("during the overlap, the %s secret: %v", name, err)
			}
		}

		e.db.Advance(61 * time.Minute)
		a.createCustomer(t, map[string]any{"email": "after@hooks.example"})
		h = rc.waitHits(t, 2)[1]
		if sigs := strings.Fields(h.Header.Get("webhook-signature")); len(sigs) != 1 {
			t.Errorf("signatures after the overlap: %q, want one", h.Header.Get("webhook-signature"))
		}
		if err := verifier(t, e.db.Now, fresh.Secret).Verify(h.Header, h.Body); err != nil {
			t.Errorf("after the overlap, the new secret: %v", err)
		}
		if err := verifier(t, e.db.Now, w.Secret).Verify(h.Header, h.Body); !errors.Is(err, sdk.ErrWebhookSignature) {
			t.Errorf("after the overlap, the old secret: %v, want refused", err)
		}
		if got := getHook(t, api, w.Id); got.PreviousSecretExpiresAt == nil {
			t.Errorf("the endpoint forgot when its previous secret ended: %+v", got)
		}

		// No body: the default overlap of 24 hours.
		r := a.do(t, http.MethodPost, "/webhooks/"+w.Id+"/rotate-secret", nil).want(t, http.StatusOK).obj(t)
		data := r["data"].(map[string]any)
		end, err := time.Parse(time.RFC3339, str(data["previous_secret_expires_at"]))
		if err != nil || end.Sub(e.db.Now()) < 23*time.Hour || str(data["secret"]) == fresh.Secret {
			t.Errorf("rotation without a body: %v", data)
		}
	})
}

// TestWebhookGone: a 410 disables the endpoint at once and the owner is
// told by e-mail; nothing more is sent until it is enabled again, and a
// retry then delivers the event it missed.
func TestWebhookGone(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := startHooks(t, engine, nil)
		a := e.owner(t, e.biz)
		api := e.sdkOwner(t)
		rc := newReceiver(t, func(int, hit) answer { return answer{Status: http.StatusGone} })
		w := createHook(t, api, rc.srv.URL, "customer.created")
		a.createCustomer(t, map[string]any{"email": "gone@hooks.example"})
		waitFor(t, "the endpoint to be disabled", func() bool { return !getHook(t, api, w.Id).Enabled })
		got := getHook(t, api, w.Id)
		if got.DisabledReason == nil || *got.DisabledReason != "gone" {
			t.Errorf("disabled endpoint %+v, want reason gone", got)
		}
		d := deliveries(t, api, w.Id)[0]
		if d.State != "failed" || d.Attempts != 1 || *d.LastStatus != 410 {
			t.Errorf("delivery %+v, want failed after one 410", d)
		}
		waitFor(t, "the owner's e-mail", func() bool { return len(e.messagesTo(t, e.biz.Email)) == 1 })
		if m := e.messagesTo(t, e.biz.Email)[0]; !strings.Contains(m.Subject, "disabled") || !strings.Contains(m.Body, rc.srv.URL) ||
			!strings.Contains(m.Body, "410") {
			t.Errorf("e-mail %+v", m)
		}

		a.createCustomer(t, map[string]any{"email": "unsent@hooks.example"})
		a.do(t, http.MethodPost, "/webhooks/"+w.Id+"/deliveries/"+d.EventId+"/retry", nil).want(t, http.StatusConflict)
		time.Sleep(200 * time.Millisecond)
		if n := len(rc.all()); n != 1 {
			t.Errorf("a disabled endpoint got %d requests", n)
		}

		rc.setReply(nil)
		up, err := api.UpdateWebhookWithResponse(context.Background(), w.Id, sdk.WebhookWrite{Enabled: ptr(true)})
		if err != nil || up.JSON200 == nil || up.JSON200.Data.DisabledReason != nil || !up.JSON200.Data.Enabled {
			t.Fatalf("enable: %v %s", err, up.Body)
		}
		if r, err := api.RetryWebhookDeliveryWithResponse(context.Background(), w.Id, d.EventId); err != nil || r.JSON202 == nil {
			t.Fatalf("retry: %v %s", err, r.Body)
		}
		// Enabled again, the endpoint is also sent the event it missed
		// while disabled, in either order with the retry.
		waitFor(t, "the retried event", func() bool {
			for _, h := range rc.all()[1:] {
				if h.Header.Get("webhook-id") == d.EventId {
					return true
				}
			}
			return false
		})
	})
}

// TestWebhookFailingDisabled: an endpoint whose deliveries fail is not
// disabled at first, but is once they have failed for 5 days (the
// store's clock moved forward), and the owner is told.
func TestWebhookFailingDisabled(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := startHooks(t, engine, func(c *app.Config) {
			c.Webhooks.Backoff = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, time.Second,
				time.Second, time.Second, time.Second, time.Second, time.Second, time.Second}
		})
		a := e.owner(t, e.biz)
		api := e.sdkOwner(t)
		rc := newReceiver(t, func(int, hit) answer { return answer{Status: http.StatusInternalServerError} })
		w := createHook(t, api, rc.srv.URL, "customer.created")
		a.createCustomer(t, map[string]any{"email": "down@hooks.example"})
		rc.waitHits(t, 3)
		if got := getHook(t, api, w.Id); !got.Enabled || got.FailingSince == nil {
			t.Fatalf("after 3 failed attempts: %+v, want enabled and failing", got)
		}
		if n := len(e.messagesTo(t, e.biz.Email)); n != 0 {
			t.Errorf("%d e-mails before 5 days of failures", n)
		}
		e.db.Advance(5*24*time.Hour + time.Minute)
		waitFor(t, "the endpoint to be disabled", func() bool { return !getHook(t, api, w.Id).Enabled })
		if got := getHook(t, api, w.Id); got.DisabledReason == nil || *got.DisabledReason != "failing" {
			t.Errorf("disabled %+v, want reason failing", got)
		}
		if d := deliveries(t, api, w.Id)[0]; d.State != "failed" || d.NextAttemptAt != nil {
			t.Errorf("delivery %+v, want failed", d)
		}
		waitFor(t, "the owner's e-mail", func() bool { return len(e.messagesTo(t, e.biz.Email)) == 1 })
		if m := e.messagesTo(t, e.biz.Email)[0]; !strings.Contains(m.Body, "5 days") {
			t.Errorf("e-mail %+v", m)
		}
	})
}

// publicResolver resolves every name to a public address: a name that
// looked public when the endpoint was saved (or whose DNS changed since).
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("203.0.113.10")}, nil
}

// TestWebhookRefusedAtDelivery: without --webhooks-allow-private, a host
// that resolves to loopback when a delivery connects is refused by the
// dialer, even though it resolved to a public address when the endpoint
// was saved; the receiver gets nothing and the log says why.
func TestWebhookRefusedAtDelivery(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := startHooks(t, engine, func(c *app.Config) {
			c.Webhooks.AllowPrivate, c.Webhooks.Resolver = false, publicResolver{}
		})
		a := e.owner(t, e.biz)
		api := e.sdkOwner(t)
		rc := newReceiver(t, nil)
		port := rc.srv.URL[strings.LastIndexByte(rc.srv.URL, ':'):]
		w := createHook(t, api, "https://localhost"+port+"/hook", "customer.created")
		a.createCustomer(t, map[string]any{"email": "rebind@hooks.example"})
		waitFor(t, "the delivery to fail", func() bool {
			log := deliveries(t, api, w.Id)
			return len(log) == 1 && log[0].State == "failed"
		})
		d := deliveries(t, api, w.Id)[0]
		if d.LastError == nil || !strings.Contains(*d.LastError, "refused address") || !strings.Contains(*d.LastError, "loopback") ||
			d.LastStatus != nil {
			t.Errorf("delivery %+v, want refused as a loopback address", d)
		}
		if n := len(rc.all()); n != 0 {
			t.Errorf("the receiver on loopback got %d requests", n)
		}
	})
}

// TestWebhookTwoInstances: two instances on one PostgreSQL database, each
// with its fan-out and delivery worker, deliver each event to the
// endpoint once: the cursor's lease lets one fan-out at a time queue a
// business's events, the deliveries' key queues each once, and the claim
// gives each to one worker.
func TestWebhookTwoInstances(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("needs PostgreSQL (LOYALTY_TEST_POSTGRES=off)")
	}
	t.Parallel()
	dsn := testenv.DSN(t, sqlstore.Postgres)
	one := startWith(t, dsn, roomy, hookSettings)
	two := another(t, one)
	rc := newReceiver(t, func(int, hit) answer { return answer{Status: http.StatusOK, Delay: 5 * time.Millisecond} })
	w := createHook(t, one.sdkOwner(t), rc.srv.URL)
	// Changes go through both instances, as behind a load balancer.
	viaOne := one.owner(t, one.biz)
	viaTwo := &client{e: two, key: one.biz.Key, token: one.tokens(t, one.biz).AccessToken}
	const customers = 30
	var done sync.WaitGroup
	for i := range customers {
		done.Add(1)
		go func() {
			defer done.Done()
			c := viaOne
			if i%2 == 1 {
				c = viaTwo
			}
			c.createCustomer(t, map[string]any{"email": fmt.Sprintf("pair%d@hooks.example", i)})
		}()
	}
	done.Wait()
	rc.waitHits(t, customers)
	time.Sleep(500 * time.Millisecond) // time for a duplicate to arrive
	seen := map[string]int{}
	for _, h := range rc.all() {
		seen[h.Header.Get("webhook-id")]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
	var rows int
	if err := one.app.DB.SQL().QueryRow(`SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1`, w.Id).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if len(seen) != customers || rows != customers {
		t.Errorf("%d events delivered, %d deliveries queued, want %d of each", len(seen), rows, customers)
	}
}

// another starts a second instance of e's service on e's database, with
// e's settings, and returns it as an env of e's business.
func another(t *testing.T, e *env) *env {
	t.Helper()
	cfg := e.app.Config
	cfg.DataDir = t.TempDir()
	a, err := app.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return &env{dsn: e.dsn, app: a, logs: e.logs, url: srv.URL, oauth: &clock{}, db: &clock{}, v: e.v, http: e.http,
		biz: e.biz, client: e.client}
}
