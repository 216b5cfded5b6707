package sqlstore_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// ledgerCounts is the number of a business's entries by type code,
// counted over the ledger itself.
func ledgerCounts(tb testing.TB, db *sqlstore.DB, businessID string) map[int]int {
	tb.Helper()
	rows, err := db.SQL().QueryContext(ctx, `SELECT type_code, COUNT(*) FROM transactions WHERE business_id = $1 GROUP BY type_code`, businessID)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[int]int{}
	for rows.Next() {
		var code, n int
		if err := rows.Scan(&code, &n); err != nil {
			tb.Fatal(err)
		}
		out[code] = n
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// ledgerTotal is the total of a one-entry page of the business's ledger
// under filters, as GET /transactions gives it in meta.total.
func ledgerTotal(tb testing.TB, db *sqlstore.DB, businessID string, filters ...loyalty.Filter) int {
	tb.Helper()
	_, total, err := db.Transactions(ctx, businessID, loyalty.ListQuery{Filters: filters, Page: 1, PerPage: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

// typeFilter is transaction_type=op|codes.
func typeFilter(op string, codes ...int) loyalty.Filter {
	f := loyalty.Filter{Field: "transaction_type", Op: op}
	for _, c := range codes {
		f.Values = append(f.Values, int64(c))
	}
	return f
}

// checkLedgerTotals fails the test unless the ledger list's totals (whole,
// and filtered by type code: eq, in and not_in, of every code the ledger
// has, of rewards and redemptions, and of a code it has not) are the
// numbers of entries the ledger holds. It returns those numbers.
func checkLedgerTotals(tb testing.TB, db *sqlstore.DB, businessID string) map[int]int {
	tb.Helper()
	real := ledgerCounts(tb, db, businessID)
	all := 0
	for _, n := range real {
		all += n
	}
	check := func(want int, filters ...loyalty.Filter) {
		tb.Helper()
		if got := ledgerTotal(tb, db, businessID, filters...); got != want {
			tb.Errorf("business %s: the ledger's total under %v is %d; it holds %d such entries", businessID, filters, got, want)
		}
	}
	check(all)
	r, d := loyalty.TypeCodeReward, loyalty.TypeCodeRedeem
	check(real[r], typeFilter(loyalty.OpEq, r))
	check(real[r]+real[d], typeFilter(loyalty.OpIn, r, d))
	check(all-real[r], typeFilter(loyalty.OpNotIn, r))
	check(all-real[r]-real[d], typeFilter(loyalty.OpNotIn, r, d))
	check(0, typeFilter(loyalty.OpEq, 999))
	check(all, typeFilter(loyalty.OpNotIn, 999))
	for _, code := range slices.Sorted(maps.Keys(real)) {
		check(real[code], typeFilter(loyalty.OpEq, code))
		check(all-real[code], typeFilter(loyalty.OpNotIn, code))
	}
	return real
}

// ledgerRun writes entries of many kinds into a business: rewards
// through the group writer and through a transaction of their own,
// redemptions, returns, adjustments, a cancellation and, with points
// expiring, the scheduler's expiries.
type ledgerRun struct {
	t         *testing.T
	db        *sqlstore.DB
	b         loyalty.Business // with its rules: everyday rewards take the group writer
	bare      loyalty.Business // without: every change in a transaction of its own
	svc       *loyalty.TransactionService
	customers []string
	now       time.Time
	batched   int
}

// newLedgerRun creates a business whose points expire after 3 days, with
// n customers.
func newLedgerRun(t *testing.T, db *sqlstore.DB, n int) *ledgerRun {
	t.Helper()
	r := &ledgerRun{t: t, db: db, now: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)}
	setClock(db, r.now)
	id := createBusiness(t, db, "").BusinessID
	var baskets int
	r.svc = &loyalty.TransactionService{Store: countingStore{DB: db, batched: &r.batched, baskets: &baskets},
		Customers: &loyalty.CustomerService{Store: db}}
	b, err := db.Business(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.UpdateRules(ctx, b, decodeInput[loyalty.RulesInput](t, `{"points_expire_after": {"days": 3}}`)); err != nil {
		t.Fatal(err)
	}
	if r.b, err = db.BusinessWithRules(ctx, id); err != nil {
		t.Fatal(err)
	}
	if r.bare, err = db.Business(ctx, id); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r.customers = append(r.customers, createCustomer(t, db, id, loyalty.CustomerInput{
			Email: loyalty.Some(fmt.Sprintf("c%d-%s@counts.example", i, id[24:]))}).ID)
	}
	return r
}

// do applies one change for a customer, on the group writer's road or
// (alone) in a transaction of its own, and returns its entry.
func (r *ledgerRun) do(customer string, alone bool, body string) loyalty.Transaction {
	r.t.Helper()
	r.now = r.now.Add(time.Minute)
	setClock(r.db, r.now)
	in := decodeInput[loyalty.TransactionInput](r.t, body)
	in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(customer)})
	b := r.b
	if alone {
		b = r.bare
	}
	e, _, err := r.svc.Create(ctx, b, in, nil)
	if err != nil {
		r.t.Fatalf("%s: %v", body, err)
	}
	return e
}

// mix writes rounds of every kind of change for each customer.
func (r *ledgerRun) mix(rounds int) {
	r.t.Helper()
	for i := range rounds {
		for _, c := range r.customers {
			r.do(c, false, `{"intent": "reward", "amount": 20}`)
			reward := r.do(c, true, `{"intent": "reward", "points": 30}`)
			r.do(c, false, `{"intent": "redeem", "points": 5}`)
			r.do(c, true, `{"intent": "return", "amount": 3}`)
			r.do(c, true, `{"intent": "adjust_points_balance", "points": 2}`)
			if i%2 == 0 {
				if _, err := r.svc.Cancel(ctx, r.bare, reward.ID); err != nil {
					r.t.Fatal(err)
				}
			}
		}
	}
}

// expire moves the clock past the points' life and settles what is due.
func (r *ledgerRun) expire() {
	r.t.Helper()
	r.now = r.now.Add(5 * 24 * time.Hour)
	setClock(r.db, r.now)
	if _, err := loyalty.SettleDue(ctx, r.db, r.b.ID, r.now, loyalty.SettleOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// TestLedgerTotals: the totals of a business's ledger list, read from the
// entry counts when it is whole or filtered by type code alone (eq, in,
// not_in), are the numbers of entries the ledger holds after rewards
// through the group writer and through a transaction of their own,
// redemptions, returns, adjustments, cancellations and the scheduler's
// expiries, for each of two businesses that never see each other's; an
// entry a statement inserts, moves to another type or deletes (no path
// does the last two) is counted as well.
func TestLedgerTotals(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		one, two := newLedgerRun(t, db, 3), newLedgerRun(t, db, 2)
		one.mix(3)
		two.mix(1)
		one.expire()
		if one.batched == 0 {
			t.Fatal("no change went through the group writer")
		}
		got := checkLedgerTotals(t, db, one.b.ID)
		for _, code := range []int{loyalty.TypeCodeReward, loyalty.TypeCodeRedeem, loyalty.TypeCodeReturn,
			loyalty.TypeCodeAdjustUp, loyalty.TypeCodeCancellation, loyalty.TypeCodeExpiry} {
			if got[code] == 0 {
				t.Errorf("the ledger has no entry of type %d: %v", code, got)
			}
		}
		other := checkLedgerTotals(t, db, two.b.ID)
		if maps.Equal(got, other) {
			t.Fatalf("both businesses have the same ledger %v", got)
		}

		// Entries written by plain SQL, as the points scheduler's tests
		// and the load generator do, then moved and deleted.
		for range 2 {
			e := loyalty.NewLotEntry(two.b.ID, two.customers[0], loyalty.IntentActivation, 0, db.Now())
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, intent, type_code, name, created_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, two.b.ID, two.customers[0], e.Intent, e.TypeCode, e.Name, e.CreatedAt.UTC()); err != nil {
				t.Fatal(err)
			}
		}
		checkLedgerTotals(t, db, two.b.ID)
		if _, err := db.SQL().ExecContext(ctx, `UPDATE transactions SET type_code = $2 WHERE business_id = $1 AND type_code = $3`,
			two.b.ID, 4242, loyalty.TypeCodeActivation); err != nil {
			t.Fatal(err)
		}
		if n := checkLedgerTotals(t, db, two.b.ID); n[4242] != 2 || n[loyalty.TypeCodeActivation] != 0 {
			t.Fatalf("after the update: %v", n)
		}
		if _, err := db.SQL().ExecContext(ctx, `DELETE FROM transactions WHERE business_id = $1 AND type_code = 4242`, two.b.ID); err != nil {
			t.Fatal(err)
		}
		if n := checkLedgerTotals(t, db, two.b.ID); n[4242] != 0 {
			t.Fatalf("after the delete: %v", n)
		}
		if !maps.Equal(checkLedgerTotals(t, db, two.b.ID), other) {
			t.Fatalf("the second business's ledger changed")
		}
		checkLedgerTotals(t, db, one.b.ID)
	})
}

// backfillStatement is the statement of 00070 (PostgreSQL) that sets the
// count of the entries written before its triggers (shard -1).
func backfillStatement(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("migrations", "postgres", "00070_transaction_counts.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n-- backfill\n")
	stmt, _, ok2 := strings.Cut(after, ";\n")
	if !ok || !ok2 {
		tb.Fatal("00070 marks no backfill statement")
	}
	return stmt
}

// countRows reads transaction_counts whole, as "business type shard" -> n.
func countRows(tb testing.TB, db *sqlstore.DB) map[string]int {
	tb.Helper()
	rows, err := db.SQL().QueryContext(ctx, `SELECT business_id, type_code, shard, n FROM transaction_counts`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var biz string
		var code, shard, n int
		if err := rows.Scan(&biz, &code, &shard, &n); err != nil {
			tb.Fatal(err)
		}
		out[fmt.Sprint(biz, " ", code, " ", shard)] = n
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// madeBy70 counts what 00070 makes that is still there: its table, and on
// PostgreSQL its functions and triggers, in the test's schema.
func madeBy70(tb testing.TB, db *sqlstore.DB) int {
	tb.Helper()
	q := `SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'transaction_counts%'`
	if db.Dialect() == sqlstore.Postgres {
		q = `SELECT (SELECT COUNT(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
				WHERE s.nspname = current_schema() AND c.relname = 'transaction_counts')
			+ (SELECT COUNT(*) FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
				WHERE s.nspname = current_schema() AND p.proname LIKE 'transaction_counts%')
			+ (SELECT COUNT(*) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace s ON s.oid = c.relnamespace
				WHERE s.nspname = current_schema() AND g.tgname LIKE 'transaction_counts%')`
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, q).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestTransactionCountsMigration: a ledger of two businesses, partly
// written before 00070 (down to 69, which drops all 00070 made), gets
// exact totals from it. On PostgreSQL, its backfill run again changes
// nothing, also after more entries; and entries written between the
// triggers and the backfill (the backfill's rows removed, as they were
// before it ran, then more entries written) are counted once when it
// runs.
func TestTransactionCountsMigration(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		if made := madeBy70(t, db); made == 0 {
			t.Fatal("00070 made nothing")
		}
		one, two := newLedgerRun(t, db, 2), newLedgerRun(t, db, 2)
		one.mix(1)
		if err := db.MigrateDownTo(ctx, 69); err != nil {
			t.Fatal(err)
		}
		if made := madeBy70(t, db); made != 0 {
			t.Fatalf("down to 69, %d of what 00070 made are left", made)
		}
		one.mix(1)
		two.mix(2)
		if err := db.MigrateTo(ctx, 70); err != nil {
			t.Fatal(err)
		}
		checkLedgerTotals(t, db, one.b.ID)
		checkLedgerTotals(t, db, two.b.ID)
		one.mix(1)
		checkLedgerTotals(t, db, one.b.ID)
		checkLedgerTotals(t, db, two.b.ID)
		if db.Dialect() != sqlstore.Postgres {
			return
		}

		backfill := backfillStatement(t)
		before := countRows(t, db)
		if _, err := db.SQL().ExecContext(ctx, backfill); err != nil {
			t.Fatal(err)
		}
		if after := countRows(t, db); !maps.Equal(after, before) {
			t.Fatalf("the backfill run again changed the counts:\nbefore %v\nafter  %v", before, after)
		}

		// As just after the triggers were made: no shard -1 yet, and
		// entries written since counted by the triggers.
		if _, err := db.SQL().ExecContext(ctx, `DELETE FROM transaction_counts WHERE shard = -1`); err != nil {
			t.Fatal(err)
		}
		two.mix(1)
		if all := ledgerCounts(t, db, two.b.ID); ledgerTotal(t, db, two.b.ID) == sum(all) {
			t.Fatal("without its backfill, the count has every entry: the test proves nothing")
		}
		if _, err := db.SQL().ExecContext(ctx, backfill); err != nil {
			t.Fatal(err)
		}
		checkLedgerTotals(t, db, one.b.ID)
		checkLedgerTotals(t, db, two.b.ID)
		again := countRows(t, db)
		if _, err := db.SQL().ExecContext(ctx, backfill); err != nil {
			t.Fatal(err)
		}
		if after := countRows(t, db); !maps.Equal(after, again) {
			t.Fatalf("the backfill run a third time changed the counts")
		}
	})
}

// sum adds a map's values.
func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
