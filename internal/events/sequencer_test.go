package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

var ctx = context.Background()

// business creates a business and returns its id.
func business(tb testing.TB, db *sqlstore.DB) string {
	tb.Helper()
	id := loyalty.NewID()
	cb, err := db.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Shop " + id[24:], LoyaltyType: loyalty.PerSpend, Country: "US",
		OwnerEmail: "owner-" + id + "@shop.example", OwnerPassword: "unused"}, "hash", "key-"+id)
	if err != nil {
		tb.Fatal(err)
	}
	return cb.BusinessID
}

// write commits n events of a business.
func write(tb testing.TB, db *sqlstore.DB, businessID string, n int) {
	tb.Helper()
	err := db.WithTx(ctx, func(tx loyalty.Tx) error {
		for range n {
			e, err := loyalty.NewEvent(businessID, loyalty.EventCustomerCreated, tx.Now(), map[string]string{})
			if err != nil {
				return err
			}
			if err := tx.InsertEvent(ctx, &e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestSequencerNumbersInBackground checks that the background loop numbers
// every business's events without a reader, so deliveries can follow.
func TestSequencerNumbersInBackground(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) { sequencesInBackground(t, testenv.Open(t, engine)) })
	}
}

// sequencesInBackground writes events of two businesses and waits for the
// sequencer to number them.
func sequencesInBackground(t *testing.T, db *sqlstore.DB) {
	a, b := business(t, db), business(t, db)
	write(t, db, a, 3)
	write(t, db, b, 2)
	stop := (&events.Sequencer{Store: db, Every: 10 * time.Millisecond}).Start(ctx)
	defer stop()
	for _, want := range []struct {
		id string
		n  int
	}{{a, 3}, {b, 2}} {
		deadline := time.Now().Add(5 * time.Second)
		for {
			got, err := db.Events(ctx, want.id, loyalty.EventQuery{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == want.n && got[want.n-1].Seq == int64(want.n) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("business %s: %d events numbered, want %d", want.id, len(got), want.n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
