package sqlstore_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// writeEvent commits one event of a business in a transaction of its own.
func writeEvent(tb testing.TB, db *sqlstore.DB, businessID, typ string) loyalty.Event {
	tb.Helper()
	var e loyalty.Event
	err := db.WithTx(ctx, func(tx loyalty.Tx) error {
		var err error
		if e, err = loyalty.NewEvent(businessID, typ, tx.Now(), map[string]string{"type": typ}); err != nil {
			return err
		}
		return tx.InsertEvent(ctx, &e)
	})
	if err != nil {
		tb.Fatalf("InsertEvent: %v", err)
	}
	return e
}

// readAll reads a business's whole feed after after, sequencing first.
func readAll(tb testing.TB, db *sqlstore.DB, businessID string, after int64) []loyalty.Event {
	tb.Helper()
	if _, err := db.SequenceEvents(ctx, businessID); err != nil {
		tb.Fatalf("SequenceEvents: %v", err)
	}
	var out []loyalty.Event
	for {
		// As a reader sees them: the entries events name rendered.
		page, err := loyalty.ReadEvents(ctx, db, businessID, loyalty.EventQuery{After: after, Limit: 3})
		if err != nil {
			tb.Fatalf("Events: %v", err)
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}

// TestEventsNumberedPerBusiness checks that events become readable once
// numbered, numbered 1, 2, 3... per business in the order they committed, that a reader
// keeping the last number sees each once, that the type filter and a
// rolled-back transaction's event behave, and that businesses are apart.
func TestEventsNumberedPerBusiness(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a, b := createBusiness(t, db, "").BusinessID, createBusiness(t, db, "").BusinessID
		var want []string
		for i := range 5 {
			want = append(want, writeEvent(t, db, a, fmt.Sprintf("t.%d", i%2)).ID)
			writeEvent(t, db, b, "other")
		}
		// PostgreSQL numbers events after they committed (SQLite as they
		// are written): until then there is nothing to read.
		if got, err := db.Events(ctx, a, loyalty.EventQuery{Limit: 10}); err != nil || (db.Dialect() == sqlstore.Postgres) != (len(got) == 0) {
			t.Fatalf("before sequencing: %d events, %v", len(got), err)
		}
		rolledBack := db.WithTx(ctx, func(tx loyalty.Tx) error {
			e, _ := loyalty.NewEvent(a, "t.0", tx.Now(), nil)
			if err := tx.InsertEvent(ctx, &e); err != nil {
				return err
			}
			return loyalty.Errorf(loyalty.EInvalid, "undone")
		})
		if rolledBack == nil {
			t.Fatal("the failing transaction committed")
		}
		got := readAll(t, db, a, 0)
		var ids []string
		for i, e := range got {
			ids = append(ids, e.ID)
			if e.Seq != int64(i+1) || e.BusinessID != a {
				t.Errorf("event %d: seq %d business %s", i, e.Seq, e.BusinessID)
			}
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("feed %v, want %v", ids, want)
		}
		// More events continue the numbers; reading on from the last
		// number sees only them.
		want = append(want, writeEvent(t, db, a, "t.1").ID)
		if more := readAll(t, db, a, 5); len(more) != 1 || more[0].Seq != 6 || more[0].ID != want[5] {
			t.Fatalf("after 5: %+v", more)
		}
		only, err := db.Events(ctx, a, loyalty.EventQuery{Types: []string{"t.0"}, Limit: 10})
		if err != nil || len(only) != 3 || only[0].Type != "t.0" {
			t.Fatalf("type filter: %+v, %v", only, err)
		}
		not, err := db.Events(ctx, a, loyalty.EventQuery{Types: []string{"t.0"}, Not: true, Limit: 10})
		if err != nil || len(not) != 3 || not[0].Type != "t.1" {
			t.Fatalf("not_in filter: %+v, %v", not, err)
		}
		if other := readAll(t, db, b, 0); len(other) != 5 || other[4].Seq != 5 {
			t.Fatalf("business b: %d events", len(other))
		}
	})
}

