package sqlstore_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestConcurrentLoneAppendsAreExact sends many concurrent AppendAlone
// calls — rewards and spends, several per customer, some of the spends
// more than the balance can hold by then — through the shared batches
// (SQLite's one transaction per batch, PostgreSQL's one statement) and
// checks that what each caller was told is what the ledger holds: every
// entry reported written is there once, every entry reported refused is
// not, and each balance equals its starting points plus its written
// entries and never went negative.
func TestConcurrentLoneAppendsAreExact(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		const customers, callsEach, start = 8, 40, 10
		ids := make([]string, customers)
		for i := range ids {
			c := createCustomer(t, db, biz.BusinessID, loyalty.CustomerInput{Email: loyalty.Some(loyalty.NewID() + "@example.com")})
			seed := loyalty.Transaction{BusinessID: biz.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentAdjust, TypeCode: 7,
				Points: start, CreatedAt: db.Now()}
			if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.Append(ctx, &seed) }); err != nil {
				t.Fatal(err)
			}
			ids[i] = c.ID
		}
		var (
			mu      sync.Mutex
			written = map[string]int64{} // customer → sum of the points of entries reported written
			entries = map[int64]bool{}
			refused atomic.Int64
			wg      sync.WaitGroup
		)
		for i := range customers * callsEach {
			wg.Add(1)
			go func() {
				defer wg.Done()
				customer := ids[i%customers]
				points := int64(1)
				if i%3 == 0 {
					points = -4 // a spend: refused once the balance cannot cover it
				}
				e := loyalty.Transaction{BusinessID: biz.BusinessID, CustomerID: customer, Intent: loyalty.IntentReward,
					TypeCode: 4, Points: points, CreatedAt: db.Now()}
				ok, err := db.AppendAlone(ctx, &e)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					refused.Add(1)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if entries[e.ID] {
					t.Errorf("entry id %d reported twice", e.ID)
				}
				entries[e.ID] = true
				written[customer] += points
				if e.Balance.Points < 0 {
					t.Errorf("a written entry left the balance at %d", e.Balance.Points)
				}
			}()
		}
		wg.Wait()
		if refused.Load() == 0 {
			t.Fatal("no spend was refused: the test did not reach an empty balance")
		}
		total := 0
		for _, id := range ids {
			bal, n := balanceOf(t, db, biz.BusinessID, id)
			if want := start + written[id]; bal.Points != want {
				t.Errorf("customer %s: balance %d, want %d (start %d + entries reported written)", id, bal.Points, want, start)
			}
			var sum int64
			if err := db.SQL().QueryRowContext(ctx, `SELECT COALESCE(SUM(points), 0) FROM transactions WHERE business_id = $1 AND customer_id = $2`,
				biz.BusinessID, id).Scan(&sum); err != nil {
				t.Fatal(err)
			}
			if sum != bal.Points {
				t.Errorf("customer %s: balance %d, ledger sums to %d", id, bal.Points, sum)
			}
			total += n - 1 // less the seed
		}
		if total != len(entries) {
			t.Errorf("ledger holds %d lone entries, %d were reported written", total, len(entries))
		}
	})
}
