package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/webhooks"
)

// TestWebhookDeliveryStore walks a delivery through the store on both
// engines: the secret comes back as it went in; queueing twice queues
// once; of two workers claiming, one wins; a failure starts the
// endpoint's failing streak and a success ends it; a requeue waits for
// the worker holding it; disabling fails what is pending and queues the
// owner's e-mail once; pruning removes what is past the retention.
func TestWebhookDeliveryStore(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "").BusinessID
		start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		setClock(db, start)
		w := loyalty.WebhookEndpoint{ID: loyalty.NewID(), BusinessID: biz, URL: "https://203.0.113.7/h", Enabled: true,
			EventTypes: []string{loyalty.EventCustomerCreated}, Secret: loyalty.NewWebhookSecret(), CreatedAt: start, UpdatedAt: start}
		if err := db.InsertWebhook(ctx, &w); err != nil {
			t.Fatal(err)
		}
		got, err := db.Webhook(ctx, biz, w.ID)
		if err != nil || got.Secret != w.Secret || got.PreviousSecret != "" || len(got.EventTypes) != 1 {
			t.Fatalf("read back %+v %v", got, err)
		}
		other := createBusiness(t, db, "").BusinessID
		_, err = db.Webhook(ctx, other, w.ID)
		wantCode(t, err, loyalty.ENotFound)

		x := loyalty.WebhookDelivery{EndpointID: w.ID, EventID: loyalty.NewID(), BusinessID: biz, Seq: 1,
			EventType: loyalty.EventCustomerCreated, Body: []byte(`{"id":"x"}`)}
		for want := range []int{1, 0} {
			if n, err := db.InsertDeliveries(ctx, []loyalty.WebhookDelivery{x}); err != nil || n != 1-want {
				t.Fatalf("queueing, time %d: %d %v", want+1, n, err)
			}
		}
		due, err := db.DueDeliveries(ctx, start, 10)
		if err != nil || len(due) != 1 {
			t.Fatalf("due %v %v", due, err)
		}
		k := due[0]
		lease := start.Add(time.Minute)
		c1, _, ok1, err1 := db.ClaimDelivery(ctx, k, "one", start, lease)
		_, _, ok2, err2 := db.ClaimDelivery(ctx, k, "two", start, lease)
		if err1 != nil || err2 != nil || !ok1 || ok2 || c1.Attempts != 1 || string(c1.Body) != `{"id":"x"}` {
			t.Fatalf("claims: %v %v %v %v %+v", ok1, ok2, err1, err2, c1)
		}
		_, err = db.RequeueDelivery(ctx, biz, w.ID, k.EventID)
		wantCode(t, err, loyalty.EConflict)

		since, err := db.FinishDelivery(ctx, webhooks.Attempt{Key: k, Claim: "two", At: start, Outcome: loyalty.DeliveryDelivered})
		if err != nil || !since.IsZero() {
			t.Fatalf("a lost claim's outcome: %v %v", since, err)
		}
		since, err = db.FinishDelivery(ctx, webhooks.Attempt{Key: k, Claim: "one", At: start, Status: 500, Response: "no",
			Outcome: loyalty.DeliveryPending, Next: start.Add(time.Second)})
		if err != nil || !since.Equal(start) {
			t.Fatalf("failing since %v %v, want %v", since, err, start)
		}
		// The lease outlived: another worker takes it once it is due.
		later := start.Add(2 * time.Second)
		_, _, ok, err := db.ClaimDelivery(ctx, k, "three", later, later.Add(time.Minute))
		if err != nil || !ok {
			t.Fatalf("claim after the backoff: %v %v", ok, err)
		}
		if since, err := db.FinishDelivery(ctx, webhooks.Attempt{Key: k, Claim: "three", At: later, Status: 200,
			Outcome: loyalty.DeliveryDelivered}); err != nil || !since.IsZero() {
			t.Fatalf("a success: %v %v", since, err)
		}
		if got, _ := db.Webhook(ctx, biz, w.ID); !got.FailingSince.IsZero() {
			t.Errorf("failing since %v after a success", got.FailingSince)
		}
		log, total, err := db.WebhookDeliveries(ctx, biz, w.ID, loyalty.ListQuery{Page: 1, PerPage: 10})
		if err != nil || total != 1 || log[0].State != loyalty.DeliveryDelivered || log[0].Attempts != 2 || log[0].LastStatus != 200 {
			t.Fatalf("log %+v %d %v", log, total, err)
		}

		pending := x
		pending.EventID = loyalty.NewID()
		if _, err := db.InsertDeliveries(ctx, []loyalty.WebhookDelivery{pending}); err != nil {
			t.Fatal(err)
		}
		msg := func(email, name string, e loyalty.WebhookEndpoint) loyalty.Message {
			return loyalty.WebhookDisabledMessage(email, name, e, loyalty.WebhookGone)
		}
		for want := range []bool{true, false} {
			if done, err := db.DisableWebhook(ctx, w.ID, loyalty.WebhookGone, msg); err != nil || done != (want == 0) {
				t.Fatalf("disable, time %d: %v %v", want+1, done, err)
			}
		}
		if due, _ := db.DueDeliveries(ctx, later.Add(time.Hour), 10); len(due) != 0 {
			t.Errorf("due deliveries of a disabled endpoint: %v", due)
		}
		counts, err := db.OutboxCounts(ctx)
		if err != nil || counts["pending"] != 1 {
			t.Errorf("outbox %v %v, want the one e-mail", counts, err)
		}
		failed, _, _ := db.WebhookDeliveries(ctx, biz, w.ID, loyalty.ListQuery{Page: 1, PerPage: 10,
			Filters: []loyalty.Filter{{Field: "state", Op: loyalty.OpEq, Values: []any{loyalty.DeliveryFailed}}}})
		if len(failed) != 1 || failed[0].EventID != pending.EventID {
			t.Errorf("failed deliveries %+v, want the pending one", failed)
		}

		if n, err := db.PruneDeliveries(ctx, start); err != nil || n != 0 {
			t.Errorf("pruning nothing: %d %v", n, err)
		}
		if n, err := db.PruneDeliveries(ctx, later.Add(time.Hour)); err != nil || n != 2 {
			t.Errorf("pruning both: %d %v", n, err)
		}
	})
}
