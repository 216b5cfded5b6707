package sqlstore_test

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestBalanceGuardOnEveryWritePath sends the same refusals through every
// path that moves a balance — Append inside a transaction, and AppendAlone
// (SQLite's lone statement, PostgreSQL's batch) — and checks each refuses
// for the same reason and writes nothing.
func TestBalanceGuardOnEveryWritePath(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		other := createBusiness(t, db, "")
		b, err := db.Business(ctx, biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := db.Business(ctx, other.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		branches := loyalty.BranchService{Store: db}
		own, err := branches.Create(ctx, b, loyalty.BranchInput{Name: loyalty.Some("Own")})
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := branches.Create(ctx, ob, loyalty.BranchInput{Name: loyalty.Some("Foreign")})
		if err != nil {
			t.Fatal(err)
		}
		customer := func(email, state string) string {
			c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some(email)})
			seed := loyalty.Transaction{BusinessID: b.ID, CustomerID: c.ID, Intent: loyalty.IntentAdjust, TypeCode: 7,
				Points: 10, Giftcard: 500, CreatedAt: db.Now()}
			if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.Append(ctx, &seed) }); err != nil {
				t.Fatal(err)
			}
			if state != "" {
				if _, err := db.SQL().ExecContext(ctx, `UPDATE customers SET `+state+` WHERE user_id = $1`, c.ID); err != nil {
					t.Fatal(err)
				}
			}
			return c.ID
		}
		active := customer("active@example.com", "")
		disabled := customer("disabled@example.com", "enabled = FALSE")
		referred := customer("referred@example.com", "referral_pending = TRUE")
		deleted := customer("deleted@example.com", "deleted_at = created_at")

		cases := []struct {
			name     string
			customer string
			branch   string
			points   int64
			giftcard loyalty.Money
			overdraw string          // "points" or "giftcard": spend one more than the balance holds
			want     loyalty.Refusal // of Append; "" when it writes
			alone    bool            // AppendAlone writes it
		}{
			{"a plain reward", active, "", 5, 0, "", "", true},
			{"at an own branch", active, own.ID, 5, 0, "", "", true},
			{"overdraw of points", active, "", 0, 0, "points", loyalty.RefusedPoints, false},
			{"overdraw of gift-card money", active, "", 0, 0, "giftcard", loyalty.RefusedGiftcard, false},
			{"a deactivated customer", disabled, "", 5, 0, "", loyalty.RefusedDisabled, false},
			{"another business's branch", active, foreign.ID, 5, 0, "", loyalty.RefusedBranch, false},
			{"a branch that does not exist", active, loyalty.NewID(), 5, 0, "", loyalty.RefusedBranch, false},
			{"a customer that does not exist", loyalty.NewID(), "", 5, 0, "", loyalty.RefusedCustomer, false},
			{"a deleted customer", deleted, "", 5, 0, "", loyalty.RefusedCustomer, false},
			{"a pending referral", referred, "", 5, 0, "", "", false},
		}
		for _, c := range cases {
			bal, _ := balanceOf(t, db, b.ID, c.customer)
			switch c.overdraw {
			case "points":
				c.points = -(bal.Points + 1)
			case "giftcard":
				c.giftcard = -(bal.Giftcard + 1)
			}
			entry := func() loyalty.Transaction {
				return loyalty.Transaction{BusinessID: b.ID, CustomerID: c.customer, BranchID: c.branch, Intent: loyalty.IntentReward,
					TypeCode: loyalty.TypeCodeReward, Points: c.points, Giftcard: c.giftcard, CreatedAt: db.Now()}
			}
			before, n := balanceOf(t, db, b.ID, c.customer)

			e := entry()
			done, err := db.AppendAlone(ctx, &e)
			if err != nil || done != c.alone {
				t.Errorf("%s: AppendAlone = %v, %v; want %v", c.name, done, err, c.alone)
			}
			if after, m := balanceOf(t, db, b.ID, c.customer); !done && (after != before || m != n) {
				t.Errorf("%s: AppendAlone refused but moved the balance %v -> %v, entries %d -> %d", c.name, before, after, n, m)
			}
			before, n = balanceOf(t, db, b.ID, c.customer)

			e = entry()
			err = db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.Append(ctx, &e) })
			if got := loyalty.RefusalOf(err); got != c.want || (c.want == "" && err != nil) {
				t.Errorf("%s: Append = %v (refusal %q), want refusal %q", c.name, err, got, c.want)
			}
			after, m := balanceOf(t, db, b.ID, c.customer)
			switch {
			case c.want != "" && (after != before || m != n):
				t.Errorf("%s: Append refused but moved the balance %v -> %v, entries %d -> %d", c.name, before, after, n, m)
			case c.want == "" && (after.Points != before.Points+c.points || m != n+1 || e.Balance != after):
				t.Errorf("%s: Append left %v with %d entries (reported %v), want %d more points in one more entry",
					c.name, after, m, e.Balance, c.points)
			}
		}
	})
}

// balanceOf reads a customer's balance and ledger entry count (zero for
// nobody).
func balanceOf(tb testing.TB, db *sqlstore.DB, businessID, customerID string) (loyalty.Balance, int) {
	tb.Helper()
	var bal loyalty.Balance
	var n int
	err := db.SQL().QueryRowContext(ctx, `SELECT COALESCE(MAX(c.points), 0), COALESCE(MAX(c.giftcard), 0),
		(SELECT COUNT(*) FROM transactions t WHERE t.business_id = $1 AND t.customer_id = $2)
		FROM customers c WHERE c.business_id = $1 AND c.user_id = $2`, businessID, customerID).Scan(&bal.Points, &bal.Giftcard, &n)
	if err != nil {
		tb.Fatal(err)
	}
	return bal, n
}
