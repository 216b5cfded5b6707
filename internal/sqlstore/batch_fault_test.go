package sqlstore_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestBatchLostConnectionWritesOnce: when the connection of a batch of
// lone appends is lost — after the batch committed, or before it was sent
// — the reward is written exactly once: a committed batch is found, not
// replayed; an unsent one goes the transactional way. Batches exist on
// PostgreSQL only (SQLite's lone append is one local transaction).
func TestBatchLostConnectionWritesOnce(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("batches of lone appends are PostgreSQL's; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	b, err := db.BusinessWithRules(ctx, biz.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	svc := loyalty.TransactionService{Store: db, Customers: &loyalty.CustomerService{Store: db}}
	for _, lost := range []struct {
		name      string
		committed bool
	}{{"after the commit", true}, {"before the statement", false}} {
		c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some(loyalty.NewID() + "@example.com")})
		faults := 0
		restore := sqlstore.SetBatchFault(func(committed bool) error {
			if committed != lost.committed || faults > 0 {
				return nil
			}
			faults++
			return errors.New("read tcp 127.0.0.1:5432: connection reset by peer")
		})
		var in loyalty.TransactionInput
		in.Intent, in.Points = loyalty.Some(loyalty.IntentReward), loyalty.Some(int64(10))
		in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})
		e, _, err := svc.Create(ctx, b, in, nil)
		restore()
		if err != nil || faults != 1 {
			t.Fatalf("%s: reward = %v (faults injected: %d)", lost.name, err, faults)
		}
		bal, n := balanceOf(t, db, b.ID, c.ID)
		if bal.Points != 10 || n != 1 || e.Balance.Points != 10 || e.ID <= 0 {
			t.Fatalf("%s: balance %d in %d entries, reply %d points as entry %d; want one entry of 10",
				lost.name, bal.Points, n, e.Balance.Points, e.ID)
		}
		var id int64
		if err := db.SQL().QueryRowContext(ctx, `SELECT id FROM transactions WHERE customer_id = $1`, c.ID).Scan(&id); err != nil || id != e.ID {
			t.Fatalf("%s: the ledger holds entry %d (%v), the reply named %d", lost.name, id, err, e.ID)
		}
	}
}
