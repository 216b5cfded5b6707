package loyalty_test

import (
	"encoding/json"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// txInput decodes a POST /transactions body the way the HTTP layer does.
func txInput(tb testing.TB, body string) loyalty.TransactionInput {
	tb.Helper()
	var in loyalty.TransactionInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	return in
}

func (w *world) ledger() *loyalty.TransactionService {
	return &loyalty.TransactionService{Store: w.db, Customers: w.svc}
}

// do performs one transaction and fails the test on error.
func (w *world) do(tb testing.TB, b loyalty.Business, body string) loyalty.Transaction {
	tb.Helper()
	t, _, err := w.ledger().Create(w.ctx, b, txInput(tb, body), nil)
	if err != nil {
		tb.Fatalf("transaction %s: %v", body, err)
	}
	return t
}

// ledgerSums adds up every entry of a customer straight from the table.
func (w *world) ledgerSums(tb testing.TB, b loyalty.Business, customerID string) (points, giftcard int64, n int) {
	tb.Helper()
	err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COALESCE(SUM(points), 0), COALESCE(SUM(giftcard), 0), COUNT(*)
		FROM transactions WHERE business_id = $1 AND customer_id = $2`, b.ID, customerID).Scan(&points, &giftcard, &n)
	if err != nil {
		tb.Fatalf("ledger sums: %v", err)
	}
	return points, giftcard, n
}

// TestConcurrentRedeemsNeverOverspend: 64 concurrent redemptions of 1 point
// against a balance of 50 succeed exactly 50 times.
func TestConcurrentRedeemsNeverOverspend(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"race@example.com"}`)
		w.do(t, b, `{"intent":"reward","points":50,"customer":{"id":"`+c.ID+`"}}`)

		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 64; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := w.ledger().Create(w.ctx, b, txInput(t, `{"intent":"redeem","points":1,"customer":{"id":"`+c.ID+`"}}`), nil)
				switch loyalty.ErrorCode(err) {
				case "":
					ok.Add(1)
				case loyalty.EInvalid:
					refused.Add(1)
				default:
					t.Errorf("redeem: unexpected error %v", err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 50 || refused.Load() != 14 {
			t.Fatalf("redeems: %d succeeded, %d refused; want 50 and 14", ok.Load(), refused.Load())
		}
		got := w.get(t, b, c.ID)
		points, _, n := w.ledgerSums(t, b, c.ID)
		if got.Balance.Points != 0 || points != 0 || n != 51 {
			t.Fatalf("balance %d, ledger sum %d over %d entries; want 0, 0, 51", got.Balance.Points, points, n)
		}
	})
}