// TestManyEventsInOneTransaction: a batch's events, more than one
// statement takes and of two businesses interleaved, are each written
// once and numbered per business in the order given.
func TestManyEventsInOneTransaction(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a, b := createBusiness(t, db, "").BusinessID, createBusiness(t, db, "").BusinessID
		writeEvent(t, db, a, "before")
		want := map[string][]string{a: {}, b: {}}
		var batch []loyalty.Event
		for i := range 77 {
			biz := a
			if i%3 == 0 {
				biz = b
			}
			e, err := loyalty.NewEvent(biz, "many", time.Now(), map[string]int{"i": i})
			if err != nil {
				t.Fatal(err)
			}
			batch, want[biz] = append(batch, e), append(want[biz], e.ID)
		}
		if err := db.InsertEvents(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for biz, first := range map[string]int64{a: 2, b: 1} {
			got := readAll(t, db, biz, first-1)
			var ids []string
			for i, e := range got {
				if e.Seq != first+int64(i) {
					t.Errorf("event %d of %s numbered %d, want %d", i, biz, e.Seq, first+int64(i))
				}
				ids = append(ids, e.ID)
			}
			if !slices.Equal(ids, want[biz]) {
				t.Errorf("events of %s: %d, want the %d written in order", biz, len(ids), len(want[biz]))
			}
		}
	})
}

// TestEventCursorLease checks the delivery cursor: one claim at a time,
// taken over once its lease ran out, advanced only by its holder.
func TestEventCursorLease(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a := createBusiness(t, db, "").BusinessID
		writeEvent(t, db, a, "x")
		writeEvent(t, db, a, "x")
		if _, err := db.SequenceEvents(ctx, a); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		behind, err := db.BehindCursors(ctx, "dest", "one", now, 10)
		if err != nil || !slices.Contains(behind, a) {
			t.Fatalf("BehindCursors = %v, %v", behind, err)
		}
		seq, ok, err := db.ClaimCursor(ctx, "dest", a, "one", now, now.Add(time.Minute))
		if err != nil || !ok || seq != 0 {
			t.Fatalf("first claim: %d %v %v", seq, ok, err)
		}
		if _, ok, _ := db.ClaimCursor(ctx, "dest", a, "two", now, now.Add(time.Minute)); ok {
			t.Fatal("a second claim took a leased cursor")
		}
		// The holder still sees its cursor behind and renews its lease;
		// the other claim sees neither.
		if behind, _ := db.BehindCursors(ctx, "dest", "one", now, 10); !slices.Contains(behind, a) {
			t.Fatalf("the holder does not see its cursor behind: %v", behind)
		}
		if behind, _ := db.BehindCursors(ctx, "dest", "two", now, 10); slices.Contains(behind, a) {
			t.Fatalf("another claim sees a leased cursor: %v", behind)
		}
		if seq, ok, err := db.ClaimCursor(ctx, "dest", a, "one", now, now.Add(time.Minute)); err != nil || !ok || seq != 0 {
			t.Fatalf("the holder's renewal: %d %v %v", seq, ok, err)
		}
		if ok, err := db.AdvanceCursor(ctx, "dest", a, "one", 1, now.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("advance by holder: %v %v", ok, err)
		}
		later := now.Add(2 * time.Minute)
		seq, ok, err = db.ClaimCursor(ctx, "dest", a, "two", later, later.Add(time.Minute))
		if err != nil || !ok || seq != 1 {
			t.Fatalf("takeover after the lease: %d %v %v", seq, ok, err)
		}
		if ok, _ := db.AdvanceCursor(ctx, "dest", a, "one", 2, later); ok {
			t.Fatal("the old claim advanced a cursor it lost")
		}
		if err := db.ReleaseCursor(ctx, "dest", a, "two"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.ClaimCursor(ctx, "dest", a, "three", later, later.Add(time.Minute)); !ok {
			t.Fatal("a released cursor could not be claimed")
		}
	})
}

