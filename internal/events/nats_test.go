package events_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// jetStream connects to the test NATS server and names a stream of the
// test's own, deleted when the test ends, which is also its subjects'
// prefix (streams' subjects may not overlap).
func jetStream(tb testing.TB) (jetstream.JetStream, string) {
	tb.Helper()
	nc, err := nats.Connect(testenv.NATSURL(tb), nats.Timeout(3*time.Second))
	if err != nil {
		tb.Fatalf("NATS at %s: %v (LOYALTY_TEST_NATS_URL=off skips)", testenv.NATSURL(tb), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	name := "LOYALTY_TEST_" + loyalty.NewID()
	tb.Cleanup(func() {
		_ = js.DeleteStream(ctx, name)
		nc.Close()
	})
	return js, name
}

// streamed reads every message of the stream: event id -> how many
// messages carry it, checking each one's subject, Nats-Msg-Id and body.
func streamed(tb testing.TB, js jetstream.JetStream, name string) map[string]int {
	tb.Helper()
	s, err := js.Stream(ctx, name)
	if err != nil {
		tb.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]int{}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			tb.Fatalf("message %d: %v", seq, err)
		}
		var e loyalty.EventJSON
		if err := json.Unmarshal(m.Data, &e); err != nil {
			tb.Fatal(err)
		}
		if id := m.Header.Get(jetstream.MsgIDHeader); id != e.ID || m.Subject != name+"."+e.BusinessID+"."+e.Type || e.Sequence < 1 {
			tb.Fatalf("message %d: subject %s, Nats-Msg-Id %q, event %+v", seq, m.Subject, id, e)
		}
		out[e.ID]++
	}
	return out
}

// TestNATSPublishesEachEventOnce publishes two businesses' events to a
// JetStream stream the publisher creates, with two publishers racing,
// then publishes them all again as a worker restarted after a crash would
// (its cursor behind what it had published): the stream holds exactly one
// message per event, and later events follow.
func TestNATSPublishesEachEventOnce(t *testing.T) {
	js, stream := jetStream(t)
	db := testenv.Open(t, sqlstore.SQLite)
	a, b := business(t, db), business(t, db)
	write(t, db, a, 250) // more than a page
	write(t, db, b, 3)
	if _, err := (&events.Sequencer{Store: db}).Sequence(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range []string{a, b} {
		list, err := db.Events(ctx, id, loyalty.EventQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			want[e.ID] = true
		}
	}
	publisher := func() *events.NATS { return &events.NATS{Store: db, JS: js, Stream: stream, Prefix: stream} }

	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := publisher().Drain(ctx); err != nil {
				t.Errorf("Drain: %v", err)
			}
		}()
	}
	wg.Wait()
	// A publisher that lost the race for a cursor left it to the other;
	// one more round finishes whatever it skipped.
	if _, err := publisher().Drain(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		got := streamed(t, js, stream)
		if len(got) != len(want) {
			t.Fatalf("%s: %d events in the stream, want %d", when, len(got), len(want))
		}
		for id, n := range got {
			if n != 1 || !want[id] {
				t.Fatalf("%s: event %s is in the stream %d times (known: %v)", when, id, n, want[id])
			}
		}
	}
	check("published")

	// A crash after the publish, before the cursor moved: once the dead
	// worker's lease has run out, the restarted worker publishes
	// everything again, and JetStream drops the repeats.
	if _, err := db.SQL().ExecContext(ctx, `UPDATE event_cursors SET last_seq = 0, lease_until = $1`, time.Now().Add(-time.Second).UTC()); err != nil {
		t.Fatal(err)
	}
	restarted := publisher()
	if n, err := restarted.Drain(ctx); err != nil || n != len(want) {
		t.Fatalf("republished %d, %v; want %d", n, err, len(want))
	}
	check("republished")

	write(t, db, b, 2)
	if _, err := (&events.Sequencer{Store: db}).Sequence(ctx); err != nil {
		t.Fatal(err)
	}
	list, _ := db.Events(ctx, b, loyalty.EventQuery{After: 3, Limit: 10})
	for _, e := range list {
		want[e.ID] = true
	}
	// The restarted worker keeps its leases and follows on.
	if n, err := restarted.Drain(ctx); err != nil || n != 2 {
		t.Fatalf("published %d new events, %v; want 2", n, err)
	}
	check("after more events")
}

// TestNATSStreamDeletedIsCreatedAgain: a stream deleted under a running
// publisher (by hand, or by another installation sharing the server) is
// created again, and the events numbered since reach it: publishing does
// not fail on until the process restarts.
func TestNATSStreamDeletedIsCreatedAgain(t *testing.T) {
	js, stream := jetStream(t)
	db := testenv.Open(t, sqlstore.SQLite)
	a := business(t, db)
	sequence := func() {
		if _, err := (&events.Sequencer{Store: db}).Sequence(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(t, db, a, 2)
	sequence()
	p := &events.NATS{Store: db, JS: js, Stream: stream, Prefix: stream}
	if n, err := p.Drain(ctx); err != nil || n != 2 {
		t.Fatalf("first round: %d, %v; want 2", n, err)
	}
	if err := js.DeleteStream(ctx, stream); err != nil {
		t.Fatal(err)
	}
	write(t, db, a, 3)
	sequence()
	published := 0
	for round := 0; round < 3 && published < 3; round++ {
		n, _ := p.Drain(ctx) // the round that finds no stream fails
		published += n
	}
	if published != 3 {
		t.Fatalf("after the stream's deletion, %d of 3 new events published", published)
	}
	if got := streamed(t, js, stream); len(got) != 3 {
		t.Fatalf("the stream made again holds %d events, want the 3 numbered since", len(got))
	}
}
