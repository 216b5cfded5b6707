package sqlstore_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// loneReward is a reward of 10 points for AppendAlone, with its event.
func loneReward(db *sqlstore.DB, businessID, customerID string) *loyalty.Transaction {
	now := db.Now()
	return &loyalty.Transaction{BusinessID: businessID, CustomerID: customerID, Intent: loyalty.IntentReward,
		TypeCode: loyalty.TypeCodeReward, Name: "Reward", Points: 10, Visits: 1, TierPoints: 10, CreatedAt: now,
		Event: loyalty.EntryEvent(now)}
}

// TestAppendAloneWritesItsEvent checks that an entry written on its own
// (SQLite: the batch's transaction; PostgreSQL: the batch statement) writes its
// event with it, read back as the entry as GET /transactions shows it
// (the event keeps a reference to the entry, not a copy), that an entry the store
// refuses writes no event, and that an event that cannot be built keeps
// the entry from being written.
func TestAppendAloneWritesItsEvent(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "").BusinessID
		c := createCustomer(t, db, b, loyalty.CustomerInput{Email: loyalty.Some("lone@example.com")})
		readAll(t, db, b, 0) // customer.created

		e := loneReward(db, b, c.ID)
		if ok, err := db.AppendAlone(ctx, e); !ok || err != nil {
			t.Fatalf("AppendAlone = %v, %v", ok, err)
		}
		got := readAll(t, db, b, 1)
		if len(got) != 1 || got[0].Type != loyalty.EventTransactionCreated ||
			string(got[0].Data) != fmt.Sprintf(`{"id":%d,"intent":"reward","transaction_type":4,"name":"Reward","amount":0.00,"points":10,"pending_points":0,"giftcard":0.00,"visits":1,"customer":{"id":"%s"},"reverses_id":null,"receipt":null,"comments":null,"created_at":"%s","updated_at":"%[3]s"}`,
				e.ID, c.ID, loyalty.FormatTime(e.CreatedAt)) {
			t.Fatalf("events %+v for entry %d", got, e.ID)
		}

		broken := loneReward(db, b, c.ID)
		broken.Event = func(loyalty.Transaction) (loyalty.Event, error) { return loyalty.Event{}, errors.New("no event") }
		// Left to the transactional path (SQLite) or refused with the error
		// (PostgreSQL): either way not written.
		if ok, _ := db.AppendAlone(ctx, broken); ok || broken.ID != 0 {
			t.Fatalf("AppendAlone with an event that fails wrote entry %d", broken.ID)
		}
		refused := loneReward(db, b, c.ID)
		refused.Points = -1000
		if ok, err := db.AppendAlone(ctx, refused); ok || err != nil {
			t.Fatalf("AppendAlone beyond the balance = %v, %v", ok, err)
		}
		if more := readAll(t, db, b, 2); len(more) != 0 {
			t.Fatalf("a change not made wrote events %+v", more)
		}
		var entries int
		if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM transactions WHERE business_id = $1`, b).Scan(&entries); err != nil || entries != 1 {
			t.Fatalf("%d entries, %v", entries, err)
		}
	})
}

// TestEventFeedUnderConcurrentWriters runs 16 writers — rewards through
// the batch and customers created in transactions of their own — while a
// reader follows the feed and a second sequencer races it (on each
// engine; the one that matters is PostgreSQL, where transactions commit
// concurrently). The reader must never see a sequence number other than
// the one after the last it read (no gap, nothing behind), and must end
// with every event written, each once.
func TestEventFeedUnderConcurrentWriters(t *testing.T) {
	eachDB(t, feedUnderConcurrentWriters)
}

func feedUnderConcurrentWriters(t *testing.T, db *sqlstore.DB) {
	b := createBusiness(t, db, "").BusinessID
	biz, err := db.Business(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	var customers []string
	for i := range 32 {
		customers = append(customers, createCustomer(t, db, b, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("w%d@example.com", i))}).ID)
	}
	before := int64(len(readAll(t, db, b, 0)))

	const writers, each = 16, 40
	var written atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := loyalty.CustomerService{Store: db}
			for i := range each {
				if w%4 == 0 {
					in := loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("new-%d-%d@example.com", w, i))}
					if _, err := svc.Create(ctx, biz, in); err != nil {
						t.Errorf("create customer: %v", err)
						return
					}
				} else if ok, err := db.AppendAlone(ctx, loneReward(db, b, customers[(w*each+i)%len(customers)])); !ok || err != nil {
					t.Errorf("AppendAlone = %v, %v", ok, err)
					return
				}
				written.Add(1)
			}
		}()
	}
	go func() { // a second sequencer, as another instance's background loop
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := db.SequenceEvents(ctx, b); err != nil {
				t.Errorf("background SequenceEvents: %v (cause: %v)", err, errors.Unwrap(err))
				return
			}
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	last, seen := before, map[string]bool{}
	read := func() int {
		if _, err := db.SequenceEvents(ctx, b); err != nil {
			t.Fatalf("SequenceEvents: %v (cause: %v)", err, errors.Unwrap(err))
		}
		page, err := db.Events(ctx, b, loyalty.EventQuery{After: last, Limit: 100})
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		for _, e := range page {
			if e.Seq != last+1 || seen[e.ID] {
				t.Fatalf("read sequence %d (%s, seen before: %v) after %d", e.Seq, e.ID, seen[e.ID], last)
			}
			last, seen[e.ID] = e.Seq, true
		}
		return len(page)
	}
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		default:
			read()
			time.Sleep(time.Millisecond)
		}
	}
	close(stop)
	for read() > 0 {
	}
	if got := int64(len(seen)); got != written.Load() || written.Load() != writers*each {
		t.Fatalf("read %d events of %d changes (%d expected)", got, written.Load(), writers*each)
	}
}
