package loyalty_test

import (
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestRefusalIsStoredUnderItsKey: a request refused by the ledger's rules
// is stored under its Idempotency-Key like a success, so a retry gets the
// same refusal even once the balance would allow it, and writes nothing.
func TestRefusalIsStoredUnderItsKey(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"keyed@example.com"}`)
		id := `"customer":{"id":"` + c.ID + `"}`
		redeem := txInput(t, `{"intent":"redeem","points":10,`+id+`}`)
		key := &loyalty.Idempotency{Key: "K", Hash: []byte("redeem 10")}

		w.do(t, b, `{"intent":"reward","points":5,`+id+`}`)
		_, reply, err := w.ledger().Create(w.ctx, b, redeem, key)
		if reply != nil {
			t.Fatalf("the first request under a key was answered as a replay")
		}
		wantInvalid(t, err, "points")
		w.do(t, b, `{"intent":"reward","points":10,`+id+`}`)
		_, reply, err = w.ledger().Create(w.ctx, b, redeem, key)
		if err != nil || reply == nil || reply.Err == nil {
			t.Fatalf("the retry: reply %+v, err %v; want the stored refusal", reply, err)
		}
		wantInvalid(t, reply.Err, "points")
		if p, _, n := w.ledgerSums(t, b, c.ID); p != 15 || n != 2 {
			t.Fatalf("ledger after the retry: %d points in %d entries, want 15 in 2", p, n)
		}
	})
}

// TestRefusalUndoesWhatTheRequestWrote: a keyed request that creates its
// customer by e-mail and is then refused leaves no customer behind, only
// its key; a body refused before any I/O leaves not even the key.
func TestRefusalUndoesWhatTheRequestWrote(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		body := `{"intent":"redeem","points":1,"customer":{"email":"nobody-yet@example.com"}}`
		key := &loyalty.Idempotency{Key: "new", Hash: []byte(body)}
		if _, _, err := w.ledger().Create(w.ctx, b, txInput(t, body), key); loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("redeeming from a new customer: %v, want EInvalid", err)
		}
		w.noPerson(t, "nobody-yet@example.com")
		if _, reply, _ := w.ledger().Create(w.ctx, b, txInput(t, body), key); reply == nil || loyalty.ErrorCode(reply.Err) != loyalty.EInvalid {
			t.Fatalf("the retry was not answered with the stored refusal: %+v", reply)
		}

		bad := &loyalty.Idempotency{Key: "bad", Hash: []byte("x")}
		if _, _, err := w.ledger().Create(w.ctx, b, txInput(t, `{"intent":"reward","points":-1,"customer":{"email":"a@example.com"}}`), bad); loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("a bad body: %v", err)
		}
		if _, err := w.db.IdempotentReply(w.ctx, b.ID, "bad"); loyalty.ErrorCode(err) != loyalty.ENotFound {
			t.Fatalf("a body refused before any I/O was stored under its key: %v", err)
		}
	})
}

// TestConcurrentKeyedRefusalsAgree: concurrent requests under one key get
// one answer, the refusal, and none of them writes.
func TestConcurrentKeyedRefusalsAgree(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"racing-key@example.com"}`)
		body := `{"intent":"redeem","points":3,"customer":{"id":"` + c.ID + `"}}`
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				_, reply, err := w.ledger().Create(w.ctx, b, txInput(t, body), &loyalty.Idempotency{Key: "race", Hash: []byte(body)})
				if reply != nil {
					err = reply.Err
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if loyalty.ErrorCode(err) != loyalty.EInvalid {
				t.Errorf("a concurrent request under the key: %v, want the refusal", err)
			}
		}
		if _, _, n := w.ledgerSums(t, b, c.ID); n != 0 {
			t.Fatalf("%d entries written", n)
		}
	})
}

// TestBackDatedEntriesCountWhenTheyHappened: a reward with created_at is
// dated then, counts in the tier period of that date, and a refund of
// redeemed points adds to the balance without counting towards tiers.
func TestBackDatedEntriesCountWhenTheyHappened(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"imported@example.com"}`)
		id := `"customer":{"id":"` + c.ID + `"}`
		then := time.Now().UTC().Add(-40 * 24 * time.Hour).Truncate(time.Second)
		e := w.do(t, b, `{"intent":"reward","points":7,"created_at":"`+then.Format(time.RFC3339)+`",`+id+`}`)
		if !e.CreatedAt.Equal(then) {
			t.Fatalf("back-dated reward dated %v, want %v", e.CreatedAt, then)
		}
		old, err := w.db.TierTotals(w.ctx, b.ID, c.ID, then.Add(-time.Hour), then.Add(time.Hour))
		if err != nil || old.Points != 7 {
			t.Fatalf("tier totals around the back date: %+v, %v; want 7 points", old, err)
		}
		w.do(t, b, `{"intent":"refund_redeemed_points","points":100,`+id+`}`)
		now, err := w.db.TierTotals(w.ctx, b.ID, c.ID, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		if err != nil || now.Points != 0 {
			t.Fatalf("tier totals after a refund: %+v, %v; want no points", now, err)
		}
		if p, _, _ := w.ledgerSums(t, b, c.ID); p != 107 {
			t.Fatalf("balance %d, want 107", p)
		}
		future := time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
		_, _, err = w.ledger().Create(w.ctx, b, txInput(t, `{"intent":"reward","points":1,"created_at":"`+future+`",`+id+`}`), nil)
		wantInvalid(t, err, "created_at")
	})
}
