package sqlstore_test

import (
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestRecordLoginCountsConcurrentFailures: MaxFailures wrong passwords
// sent at once all count, so the account ends locked; one count lost to
// a race would leave it open.
func TestRecordLoginCountsConcurrentFailures(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		for round := range 3 {
			var wg sync.WaitGroup
			errs := make(chan error, oauth.MaxFailures)
			start := make(chan struct{})
			for range oauth.MaxFailures {
				wg.Go(func() {
					<-start
					errs <- db.RecordLogin(ctx, "owner", b.OwnerID, false, now)
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			l, err := db.OwnerLogin(ctx, b.OwnerEmail)
			if err != nil {
				t.Fatal(err)
			}
			if want := now.Add(oauth.LockFor); !l.LockedUntil.Equal(want) {
				t.Fatalf("round %d: after %d concurrent failures locked until %v, want %v", round, oauth.MaxFailures, l.LockedUntil, want)
			}
			// The lock started the count again: the next round locks anew.
			now = now.Add(oauth.LockFor + time.Minute)
		}
	})
}
