package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/outbox"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// eachEngine runs fn on a fresh, migrated store of every engine.
func eachEngine(t *testing.T, fn func(t *testing.T, db *sqlstore.DB)) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			fn(t, testenv.Open(t, engine))
		})
	}
}

// enqueue commits n e-mails to the outbox, as the domain does, and
// returns their ids.
func enqueue(t *testing.T, db *sqlstore.DB, n int) []int64 {
	t.Helper()
	var ids []int64
	err := db.WithTx(context.Background(), func(tx loyalty.Tx) error {
		for i := range n {
			m := loyalty.Message{Channel: loyalty.ChannelEmail, To: fmt.Sprintf("p%d@example.com", i), Subject: "Hi", Body: "Token: t\n"}
			if err := tx.EnqueueMessage(context.Background(), &m); err != nil {
				return err
			}
			ids = append(ids, m.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// recorder is a sender that counts deliveries per message.
type recorder struct {
	mu    sync.Mutex
	sent  map[int64]int
	fail  func(m outbox.Message) error // nil: every send succeeds
	after func(total int)              // called after each success
	total int
}

func (r *recorder) Send(ctx context.Context, m outbox.Message) error {
	if r.fail != nil {
		if err := r.fail(m); err != nil {
			return err
		}
	}
	r.mu.Lock()
	if r.sent == nil {
		r.sent = map[int64]int{}
	}
	r.sent[m.ID]++
	r.total++
	total := r.total
	r.mu.Unlock()
	if r.after != nil {
		r.after(total)
	}
	return nil
}

func worker(db *sqlstore.DB, r *recorder) *outbox.Worker {
	return &outbox.Worker{Store: db, Senders: map[string]outbox.Sender{outbox.Email: r, outbox.SMS: r}, Poll: 10 * time.Millisecond}
}

func counts(t *testing.T, db *sqlstore.DB) map[string]int {
	t.Helper()
	c, err := db.OutboxCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStopAndRestart stops a worker after some deliveries and shows that
// a new one (a restarted process) delivers the rest, none twice.
func TestStopAndRestart(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *sqlstore.DB) {
		ids := enqueue(t, db, 30)
		ctx, cancel := context.WithCancel(context.Background())
		first := &recorder{after: func(n int) {
			if n == 10 {
				cancel()
			}
		}}
		worker(db, first).Run(ctx)
		if first.total != 10 {
			t.Fatalf("stopped worker delivered %d, want 10", first.total)
		}
		if c := counts(t, db); c["sent"] != 10 || c["pending"] != 20 || c["sending"] != 0 {
			t.Fatalf("after the stop: %v", c)
		}
		second := &recorder{}
		if n, err := worker(db, second).Drain(context.Background()); err != nil || n != 20 {
			t.Fatalf("restarted worker: %d, %v", n, err)
		}
		for _, id := range ids {
			if first.sent[id]+second.sent[id] != 1 {
				t.Errorf("message %d delivered %d + %d times", id, first.sent[id], second.sent[id])
			}
		}
		if c := counts(t, db); c["sent"] != 30 {
			t.Errorf("at the end: %v", c)
		}
	})
}

// TestInstancesShareTheOutbox runs several workers at once, as several
// instances of the service would: each message goes out once.
func TestInstancesShareTheOutbox(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *sqlstore.DB) {
		ids := enqueue(t, db, 60)
		r := &recorder{fail: func(outbox.Message) error { time.Sleep(time.Millisecond); return nil }}
		var wg sync.WaitGroup
		var delivered atomic.Int64
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := worker(db, r).Drain(context.Background())
				if err != nil {
					t.Error(err)
				}
				delivered.Add(int64(n))
			}()
		}
		wg.Wait()
		for _, id := range ids {
			if r.sent[id] != 1 {
				t.Errorf("message %d delivered %d times", id, r.sent[id])
			}
		}
		if delivered.Load() != 60 {
			t.Errorf("workers report %d deliveries", delivered.Load())
		}
	})
}

