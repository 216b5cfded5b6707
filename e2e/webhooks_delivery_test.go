package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/loyalty/loyalty/client"
	"github.com/loyalty/loyalty/internal/app"
)

// TestWebhookDeliveries: the events of the endpoint's types reach the
// receiver as GET /events shows them, with webhook-id = the event id, each
// signed so that the SDK's verifier (the Standard Webhooks reference
// library) accepts it, and refuses it under a wrong secret, with a changed
// body or an old timestamp. Events of other types, of before the endpoint
// and of another business are not sent. The log shows each delivery.
func TestWebhookDeliveries(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := startHooks(t, engine, nil)
		a := e.owner(t, e.biz)
		api := e.sdkOwner(t)
		before := a.createCustomer(t, map[string]any{"email": "before@hooks.example"})
		rc := newReceiver(t, nil)
		w := createHook(t, api, rc.srv.URL+"/hooks?src=loyalty", "customer.created", "transaction.created")

		c := a.createCustomer(t, map[string]any{"email": "eve@hooks.example"})
		a.do(t, http.MethodPut, "/customers/"+c.ID, map[string]any{"first_name": "Eve"}).want(t, http.StatusOK)
		a.catTransact(t, c.ID, map[string]any{"intent": "reward", "points": 40})
		a.catTransact(t, before.ID, map[string]any{"intent": "reward", "points": 5})
		other := e.owner(t, e.newBusiness(t, "Elsewhere"))
		other.createCustomer(t, map[string]any{"email": "not-ours@hooks.example"})

		hits := rc.waitHits(t, 3)
		var feed eventPage
		a.get(t, "/events").want(t, http.StatusOK).decode(t, &feed)
		byID := map[string]json.RawMessage{}
		var raw struct {
			Data []json.RawMessage `json:"data"`
		}
		a.get(t, "/events").want(t, http.StatusOK).decode(t, &raw)
		for i, ev := range feed.Data {
			byID[ev.ID] = raw.Data[i]
		}
		v := verifier(t, time.Now, w.Secret)
		var types []string
		for _, h := range hits {
			if err := v.Verify(h.Header, h.Body); err != nil {
				t.Fatalf("delivery %s refused by the verifier: %v", h.Header.Get("webhook-id"), err)
			}
			var ev event
			if err := json.Unmarshal(h.Body, &ev); err != nil {
				t.Fatal(err)
			}
			types = append(types, ev.Type)
			want, ok := byID[h.Header.Get("webhook-id")]
			if !ok || ev.ID != h.Header.Get("webhook-id") || ev.BusinessID != e.biz.ID {
				t.Fatalf("delivery %s: no such event of the business in GET /events (%s)", h.Header.Get("webhook-id"), h.Body)
			}
			if !jsonEqual(t, want, h.Body) {
				t.Errorf("delivery body %s, GET /events shows %s", h.Body, want)
			}
			if ct := h.Header.Get("content-type"); ct != "application/json" {
				t.Errorf("content-type %q", ct)
			}
		}
		// Deliveries run several at once: their order is not the feed's.
		slices.Sort(types)
		if strings.Join(types, " ") != "customer.created transaction.created transaction.created" {
			t.Errorf("delivered %v, want the new customer and both rewards (not the update, nor the earlier customer)", types)
		}

		// The verifier refuses what was not signed so, or is too old.
		h := hits[0]
		if err := verifier(t, time.Now, "whsec_"+strings.Repeat("A", 43)+"=").Verify(h.Header, h.Body); !errors.Is(err, sdk.ErrWebhookSignature) {
			t.Errorf("wrong secret: %v", err)
		}
		tampered := bytes.Replace(h.Body, []byte(h.Header.Get("webhook-id")), []byte(strings.Repeat("0", 32)), 1)
		if err := v.Verify(h.Header, tampered); !errors.Is(err, sdk.ErrWebhookSignature) {
			t.Errorf("tampered body: %v", err)
		}
		late := verifier(t, func() time.Time { return time.Now().Add(10 * time.Minute) }, w.Secret)
		if err := late.Verify(h.Header, h.Body); !errors.Is(err, sdk.ErrWebhookTooOld) {
			t.Errorf("old timestamp: %v", err)
		}

		time.Sleep(200 * time.Millisecond) // nothing more comes
		if n := len(rc.all()); n != 3 {
			t.Errorf("the receiver got %d requests, want 3", n)
		}
		log := deliveries(t, api, w.Id)
		if len(log) != 3 {
			t.Fatalf("log %+v", log)
		}
		for _, d := range log {
			if d.State != "delivered" || d.Attempts != 1 || d.LastStatus == nil || *d.LastStatus != 200 || d.LastLatencyMs == nil ||
				d.LastResponse == nil || *d.LastResponse != `{"received":true}` || d.NextAttemptAt != nil || d.LastError != nil {
				t.Errorf("log entry %+v", d)
			}
		}
		if log[0].EventId < log[2].EventId {
			t.Errorf("log not newest event first: %s then %s", log[0].EventId, log[2].EventId)
		}
	})
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// TestWebhookRetries: a 500 and a timeout are retried, with the same
// webhook-id, until a 2xx; a delivery that used its attempts fails, and
// a retry through the API sends it again; the log keeps at most 1 KiB of
// a reply.
func TestWebhookRetries(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		// An attempt's limit that this test reaches on purpose, four times
		// what a loaded two-core machine was seen to need for a reply.
		const limit = 2 * time.Second
		e := startHooks(t, engine, func(c *app.Config) { c.Webhooks.Timeout = limit })
		a := e.owner(t, e.biz)
		api := e.sdkOwner(t)
		rc := newReceiver(t, func(n int, h hit) answer {
			switch n {
			case 1:
				return answer{Status: http.StatusInternalServerError}
			case 2:
				return answer{Status: http.StatusOK, Delay: 2 * limit} // past the limit
			}
			return answer{Status: http.StatusOK}
		})
		w := createHook(t, api, rc.srv.URL, "customer.created")
		a.createCustomer(t, map[string]any{"email": "retry@hooks.example"})
		hits := rc.waitHits(t, 3)
		id := hits[0].Header.Get("webhook-id")
		for _, h := range hits {
			if h.Header.Get("webhook-id") != id {
				t.Errorf("a retry changed the webhook-id: %s then %s", id, h.Header.Get("webhook-id"))
			}
		}
		if gap := hits[1].At.Sub(hits[0].At); gap < 40*time.Millisecond {
			t.Errorf("retried after %v, want the backoff (50 ms ± 10 %%)", gap)
		}
		if gap := hits[2].At.Sub(hits[1].At); gap < limit {
			t.Errorf("the attempt after the timeout came %v after it began, want the %v limit and the backoff", gap, limit)
		}
		waitFor(t, "the third attempt to be recorded", func() bool {
			log := deliveries(t, api, w.Id)
			return len(log) == 1 && log[0].State == "delivered"
		})
		if d := deliveries(t, api, w.Id)[0]; d.Attempts != 3 || *d.LastStatus != 200 {
			t.Errorf("log %+v, want delivered at the third attempt", d)
		}

		// A receiver that keeps failing: the first attempt and 3 retries, then failed.
		big := strings.Repeat("é", 2000) // 4000 bytes
		failing := newReceiver(t, func(int, hit) answer { return answer{Status: http.StatusServiceUnavailable, Body: big} })
		f := createHook(t, api, failing.srv.URL, "customer.created")
		a.createCustomer(t, map[string]any{"email": "fails@hooks.example"})
		waitFor(t, "the delivery to fail for good", func() bool {
			log := deliveries(t, api, f.Id)
			return len(log) == 1 && log[0].State == "failed"
		})
		d := deliveries(t, api, f.Id)[0]
		if d.Attempts != 4 || *d.LastStatus != 503 || d.NextAttemptAt != nil || len(failing.all()) != 4 {
			t.Errorf("failed delivery %+v after %d requests, want 4 attempts", d, len(failing.all()))
		}
		if ex := *d.LastResponse; len(ex) > 1024 || len(ex) < 1000 || !strings.HasPrefix(big, ex) {
			t.Errorf("response excerpt of %d bytes, want the reply's first KiB cut on a character", len(ex))
		}

		failing.setReply(nil)
		r, err := api.RetryWebhookDeliveryWithResponse(context.Background(), f.Id, d.EventId)
		if err != nil || r.JSON202 == nil || r.JSON202.Data.State != "pending" {
			t.Fatalf("retry: %v %s", err, r.Body)
		}
		waitFor(t, "the retried delivery", func() bool { return deliveries(t, api, f.Id)[0].State == "delivered" })
		if got := failing.all(); len(got) != 5 || got[4].Header.Get("webhook-id") != d.EventId {
			t.Errorf("after the retry the receiver got %d requests", len(got))
		}
		a.do(t, http.MethodPost, "/webhooks/"+f.Id+"/deliveries/"+strings.Repeat("0", 32)+"/retry", nil).want(t, http.StatusNotFound)
		a.do(t, http.MethodPost, "/webhooks/"+f.Id+"/deliveries/nope/retry", nil).want(t, http.StatusBadRequest)
	})
}
