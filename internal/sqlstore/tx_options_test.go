package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestWithTxOptions: a transaction given options is dated by their clock
// and writes their audit entry with its change, or not at all when the
// change is undone.
func TestWithTxOptions(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		real := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		db.Clock = func() time.Time { return real }
		ahead := 48 * time.Hour
		entry := func(target string) *loyalty.AuditEntry {
			return &loyalty.AuditEntry{BusinessID: b.BusinessID, ActorKind: "staff", ActorID: "s1", ActorEmail: "s1@shop.example",
				ActorRole: "owner", Action: loyalty.AuditProfileUpdated, Target: target}
		}
		err := db.WithTxOptions(ctx, loyalty.TxOptions{Offset: ahead, Audit: entry("kept")}, func(tx loyalty.Tx) error {
			if got := tx.Now(); !got.Equal(real.Add(ahead)) {
				t.Errorf("tx.Now() = %v, want the offset clock's %v", got, real.Add(ahead))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sentinel := loyalty.Errorf(loyalty.EForbidden, "stop")
		if err := db.WithTxOptions(ctx, loyalty.TxOptions{Audit: entry("undone")}, func(loyalty.Tx) error { return sentinel }); err != sentinel {
			t.Fatalf("WithTxOptions returned %v, want fn's error", err)
		}
		list, err := db.AuditEntries(ctx, b.BusinessID, loyalty.AuditFilter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Target != "kept" || !list[0].CreatedAt.Equal(real.Add(ahead)) {
			t.Errorf("audit log = %+v, want only the committed change's entry, dated by the offset clock", list)
		}
	})
}

// TestClockedBy: the store dates its transactions by its own clock; a
// view of it on a sandbox business's clock (ClockedBy) reads and dates
// them offset ahead, and a transaction's own offset wins over the view's.
func TestClockedBy(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		real := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		setClock(db, real)
		ahead := 48 * time.Hour
		view := loyalty.ClockedStore(db, ahead)
		if view == db {
			t.Fatal("ClockedStore returned the store itself, want a view on the offset clock")
		}
		txNow := func(st *sqlstore.DB, opts loyalty.TxOptions) time.Time {
			t.Helper()
			var at time.Time
			if err := st.WithTxOptions(ctx, opts, func(tx loyalty.Tx) error { at = tx.Now(); return nil }); err != nil {
				t.Fatal(err)
			}
			return at
		}
		for _, c := range []struct {
			name          string
			now, tx, want time.Time
		}{
			{name: "store", now: db.Now(), tx: txNow(db, loyalty.TxOptions{}), want: real},
			{name: "view", now: view.Now(), tx: txNow(view, loyalty.TxOptions{}), want: real.Add(ahead)},
			{name: "view back on the real clock", now: loyalty.ClockedStore(view, 0).Now(), tx: txNow(loyalty.ClockedStore(view, 0), loyalty.TxOptions{}), want: real},
		} {
			if !c.now.Equal(c.want) || !c.tx.Equal(c.want) {
				t.Errorf("%s: Now() = %v and tx.Now() = %v, want %v", c.name, c.now, c.tx, c.want)
			}
		}
		if got := txNow(view, loyalty.TxOptions{Offset: time.Hour}); !got.Equal(real.Add(time.Hour)) {
			t.Errorf("view's tx.Now() with its own offset = %v, want %v", got, real.Add(time.Hour))
		}
	})
}