// TestBalanceEqualsLedgerAfterRandomIntents runs a seeded random mix of
// intents, some refused, and checks after each step that the balance never
// goes negative and always equals the sum of the customer's entries.
func TestBalanceEqualsLedgerAfterRandomIntents(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"mix@example.com"}`)
		rng := rand.New(rand.NewPCG(7, 11))
		ref := `"customer":{"id":"` + c.ID + `"}`
		var entries []int64
		accepted, refused := 0, 0
		for i := 0; i < 120; i++ {
			var body string
			switch rng.IntN(7) {
			case 0:
				body = `{"intent":"reward","amount":` + money(rng.IntN(20000)+1) + `,` + ref + `}`
			case 1:
				body = `{"intent":"reward","points":` + itoa(rng.IntN(300)+1) + `,` + ref + `}`
			case 2:
				body = `{"intent":"redeem","points":` + itoa(rng.IntN(3000)+1) + `,` + ref + `}`
			case 3:
				body = `{"intent":"adjust_points_balance","points":` + itoa(rng.IntN(200)-100) + `,` + ref + `}`
			case 4:
				body = `{"intent":"reward_store_credit","amount":` + money(rng.IntN(5000)+1) + `,` + ref + `}`
			case 5:
				body = `{"intent":"giftcard_payment","amount":` + money(rng.IntN(15000)+1) + `,` + ref + `}`
			case 6:
				body = `{"intent":"return","amount":` + money(rng.IntN(10000)+1) + `,` + ref + `}`
			}
			var err error
			if rng.IntN(6) == 0 && len(entries) > 0 {
				_, err = w.ledger().Cancel(w.ctx, b, entries[rng.IntN(len(entries))])
			} else {
				var e loyalty.Transaction
				e, _, err = w.ledger().Create(w.ctx, b, txInput(t, body), nil)
				if err == nil {
					entries = append(entries, e.ID)
				}
			}
			switch loyalty.ErrorCode(err) {
			case "":
				accepted++
			case loyalty.EInvalid:
				refused++
			default:
				t.Fatalf("step %d %s: %v", i, body, err)
			}
			got := w.get(t, b, c.ID)
			points, giftcard, _ := w.ledgerSums(t, b, c.ID)
			if got.Balance.Points < 0 || got.Balance.Giftcard < 0 {
				t.Fatalf("step %d: negative balance %+v", i, got.Balance)
			}
			if got.Balance.Points != points || int64(got.Balance.Giftcard) != giftcard {
				t.Fatalf("step %d: balance %+v, ledger sums points %d giftcard %d", i, got.Balance, points, giftcard)
			}
		}
		if accepted < 40 || refused < 5 {
			t.Fatalf("the mix was not mixed: %d accepted, %d refused", accepted, refused)
		}
	})
}

// TestRedeemBeyondBalanceChangesNothing: a refused redemption writes no
// entry and leaves the balance.
func TestRedeemBeyondBalanceChangesNothing(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"poor@example.com"}`)
		w.do(t, b, `{"intent":"reward","points":10,"customer":{"id":"`+c.ID+`"}}`)
		_, _, err := w.ledger().Create(w.ctx, b, txInput(t, `{"intent":"redeem","points":11,"customer":{"id":"`+c.ID+`"}}`), nil)
		if loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("redeem 11 of 10: got %v, want EInvalid", err)
		}
		points, _, n := w.ledgerSums(t, b, c.ID)
		if got := w.get(t, b, c.ID); got.Balance.Points != 10 || points != 10 || n != 1 {
			t.Fatalf("after refused redeem: balance %d, ledger %d in %d entries", got.Balance.Points, points, n)
		}
	})
}

// TestEarningRules: points of a spend follow the ratio and milestone,
// rounding up only when asked, and welcome points come with a new customer.
func TestEarningRules(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		var in loyalty.RulesInput
		if err := json.Unmarshal([]byte(`{"earning":{"reward_ratio":3,"reward_milestone_amount":5.00,"welcome_points":7}}`), &in); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ledger().UpdateRules(w.ctx, b, in); err != nil {
			t.Fatalf("UpdateRules: %v", err)
		}
		c := w.create(t, b, `{"email":"earn@example.com"}`)
		if c.Balance.Points != 7 {
			t.Fatalf("welcome points: balance %d, want 7", c.Balance.Points)
		}
		// 12.99 is 2 whole milestones of 5.00: 6 points.
		if e := w.do(t, b, `{"intent":"reward","amount":12.99,"customer":{"id":"`+c.ID+`"}}`); e.Points != 6 || e.Balance.Points != 13 {
			t.Fatalf("reward 12.99: %d points, balance %d; want 6 and 13", e.Points, e.Balance.Points)
		}
		if err := json.Unmarshal([]byte(`{"earning":{"round_up_points":true}}`), &in); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ledger().UpdateRules(w.ctx, b, in); err != nil {
			t.Fatalf("UpdateRules: %v", err)
		}
		// 12.99 × 3 / 5.00 = 7.794, rounded up: 8.
		if e := w.do(t, b, `{"intent":"reward","amount":12.99,"customer":{"id":"`+c.ID+`"}}`); e.Points != 8 {
			t.Fatalf("rounded-up reward: %d points, want 8", e.Points)
		}
	})
}

