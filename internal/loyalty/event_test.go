package loyalty_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// aloneCounter is the store, counting the entries AppendAlone wrote.
type aloneCounter struct {
	loyalty.Store
	written int
}

func (s *aloneCounter) AppendAlone(ctx context.Context, t *loyalty.Transaction) (bool, error) {
	done, err := s.Store.AppendAlone(ctx, t)
	if done {
		s.written++
	}
	return done, err
}

// newEvents reads the business's events after *last and moves *last on,
// returning their types.
func (w *world) newEvents(tb testing.TB, b loyalty.Business, last *int64) []string {
	tb.Helper()
	list, err := (&loyalty.EventService{Store: w.db}).List(w.ctx, b, loyalty.EventQuery{After: *last, Limit: 100})
	if err != nil {
		tb.Fatalf("events: %v", err)
	}
	var types []string
	for _, e := range list {
		types = append(types, e.Type)
		*last = e.Seq
	}
	return types
}

// TestLedgerEvents checks the events of the ledger's paths in the domain:
// a reward written on its own (Store.AppendAlone) and one written in a
// transaction each write one transaction.created; a reward that pays a
// referral writes the referral and both payouts in its transaction; a
// refusal stored under an Idempotency-Key writes none.
func TestLedgerEvents(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		loaded, err := w.db.BusinessWithRules(w.ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		counter := &aloneCounter{Store: w.db}
		ledger := &loyalty.TransactionService{Store: counter, Customers: w.svc}
		var last int64
		referrer := w.create(t, b, `{"email":"referrer@example.com"}`)
		want := func(what string, types ...string) {
			t.Helper()
			if got := w.newEvents(t, b, &last); !slices.Equal(got, types) {
				t.Fatalf("%s wrote %v, want %v", what, got, types)
			}
		}
		want("create", loyalty.EventCustomerCreated)

		if _, _, err := ledger.Create(w.ctx, loaded, txInput(t, `{"intent":"reward","points":5,"customer":{"id":"`+referrer.ID+`"}}`), nil); err != nil {
			t.Fatal(err)
		}
		if counter.written != 1 {
			t.Fatalf("the reward did not take AppendAlone (%d written)", counter.written)
		}
		want("a reward on its own", loyalty.EventTransactionCreated)

		idem := &loyalty.Idempotency{Key: "k1", Hash: []byte("h1")}
		if _, _, err := ledger.Create(w.ctx, loaded, txInput(t, `{"intent":"reward","points":5,"customer":{"id":"`+referrer.ID+`"}}`), idem); err != nil {
			t.Fatal(err)
		}
		want("a reward in a transaction", loyalty.EventTransactionCreated)
		idem = &loyalty.Idempotency{Key: "k2", Hash: []byte("h2")}
		if _, _, err := ledger.Create(w.ctx, loaded, txInput(t, `{"intent":"redeem","points":500,"customer":{"id":"`+referrer.ID+`"}}`), idem); loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("redeem beyond the balance: %v", err)
		}
		want("a refused redeem stored under its key")

		prog := w.referralProgram(t, b, true)
		referee := w.create(t, b, `{"email":"referee@example.com","referral":{"referral_program_id":`+strconv.FormatInt(prog, 10)+`,"referrer_id":"`+referrer.ID+`"}}`)
		want("a referred customer", loyalty.EventCustomerCreated)
		if _, _, err := ledger.Create(w.ctx, loaded, txInput(t, `{"intent":"reward","amount":20,"customer":{"id":"`+referee.ID+`"}}`), nil); err != nil {
			t.Fatal(err)
		}
		want("a reward that pays a referral", loyalty.EventTransactionCreated, loyalty.EventReferralPaid,
			loyalty.EventTransactionCreated, loyalty.EventTransactionCreated)
		if counter.written != 1 {
			t.Fatalf("a reward with a referral to pay was written on its own")
		}
	})
}
