package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestSandboxClockOnBothRoads: once a sandbox business's clock has moved
// ahead, a reward made through the services on its clock
// (Services.ClockedBy) is dated by that clock on either road, through
// the group writer and in a transaction of its own, with nothing in the
// context; the services over the store itself date by the real clock.
func TestSandboxClockOnBothRoads(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		real := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		setClock(db, real)
		id := loyalty.NewID()
		cb, err := db.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Sandbox " + id[24:], LoyaltyType: loyalty.PerSpend, Country: "US",
			OwnerEmail: "owner-" + id + "@sandbox.example", OwnerPassword: "unused", Sandbox: true}, "hash-of-"+id, "key-"+id)
		if err != nil {
			t.Fatal(err)
		}
		base := loyalty.NewServices(db, loyalty.ServiceOptions{})
		clock, err := base.Points.MoveClock(ctx, cb.BusinessID, loyalty.ClockInput{Advance: loyalty.Some("P400D")})
		if err != nil {
			t.Fatal(err)
		}
		ahead := real.AddDate(0, 0, 400)
		if !clock.Now.Equal(ahead) {
			t.Fatalf("the moved clock reads %v, want %v", clock.Now, ahead)
		}
		// The business as the API reads it, with its rules (rewards may
		// then be batched), and without them (never batched).
		withRules, err := db.BusinessWithRules(ctx, cb.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := db.Business(ctx, cb.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		if withRules.ClockOffset != clock.Offset || plain.ClockOffset != clock.Offset {
			t.Fatalf("the business reads offsets %v and %v, want %v", withRules.ClockOffset, plain.ClockOffset, clock.Offset)
		}
		svc := base.ClockedBy(plain.ClockOffset)
		if svc.Transactions == base.Transactions || !svc.Transactions.Store.Now().Equal(ahead) {
			t.Fatalf("the services on the sandbox clock read %v, want a view reading %v", svc.Transactions.Store.Now(), ahead)
		}
		// A live business's services are the ones built at start.
		if allocs := testing.AllocsPerRun(10, func() { _ = base.ClockedBy(0) }); allocs != 0 || base.ClockedBy(0).Transactions != base.Transactions {
			t.Errorf("the services on the real clock are a new view (%v allocations), want the services themselves", allocs)
		}
		var batched int
		roads := &loyalty.TransactionService{Store: countingStore{DB: svc.Transactions.Store.(*sqlstore.DB), batched: &batched},
			Customers: svc.Customers}
		c, err := svc.Customers.Create(ctx, plain, loyalty.CustomerInput{Email: loyalty.Some("early@sandbox.example")})
		if err != nil {
			t.Fatal(err)
		}
		if !c.CreatedAt.Equal(ahead) {
			t.Errorf("the customer joined at %v, want the sandbox clock's %v", c.CreatedAt, ahead)
		}
		reward := func(ts *loyalty.TransactionService, b loyalty.Business) loyalty.Transaction {
			t.Helper()
			var in loyalty.TransactionInput
			decode(t, map[string]any{"intent": "reward", "points": 10, "customer": map[string]string{"id": c.ID}}, &in)
			e, _, err := ts.Create(ctx, b, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		for _, road := range []struct {
			name    string
			b       loyalty.Business
			batched int // the group writer's count after the reward
		}{{"the group writer", withRules, 1}, {"a transaction of its own", plain, 1}} {
			e := reward(roads, road.b)
			if batched != road.batched {
				t.Fatalf("%s: the group writer applied %d rewards, want %d", road.name, batched, road.batched)
			}
			entries, _, err := db.CustomerTransactions(ctx, cb.BusinessID, c.ID, loyalty.ListQuery{Page: 1, PerPage: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) == 0 || entries[0].ID != e.ID || !entries[0].CreatedAt.Equal(ahead) || !e.CreatedAt.Equal(ahead) {
				t.Errorf("%s: the reward is dated %v (stored: %+v), want the sandbox clock's %v", road.name, e.CreatedAt, entries, ahead)
			}
		}
		// The same services over the store itself are on the real clock.
		if e := reward(base.Transactions, withRules); !e.CreatedAt.Equal(real) {
			t.Errorf("a reward through the services on the real clock is dated %v, want %v", e.CreatedAt, real)
		}
	})
}
