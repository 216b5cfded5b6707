package sqlstore_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestImportLease: a started import is due; one worker claims it, its
// progress renews the lease, and once the lease ran out another worker
// takes it over: the first one's progress and finish then change nothing.
func TestImportLease(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		im := loyalty.Import{BusinessID: b.BusinessID, FileID: loyalty.NewID(), Kind: loyalty.ImportCustomers,
			Status: loyalty.ImportUploading, FileName: "people.csv"}
		if err := db.CreateImport(ctx, &im); err != nil {
			t.Fatal(err)
		}
		im.TotalRows = 3
		if err := db.ImportUploaded(ctx, im); err != nil {
			t.Fatal(err)
		}
		if _, err := db.StartImport(ctx, b.BusinessID, im.ID); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		if due, err := db.DueImports(ctx, now, 10); err != nil || !slices.Contains(due, im.ID) {
			t.Fatalf("a started import is not due: %v %v", due, err)
		}
		got, ok, err := db.ClaimImport(ctx, im.ID, "one", now, now.Add(time.Minute))
		if err != nil || !ok || got.Status != loyalty.ImportRunning {
			t.Fatalf("first claim: %v %v %+v", ok, err, got)
		}
		if _, ok, err := db.ClaimImport(ctx, im.ID, "two", now, now.Add(time.Minute)); err != nil || ok {
			t.Fatalf("a second claim took a leased import: %v %v", ok, err)
		}
		mark := func(claim string, row int64, until time.Time) error {
			return db.SettleImportRow(ctx, loyalty.ImportRowMark{BusinessID: b.BusinessID, ImportID: im.ID, Claim: claim,
				Row: row, LeaseUntil: until}, nil)
		}
		// Progress renews the lease: the import is not due when the
		// first lease would have run out.
		if err := mark("one", 1, now.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := mark("two", 1, now.Add(2*time.Minute)); !errors.Is(err, loyalty.ErrImportLeaseLost) {
			t.Fatalf("progress under another claim: %v", err)
		}
		later := now.Add(90 * time.Second)
		if _, ok, _ := db.ClaimImport(ctx, im.ID, "two", later, later.Add(time.Minute)); ok {
			t.Fatal("a claim took an import whose lease was renewed")
		}
		muchLater := now.Add(3 * time.Minute)
		if due, _ := db.DueImports(ctx, muchLater, 10); !slices.Contains(due, im.ID) {
			t.Fatalf("an import whose lease ran out is not due: %v", due)
		}
		if _, ok, err := db.ClaimImport(ctx, im.ID, "two", muchLater, muchLater.Add(time.Minute)); err != nil || !ok {
			t.Fatalf("takeover after the lease: %v %v", ok, err)
		}
		if err := mark("one", 2, muchLater.Add(time.Minute)); !errors.Is(err, loyalty.ErrImportLeaseLost) {
			t.Fatalf("the old claim's progress: %v", err)
		}
		if err := db.FinishImport(ctx, im.ID, "one"); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Import(ctx, b.BusinessID, im.ID); got.Status != loyalty.ImportRunning || got.Skipped != 1 {
			t.Fatalf("the old claim finished the import, or its progress counted: %+v", got)
		}
		if err := db.FinishImport(ctx, im.ID, "two"); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Import(ctx, b.BusinessID, im.ID); got.Status != loyalty.ImportFinished || got.FinishedAt == nil {
			t.Fatalf("not finished: %+v", got)
		}
		if due, _ := db.DueImports(ctx, muchLater.Add(time.Hour), 10); slices.Contains(due, im.ID) {
			t.Fatal("a finished import is due")
		}
	})
}

// TestJobLease: a job's lease has one holder, who renews it by taking it
// again; another holder takes it only once it ran out.
func TestJobLease(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		now := time.Now().UTC()
		take := func(holder string, at time.Time) bool {
			t.Helper()
			ok, err := db.TakeLease(ctx, "test-job", holder, at, at.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !take("a", now) {
			t.Fatal("a free lease was not taken")
		}
		if take("b", now.Add(30*time.Second)) {
			t.Fatal("another holder took a running lease")
		}
		if !take("a", now.Add(45*time.Second)) {
			t.Fatal("the holder could not renew its lease")
		}
		if take("b", now.Add(90*time.Second)) {
			t.Fatal("another holder took a renewed lease before it ran out")
		}
		if !take("b", now.Add(2*time.Minute)) {
			t.Fatal("a lease that ran out was not taken over")
		}
		if take("a", now.Add(2*time.Minute)) {
			t.Fatal("the old holder took back a lease it lost")
		}
	})
}