// TestCancelWritesReversingEntryOnce: a cancelled reward stays in the
// ledger, its reversal takes the points back, and a second cancel is refused.
func TestCancelWritesReversingEntryOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"undo@example.com"}`)
		r := w.do(t, b, `{"intent":"reward","points":40,"customer":{"id":"`+c.ID+`"}}`)
		rev, err := w.ledger().Cancel(w.ctx, b, r.ID)
		if err != nil {
			t.Fatalf("cancel: %v", err)
		}
		if rev.Points != -40 || rev.ReversesID != r.ID || rev.Balance.Points != 0 {
			t.Fatalf("reversal %+v", rev)
		}
		if _, err := w.ledger().Cancel(w.ctx, b, r.ID); loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("second cancel: %v, want EInvalid", err)
		}
		if _, _, n := w.ledgerSums(t, b, c.ID); n != 2 {
			t.Fatalf("%d entries, want the reward and its reversal", n)
		}
	})
}

// money writes cents as a JSON amount.
func money(cents int) string { return loyalty.Money(cents).String() }

// TestIdempotencyKeyActsOnceUnderConcurrency: 16 concurrent requests with
// one Idempotency-Key write one entry, and every one gets its reply.
func TestIdempotencyKeyActsOnceUnderConcurrency(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"retry@example.com"}`)
		body := `{"intent":"reward","points":9,"customer":{"id":"` + c.ID + `"}}`
		idem := func() *loyalty.Idempotency {
			return &loyalty.Idempotency{Key: "order-42", Hash: []byte("same body")}
		}
		var wg sync.WaitGroup
		replies := make([]string, 16)
		for i := range replies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e, prev, err := w.ledger().Create(w.ctx, b, txInput(t, body), idem())
				switch {
				case err != nil:
					t.Errorf("request %d: %v", i, err)
				case prev != nil:
					replies[i] = itoa(int(prev.Transaction.ID))
				default:
					replies[i] = itoa(int(e.ID))
				}
			}()
		}
		wg.Wait()
		for _, r := range replies {
			if r == "" || r != replies[0] {
				t.Fatalf("replies differ: %v", replies)
			}
		}
		if points, _, n := w.ledgerSums(t, b, c.ID); points != 9 || n != 1 {
			t.Fatalf("%d entries, %d points; want one reward of 9", n, points)
		}
		other := &loyalty.Idempotency{Key: "order-42", Hash: []byte("another body")}
		if _, _, err := w.ledger().Create(w.ctx, b, txInput(t, body), other); loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("same key, other body: %v, want EInvalid", err)
		}
	})
}