// TestRetries shows a failed delivery retried after its backoff, and a
// message that keeps failing marked failed after the last attempt.
func TestRetries(t *testing.T) {
	if outbox.Backoff(1) != 5*time.Second || outbox.Backoff(2) != 10*time.Second || outbox.Backoff(30) != time.Hour {
		t.Errorf("backoff %v %v %v", outbox.Backoff(1), outbox.Backoff(2), outbox.Backoff(30))
	}
	eachEngine(t, func(t *testing.T, db *sqlstore.DB) {
		ids := enqueue(t, db, 2)
		flaky, broken := ids[0], ids[1]
		r := &recorder{fail: func(m outbox.Message) error {
			if m.ID == broken || (m.ID == flaky && m.Attempts < 3) {
				return errors.New("mail server says no")
			}
			return nil
		}}
		now := time.Now().Add(time.Minute)
		w := worker(db, r)
		w.Clock = func() time.Time { return now }
		w.MaxAttempts = 4
		ctx := context.Background()
		for attempt := 1; attempt <= 4; attempt++ {
			n, err := w.Drain(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 0}[attempt == 3]; n != want {
				t.Errorf("attempt %d delivered %d", attempt, n)
			}
			// Nothing is due again before its backoff.
			if n, _ := w.Drain(ctx); n != 0 {
				t.Errorf("attempt %d: delivered %d before the backoff", attempt, n)
			}
			now = now.Add(outbox.Backoff(attempt))
		}
		if r.sent[flaky] != 1 || r.sent[broken] != 0 {
			t.Errorf("sent %v", r.sent)
		}
		if c := counts(t, db); c["sent"] != 1 || c["failed"] != 1 {
			t.Errorf("statuses %v", c)
		}
		var attempts int
		var reason string
		db.SQL().QueryRow(`SELECT attempts, last_error FROM outbox WHERE id = $1`, broken).Scan(&attempts, &reason)
		if attempts != 4 || reason != "mail server says no" {
			t.Errorf("failed message: %d attempts, error %q", attempts, reason)
		}
	})
}

// TestLeaseExpiry shows a message claimed by a worker that died (lease
// never released) delivered by another once the lease runs out.
func TestLeaseExpiry(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *sqlstore.DB) {
		ids := enqueue(t, db, 1)
		t0 := time.Now().Add(time.Second)
		if _, ok, err := db.ClaimMessage(context.Background(), ids[0], "dead-worker", t0, t0.Add(2*time.Minute)); !ok || err != nil {
			t.Fatalf("claim: %v %v", ok, err)
		}
		r := &recorder{}
		w := worker(db, r)
		now := t0.Add(time.Minute)
		w.Clock = func() time.Time { return now }
		if n, _ := w.Drain(context.Background()); n != 0 {
			t.Fatalf("delivered a message still leased")
		}
		now = t0.Add(3 * time.Minute)
		if n, _ := w.Drain(context.Background()); n != 1 || r.sent[ids[0]] != 1 {
			t.Fatalf("after the lease: %d delivered", n)
		}
		// The dead worker's late report changes nothing.
		db.MessageFailed(context.Background(), ids[0], "dead-worker", "late", time.Time{})
		if c := counts(t, db); c["sent"] != 1 {
			t.Errorf("statuses %v", c)
		}
	})
}

// TestTransactionAndWake shows that a rolled-back change sends nothing,
// and that Wake delivers a committed message without waiting for a poll.
func TestTransactionAndWake(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *sqlstore.DB) {
		boom := errors.New("the change failed")
		err := db.WithTx(context.Background(), func(tx loyalty.Tx) error {
			m := loyalty.Message{Channel: loyalty.ChannelSMS, To: "+15145550100", Body: "Code: 1\n"}
			if err := tx.EnqueueMessage(context.Background(), &m); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		r := &recorder{}
		w := worker(db, r)
		w.Poll = time.Hour
		stop := w.Start(context.Background())
		defer stop()
		time.Sleep(50 * time.Millisecond) // the first round finds nothing
		ids := enqueue(t, db, 1)
		w.Wake()
		deadline := time.Now().Add(5 * time.Second)
		for {
			r.mu.Lock()
			done := r.sent[ids[0]] == 1
			r.mu.Unlock()
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("woken worker did not deliver")
			}
			time.Sleep(5 * time.Millisecond)
		}
		stop()
		if c := counts(t, db); c["sent"] != 1 || len(c) != 1 {
			t.Errorf("statuses %v (the rolled-back message must not exist)", c)
		}
	})
}
