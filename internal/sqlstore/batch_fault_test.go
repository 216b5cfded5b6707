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

// writerSite is a PostgreSQL store whose connections carry an
// application name of their own, so that its group writer's backend can
// be found, with a business and a customer.
type writerSite struct {
	db                     *sqlstore.DB
	app                    string
	businessID, customerID string
	reward                 func() // 10 points, the way of POST /transactions
}

// newWriterSite opens a writerSite; t is skipped where the writer keeps
// no connection of its own (exec mode, see keptPlans).
func newWriterSite(t *testing.T) writerSite {
	t.Helper()
	w := writerSite{app: "writer-" + loyalty.NewID()[:12]}
	w.db = openMigrated(t, keptPlans(t)+"&application_name="+w.app)
	b, err := w.db.BusinessWithRules(ctx, createBusiness(t, w.db, "").BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	svc := loyalty.TransactionService{Store: w.db, Customers: &loyalty.CustomerService{Store: w.db}}
	c := createCustomer(t, w.db, b.ID, loyalty.CustomerInput{Email: loyalty.Some(loyalty.NewID() + "@example.com")})
	w.businessID, w.customerID = b.ID, c.ID
	// A lone append, or the transactional path when its batch could not
	// be written.
	w.reward = func() {
		t.Helper()
		var in loyalty.TransactionInput
		in.Intent, in.Points = loyalty.Some(loyalty.IntentReward), loyalty.Some(int64(10))
		in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})
		if _, _, err := svc.Create(ctx, b, in, nil); err != nil {
			t.Fatalf("reward: %v", err)
		}
	}
	return w
}

// writers are the backends whose last statement was a batch's.
func (w writerSite) writers(t *testing.T) (pids []int) {
	t.Helper()
	rows, err := w.db.SQL().QueryContext(ctx, `SELECT pid FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'WITH v AS MATERIALIZED%'`, w.app)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestBatchWriterReconnects: the group writer's own connection
// (PostgreSQL, where its statement is prepared) is terminated by the
// server between batches; the next lone appends are still written, each
// once, and the writer connects again, so that its batches keep their
// prepared statement rather than falling back for good.
func TestBatchWriterReconnects(t *testing.T) {
	w := newWriterSite(t)
	w.reward()
	before := w.writers(t)
	if len(before) != 1 {
		t.Fatalf("backends of the group writer: %v, want one", before)
	}
	var ok bool
	if err := w.db.SQL().QueryRowContext(ctx, `SELECT pg_terminate_backend($1)`, before[0]).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", before[0], ok, err)
	}
	for range 3 {
		w.reward()
	}
	after := w.writers(t)
	if len(after) != 1 || after[0] == before[0] {
		t.Fatalf("backends of the group writer after the first was terminated: %v (was %v), want one new", after, before)
	}
	if bal, n := balanceOf(t, w.db, w.businessID, w.customerID); bal.Points != 40 || n != 4 {
		t.Fatalf("balance %d in %d entries, want 40 in 4", bal.Points, n)
	}
}