// TestPruneEvents checks that pruning removes numbered events older than
// the cutoff and keeps the rest, business by business: one with old and
// new events, one with only old ones, one with only new ones; numbering
// goes on after a prune.
func TestPruneEvents(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		mixed, gone, young := createBusiness(t, db, "").BusinessID, createBusiness(t, db, "").BusinessID, createBusiness(t, db, "").BusinessID
		var old []string
		for range 3 {
			old = append(old, writeEvent(t, db, mixed, "x").ID, writeEvent(t, db, gone, "x").ID)
		}
		readAll(t, db, mixed, 0)
		readAll(t, db, gone, 0)
		// Events keep their time to the second (the ledger's clock): the
		// cutoff is the next whole second, and the young events come after.
		cutoff := time.Now().Truncate(time.Second).Add(time.Second)
		time.Sleep(time.Until(cutoff) + 5*time.Millisecond)
		kept := writeEvent(t, db, mixed, "x")
		fresh := writeEvent(t, db, young, "x")
		if n, err := db.PruneEvents(ctx, cutoff); err != nil || n != len(old) {
			t.Fatalf("PruneEvents = %d, %v; want %d", n, err, len(old))
		}
		got := readAll(t, db, mixed, 0)
		if len(got) != 1 || got[0].ID != kept.ID || got[0].Seq != 4 {
			t.Fatalf("after prune, business with old and new events: %+v", got)
		}
		if got := readAll(t, db, gone, 0); len(got) != 0 {
			t.Fatalf("after prune, business with only old events: %+v", got)
		}
		if got := readAll(t, db, young, 0); len(got) != 1 || got[0].ID != fresh.ID {
			t.Fatalf("after prune, business with only new events: %+v", got)
		}
		if n, err := db.PruneEvents(ctx, cutoff); err != nil || n != 0 {
			t.Fatalf("second PruneEvents = %d, %v", n, err)
		}
		next := writeEvent(t, db, gone, "x")
		if got := readAll(t, db, gone, 0); len(got) != 1 || got[0].ID != next.ID || got[0].Seq != 4 {
			t.Fatalf("a business whose events were all pruned numbers on from 4: %+v", got)
		}
	})
}

// TestEventsBySequenceMigration: migration 00030 (SQLite's event log keyed
// by business and number) keeps every event, numbers one an older writer
// left unnumbered after the business's last, and numbering goes on from
// there; on PostgreSQL it changes nothing.
func TestEventsBySequenceMigration(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a, b := createBusiness(t, db, "").BusinessID, createBusiness(t, db, "").BusinessID
		var want []string
		for range 2 {
			want = append(want, writeEvent(t, db, a, "x").ID)
			writeEvent(t, db, b, "x")
		}
		readAll(t, db, a, 0)
		if err := db.MigrateDownTo(ctx, 29); err != nil {
			t.Fatal(err)
		}
		left, err := loyalty.NewEvent(a, "left", time.Now(), map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO events (id, business_id, seq, type, created_at, data) VALUES ($1, $2, NULL, $3, $4, $5)`,
			left.ID, a, left.Type, left.CreatedAt, string(left.Data)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		want = append(want, left.ID, writeEvent(t, db, a, "x").ID)
		got := readAll(t, db, a, 0)
		var ids []string
		for i, e := range got {
			if e.Seq != int64(i+1) {
				t.Errorf("event %s numbered %d, want %d", e.ID, e.Seq, i+1)
			}
			ids = append(ids, e.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("after 00030: %v, want %v", ids, want)
		}
		if got := readAll(t, db, b, 0); len(got) != 2 || got[1].Seq != 2 {
			t.Errorf("the other business after 00030: %+v", got)
		}
	})
}

// TestEventIDsUnique: an event's id is its public id (the webhook-id and
// Nats-Msg-Id consumers de-duplicate on), and the database refuses a
// second event with it, in another business too (migration 00066).
func TestEventIDsUnique(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a, b := createBusiness(t, db, "").BusinessID, createBusiness(t, db, "").BusinessID
		e := writeEvent(t, db, a, "x")
		insert := func(id, business string, seq int64) error {
			_, err := db.SQL().ExecContext(ctx, `INSERT INTO events (id, business_id, seq, type, created_at, data) VALUES ($1, $2, $3, $4, $5, $6)`,
				id, business, seq, e.Type, e.CreatedAt, string(e.Data))
			return err
		}
		for i, business := range []string{a, b} {
			if err := insert(e.ID, business, int64(900+i)); err == nil {
				t.Errorf("a second event %s in business %s was stored", e.ID, business)
			}
		}
		// The same row with an id of its own is stored: the id alone was refused.
		if err := insert(loyalty.NewID(), b, 900); err != nil {
			t.Errorf("an event with a new id: %v", err)
		}
	})
}
