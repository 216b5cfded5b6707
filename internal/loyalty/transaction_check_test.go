package loyalty_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// noWrites is a store that fails the test when a change is started: bad
// input must be answered before any write, so it never holds SQLite's one
// writer or a PostgreSQL connection in a transaction.
type noWrites struct {
	loyalty.Store
	tb testing.TB
}

func (s noWrites) WithTx(context.Context, func(loyalty.Tx) error) error {
	s.tb.Errorf("WithTx called for a request that was invalid")
	return loyalty.Errorf(loyalty.EInternal, "no writes")
}

func (s noWrites) WithTxOptions(context.Context, loyalty.TxOptions, func(loyalty.Tx) error) error {
	s.tb.Errorf("WithTxOptions called for a request that was invalid")
	return loyalty.Errorf(loyalty.EInternal, "no writes")
}

func (s noWrites) AppendAlone(context.Context, *loyalty.Transaction) (bool, error) {
	s.tb.Errorf("AppendAlone called for a request that was invalid")
	return false, loyalty.Errorf(loyalty.EInternal, "no writes")
}

// TestInvalidTransactionOpensNoTransaction: every kind of bad input to
// POST /transactions, with or without an Idempotency-Key, is refused with
// its own error before the store is asked to change anything.
func TestInvalidTransactionOpensNoTransaction(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		created := w.business(t, "US")
		b, err := w.db.BusinessWithRules(w.ctx, created.ID) // as the ledger route reads it, rules loaded
		if err != nil {
			t.Fatal(err)
		}
		c := w.create(t, b, `{"email":"checked@example.com"}`)
		id := `"customer":{"id":"` + c.ID + `"}`
		svc := &loyalty.TransactionService{Store: noWrites{Store: w.db, tb: t}, Customers: w.svc}
		cases := []struct{ body, code, field string }{
			{`{"intent":"reward","amount":-1,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"reward","amount":0,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"reward",` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"reward","amount":5,"points":3,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"reward","points":-4,` + id + `}`, loyalty.EInvalid, "points"},
			{`{"intent":"reward","visits":1001,` + id + `}`, loyalty.EInvalid, "visits"},
			{`{"intent":"reward","amount":5}`, loyalty.EInvalid, "customer"},
			{`{"amount":5,` + id + `}`, loyalty.EInvalid, "intent"},
			{`{"intent":"teleport","amount":5,` + id + `}`, loyalty.EInvalid, "intent"},
			{`{"intent":"reward","amount":5,"customer":{"email":"not-an-email"}}`, loyalty.EInvalid, "customer.email"},
			{`{"intent":"reward","amount":5,"customer":{}}`, loyalty.EInvalid, "customer"},
			{`{"intent":"reward","amount":5,"customer":{"id":"zz"}}`, loyalty.EBadRequest, ""},
			{`{"intent":"reward","amount":5,"branch":{"id":""},` + id + `}`, loyalty.ENotFound, ""},
			{`{"intent":"reward","amount":5,"transaction_details":{"external_order_id":"` + strings.Repeat("x", 300) + `"},` + id + `}`,
				loyalty.EInvalid, "transaction_details.external_order_id"},
			{`{"intent":"redeem",` + id + `}`, loyalty.EInvalid, "points"},
			{`{"intent":"redeem","points":0,` + id + `}`, loyalty.EInvalid, "points"},
			{`{"intent":"redeem","catalog_items":[],` + id + `}`, loyalty.EInvalid, "catalog_items"},
			{`{"intent":"redeem","catalog_items":[{"id":1},{"id":1}],` + id + `}`, loyalty.EInvalid, "catalog_items.1.id"},
			{`{"intent":"redeem","catalog_items":[{"id":1,"quantity":0}],` + id + `}`, loyalty.EInvalid, "catalog_items.0.quantity"},
			{`{"intent":"return","amount":-3,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"adjust_points_balance","points":0,` + id + `}`, loyalty.EInvalid, "points"},
			{`{"intent":"get_coupon",` + id + `}`, loyalty.EInvalid, "offer.id"},
			{`{"intent":"claim_coupon","coupon":{"id":-2},` + id + `}`, loyalty.EInvalid, "coupon.id"},
			{`{"intent":"purchase_giftcard_prepaid",` + id + `}`, loyalty.EInvalid, "giftcard.id"},
			{`{"intent":"giftcard_payment","amount":-1,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"reward_store_credit",` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"purchase_giftcard_prepaid","amount":-1,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"claim_coupon","coupon":{"id":1},"amount":-1,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"reward_referral",` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"refund_redeemed_points","points":0,` + id + `}`, loyalty.EInvalid, "points"},
			{`{"intent":"redeem","amount":5,` + id + `}`, loyalty.EInvalid, "amount"},
			{`{"intent":"return","amount":5,"points":2,` + id + `}`, loyalty.EInvalid, "points"},
			{`{"intent":"get_coupon","offer":{"id":1},"visits":2,` + id + `}`, loyalty.EInvalid, "visits"},
			{`{"intent":"reward","points":1,"created_at":"2999-01-01T00:00:00+00:00",` + id + `}`, loyalty.EInvalid, "created_at"},
			{`{"intent":"reward","points":1,"created_at":"soon",` + id + `}`, loyalty.EInvalid, "created_at"},
			{`{"intent":"reward","points":1,"receipt":{"number":"` + strings.Repeat("9", 256) + `"},` + id + `}`, loyalty.EInvalid, "receipt.number"},
			{`{"intent":"reward","points":1,"employee":{"id":"e1"},` + id + `}`, loyalty.EInvalid, "employee.id"},
			{`{"intent":"reward","points":1,"employee":{"pin_code":"1111"},` + id + `}`, loyalty.EInvalid, "employee.pin_code"},
			{`{"intent":"reward","points":1,"product_rewards":[{"id":1,"quantity":1}],` + id + `}`, loyalty.EInvalid, "product_rewards"},
			{`{"intent":"reward","points":1,"customer":{"id":"` + c.ID + `","pin_code":1111}}`, loyalty.EInvalid, "customer.pin_code"},
			{`{"intent":"reward","points":1,"customer":{"phone":"5145550000"},"employee":{"id":"e1"}}`, loyalty.EInvalid, "employee.id"},
		}
		for _, c := range cases {
			for _, idem := range []*loyalty.Idempotency{nil, {Key: "k-" + c.body, Hash: []byte(c.body)}} {
				_, _, err := svc.Create(w.ctx, b, txInput(t, c.body), idem)
				if loyalty.ErrorCode(err) != c.code {
					t.Errorf("%s: %v, want %s", c.body, err, c.code)
					continue
				}
				if c.field != "" {
					wantInvalid(t, err, c.field)
				}
			}
		}
		// The store is reached only once the input is good.
		ok := loyalty.TransactionService{Store: w.db, Customers: w.svc}
		if _, _, err := ok.Create(w.ctx, b, txInput(t, `{"intent":"reward","amount":5,`+id+`}`), nil); err != nil {
			t.Fatalf("a valid reward: %v", err)
		}
		if _, _, n := w.ledgerSums(t, b, c.ID); n != 1 {
			t.Fatalf("%d entries after the invalid requests and one reward, want 1", n)
		}
	})
}
