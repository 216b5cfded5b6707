package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
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
		list, err := db.AuditEntries(ctx, b.BusinessID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Target != "kept" || !list[0].CreatedAt.Equal(real.Add(ahead)) {
			t.Errorf("audit log = %+v, want only the committed change's entry, dated by the offset clock", list)
		}
	})
}

// TestStoreReadsNoContext: a store opened without RequestTxOptions dates
// its transactions by its own clock whatever the context carries.
func TestStoreReadsNoContext(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			db, err := sqlstore.Open(ctx, testenv.DSN(t, engine))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			real := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
			db.Clock = func() time.Time { return real }
			err = db.WithTx(loyalty.WithClock(ctx, 48*time.Hour), func(tx loyalty.Tx) error {
				if got := tx.Now(); !got.Equal(real) {
					t.Errorf("tx.Now() = %v, want the store's own %v", got, real)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
