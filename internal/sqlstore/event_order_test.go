package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestEventsNumberedInCommitOrder: a customer's ledger events are numbered
// in the order their changes committed, whichever road wrote them. A
// change written one by one (an adjustment, in its own transaction) and
// then a reward through the group writer must read from GET /events in
// that order: on PostgreSQL the first waits, unnumbered, for the
// sequencer, while the batch numbers its own events as it commits, so a
// batch that did not number the waiting ones first put the later change
// before the earlier. The second case has the one-by-one change commit
// while the batch waits for the customer it holds: the batch must still
// see that change's event and number it first.
func TestEventsNumberedInCommitOrder(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		c := createCustomer(t, db, biz.BusinessID, loyalty.CustomerInput{Email: loyalty.Some(loyalty.NewID() + "@example.com")})
		// oneByOne writes an adjustment and its event in a transaction of
		// its own; hold, when set, runs before it commits.
		oneByOne := func(hold func()) int64 {
			e := loyalty.Transaction{BusinessID: biz.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentAdjust, TypeCode: 7,
				Points: 5, CreatedAt: db.Now()}
			err := db.WithTx(ctx, func(tx loyalty.Tx) error {
				if err := tx.Append(ctx, &e); err != nil {
					return err
				}
				ev, err := loyalty.EntryEvent(e.CreatedAt)(e)
				if err != nil {
					return err
				}
				if err := tx.InsertEvent(ctx, &ev); err != nil {
					return err
				}
				if hold != nil {
					hold()
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
			return e.ID
		}
		batched := func() int64 {
			e := loyalty.Transaction{BusinessID: biz.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentReward, TypeCode: 4,
				Points: 1, CreatedAt: db.Now()}
			e.Event = loyalty.EntryEvent(e.CreatedAt)
			ok, err := db.AppendAlone(ctx, &e)
			if err != nil || !ok {
				t.Errorf("the reward was not written through the group writer: %v, %v", ok, err)
			}
			return e.ID
		}

		// One after the other, the sequencer not yet run between them.
		want := []int64{oneByOne(nil), batched()}

		// The one-by-one change commits while the batch waits for it.
		holding, release, done := make(chan struct{}), make(chan struct{}), make(chan int64)
		go func() {
			done <- oneByOne(func() { close(holding); <-release })
		}()
		<-holding
		rewarded := make(chan int64)
		go func() { rewarded <- batched() }()
		if db.Dialect() == sqlstore.Postgres {
			waitForLockWaiter(t, db)
		} else {
			time.Sleep(100 * time.Millisecond) // the batch waits for SQLite's one writer
		}
		close(release)
		want = append(want, <-done, <-rewarded)
		if t.Failed() {
			return
		}

		if _, err := db.SequenceEvents(ctx, biz.BusinessID); err != nil {
			t.Fatal(err)
		}
		events, err := db.Events(ctx, biz.BusinessID, loyalty.EventQuery{Limit: 100, Refs: true,
			Types: []string{loyalty.EventTransactionCreated}})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, ev := range events {
			got = append(got, ev.EntryID)
		}
		if len(got) != len(want) {
			t.Fatalf("events name entries %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("events name entries %v in sequence order, want the order they committed: %v", got, want)
			}
		}
	})
}

// waitForLockWaiter waits until a session waits for a lock while holding
// one on the customers table of db's schema (a row lock's waiter holds the
// row's tuple lock), and fails the test after 10 s.
func waitForLockWaiter(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity a
			WHERE a.wait_event_type = 'Lock' AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.relation = 'customers'::regclass)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the batch never waited for the customer held by the other transaction")
}