// TestConcurrentRewardsEachWrittenOnce: many rewards at once over a few
// customers (on PostgreSQL they are written in shared batches) each either
// land once with the balance they report, or are refused for their own
// reason without touching anyone else's; a pending referral is paid once.
func TestConcurrentRewardsEachWrittenOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		plain, other := w.business(t, "US"), w.business(t, "US")
		branches := &loyalty.BranchService{Store: w.db}
		own, err := branches.Create(w.ctx, plain, loyalty.BranchInput{Name: loyalty.Some("Downtown")})
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := branches.Create(w.ctx, other, loyalty.BranchInput{Name: loyalty.Some("Elsewhere")})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 6 {
			ids = append(ids, w.create(t, plain, `{"email":"c`+itoa(i)+`@example.com"}`).ID)
		}
		prog := w.referralProgram(t, plain, true)
		referee := w.create(t, plain, referralBody("referee@example.com", prog, ids[0])).ID
		off := w.create(t, plain, `{"email":"off@example.com"}`).ID
		if _, err := w.svc.Update(w.ctx, plain, off, input(t, `{"enabled":false}`)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, referee, off)
		// The business as the API reads it for a reward, rules included.
		b, err := w.db.BusinessWithRules(w.ctx, plain.ID)
		if err != nil {
			t.Fatal(err)
		}

		type outcome struct {
			customer string
			e        loyalty.Transaction
			err      error
			branch   string
		}
		const n = 240
		out := make([]outcome, n)
		rng := rand.New(rand.NewPCG(3, 5))
		bodies := make([]string, n)
		for i := range out {
			c := ids[rng.IntN(len(ids))]
			out[i].customer = c
			branch := ""
			switch rng.IntN(6) {
			case 0:
				out[i].branch, branch = "own", `,"branch":{"id":"`+own.ID+`"}`
			case 1:
				out[i].branch, branch = "foreign", `,"branch":{"id":"`+foreign.ID+`"}`
			}
			bodies[i] = `{"intent":"reward","amount":` + money(rng.IntN(4000)+100) + `,"customer":{"id":"` + c + `"}` + branch + `}`
		}
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					out[i].e, _, out[i].err = w.ledger().Create(w.ctx, b, txInput(t, bodies[i]), nil)
				}
			}()
		}
		wg.Wait()

		seen := map[int64]bool{}
		earned := map[string]int64{}
		lastBalance := map[string]int64{} // the highest balance a reward reported
		balances := map[string]map[int64]bool{}
		for i, o := range out {
			switch {
			case o.branch == "foreign":
				if loyalty.ErrorCode(o.err) != loyalty.ENotFound {
					t.Errorf("%d: reward at another business's branch: %v, want not found", i, o.err)
				}
			case o.customer == off:
				if loyalty.ErrorCode(o.err) != loyalty.EInvalid {
					t.Errorf("%d: reward of a deactivated customer: %v, want refused", i, o.err)
				}
			case o.err != nil:
				t.Errorf("%d: %s: %v", i, bodies[i], o.err)
			case o.e.ID <= 0 || seen[o.e.ID] || o.e.CustomerID != o.customer || o.e.Points <= 0:
				t.Errorf("%d: entry %+v (id seen before: %v)", i, o.e, seen[o.e.ID])
			default:
				seen[o.e.ID] = true
				earned[o.customer] += o.e.Points
				// Each reward reports the balance right after it: one
				// higher than every earlier one of the customer.
				if balances[o.customer] == nil {
					balances[o.customer] = map[int64]bool{}
				}
				if bal := o.e.Balance.Points; bal < o.e.Points || balances[o.customer][bal] {
					t.Errorf("%d: reported balance %d after %d points (reported before: %v)", i, bal, o.e.Points, balances[o.customer][bal])
				} else {
					balances[o.customer][bal] = true
					lastBalance[o.customer] = max(lastBalance[o.customer], bal)
				}
				if o.branch == "own" && o.e.BranchID != own.ID {
					t.Errorf("%d: branch %q, want %q", i, o.e.BranchID, own.ID)
				}
			}
		}
		var referralEntries int
		if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*) FROM transactions WHERE business_id = $1 AND intent = 'reward_referral'`,
			plain.ID).Scan(&referralEntries); err != nil {
			t.Fatal(err)
		}
		if referralEntries != 2 {
			t.Errorf("referral paid with %d entries, want 2 (referee and referrer, once)", referralEntries)
		}
		for _, id := range ids {
			c := w.get(t, plain, id)
			points, _, entries := w.ledgerSums(t, plain, id)
			bonus := int64(0)
			switch id {
			case referee:
				bonus = 50
			case ids[0]:
				bonus = 100
			}
			if c.Balance.Points != points || points != earned[id]+bonus {
				t.Errorf("customer %s: balance %d, ledger sum %d, rewards returned %d + referral %d", id, c.Balance.Points, points, earned[id], bonus)
			}
			if id != ids[0] && lastBalance[id] != c.Balance.Points {
				// (The referrer's own payout may come after its last reward.)
				t.Errorf("customer %s: last reported balance %d, balance %d", id, lastBalance[id], c.Balance.Points)
			}
			_, total, err := w.db.CustomerTransactions(w.ctx, plain.ID, id, loyalty.ListQuery{Page: 1, PerPage: 1})
			if err != nil && id != off {
				t.Fatal(err)
			}
			if id != off && total != entries {
				t.Errorf("customer %s: history total %d, %d entries", id, total, entries)
			}
		}
	})
}
