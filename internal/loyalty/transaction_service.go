package loyalty

import (
	"context"
	"errors"
	"time"
)

// TransactionService holds the rules of the ledger: how each intent earns,
// spends, cancels and pays referrals. Each intent lives in a file of its
// own (intent_*.go); this file takes a request through them.
type TransactionService struct {
	Store     Store
	Customers *CustomerService
}

// intent is one kind of POST /transactions.
type intent interface {
	// check validates the intent's own fields, with no I/O, setting on e
	// what the input alone decides.
	check(in *TransactionInput, e *Transaction, v Validation)
	// apply carries the intent out inside tx on r.entry, appending it to
	// the ledger.
	apply(ctx context.Context, s *TransactionService, tx Tx, r *entryRequest) error
}

// intents maps each intent a client may ask for to its rules.
var intents = map[string]intent{
	IntentReward: rewardIntent{}, IntentReturn: returnIntent{},
	IntentRedeem: redeemIntent{}, IntentAdjust: adjustIntent{},
	IntentGetCoupon: getCouponIntent{}, IntentClaimCoupon: claimCouponIntent{},
	IntentGiftcardBuy: giftcardBuyIntent{}, IntentGiftcardPay: giftcardPayIntent{}, IntentStoreCredit: storeCreditIntent{},
	IntentReferral: referralIntent{}, IntentRefund: refundIntent{},
}

// entryRequest is one POST /transactions on its way: the checked input,
// who it names and the entry it builds.
type entryRequest struct {
	b       Business
	in      *TransactionInput
	intent  intent
	contact User // the e-mail or phone naming the customer, normalised, when not named by id
	entry   Transaction
	at      time.Time // when the client said it happened (created_at), zero for now
	earned  bool      // entry's points were computed under the rules before the transaction
	// imported is the mark of the imported row the entry is (nil for an
	// API request): written in the entry's transaction, never batched.
	imported *ImportRowMark
	// gift: a coupon issued as a gift, its points not taken (GiftCoupon).
	gift bool
}

// entryOptions are what a request carries besides the API's body: the
// imported row's mark, or that a coupon is a gift.
type entryOptions struct {
	imported *ImportRowMark
	gift     bool
}

// check validates a whole request before any I/O: the intent, the
// customer reference, the details, the branch, the intent's own fields and
// those every intent shares. now is the time a created_at is held against.
func check(b Business, in *TransactionInput, now time.Time) (*entryRequest, error) {
	v := Validation{}
	name := in.intent(v)
	details := in.details(v)
	ref, hasCustomer := in.Customer.Value()
	if !hasCustomer {
		v.Add("customer", "The customer field is required (id, email, or phone with country_code).")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	r := &entryRequest{b: b, in: in, intent: intents[name], entry: newEntry(b, "", name, time.Time{})}
	r.entry.Details = details
	id, byID, err := ref.customerID()
	if err != nil {
		return nil, err
	}
	if byID {
		r.entry.CustomerID = id
	} else if r.contact, err = ref.contact(b); err != nil {
		// Named with every other field that fails, so one reply says all.
		var e *Error
		if !errors.As(err, &e) || e.Code != EInvalid {
			return nil, err
		}
		for f, msgs := range e.Fields {
			v[f] = append(v[f], msgs...)
		}
	}
	if br, ok := in.Branch.Value(); ok {
		if r.entry.BranchID, _ = br.ID.Value(); r.entry.BranchID == "" {
			return nil, Errorf(ENotFound, "The branch does not exist.")
		}
	}
	r.intent.check(in, &r.entry, v)
	r.at = in.shared(v, &r.entry, now)
	if a, ok := in.Amount.Value(); ok && !v.Has("amount") {
		b.checkDecimals(v, "amount", a)
	}
	return r, v.Err()
}

// stamp dates the entry: when the client said it happened, else now.
func (r *entryRequest) stamp(now time.Time) {
	r.entry.CreatedAt = now
	if !r.at.IsZero() {
		r.entry.CreatedAt = r.at
	}
}

// Create performs one POST /transactions. With an Idempotency it returns
// the result stored under an earlier request with the same key instead of
// acting again (reply non-nil), or EInvalid when the body differs. Input
// is checked whole before any I/O; a request refused after that (the
// intent's rules, the balance) is stored under its key like a success.
func (s *TransactionService) Create(ctx context.Context, b Business, in TransactionInput, idem *Idempotency) (Transaction, *IdempotentReply, error) {
	return s.create(ctx, b, in, idem, entryOptions{})
}

// create is Create with the options of a change the API does not make: an
// imported row's (its mark is written in the change's transaction), or a
// coupon given as a gift.
func (s *TransactionService) create(ctx context.Context, b Business, in TransactionInput, idem *Idempotency, opts entryOptions) (Transaction, *IdempotentReply, error) {
	r, err := check(b, &in, s.Store.Now())
	if err != nil {
		return Transaction{}, nil, err
	}
	r.imported, r.gift = opts.imported, opts.gift
	if idem != nil {
		if prev, err := s.replay(ctx, b, idem); prev != nil || err != nil {
			dropAudit(s.Store)
			return Transaction{}, prev, err
		}
	} else if done, err := s.alone(ctx, r); done || err != nil {
		return r.entry, nil, err
	}
	welcomed := false
	var refused error
	err = s.Store.WithTxOptions(ctx, r.txOptions(), func(tx Tx) error {
		r.stamp(tx.Now())
		act := func() error {
			if r.entry.CustomerID == "" {
				id, created, err := s.resolveContact(ctx, tx, b, r.contact)
				if err != nil {
					return err
				}
				r.entry.CustomerID, welcomed = id, created
			}
			return r.intent.apply(ctx, s, tx, r)
		}
		if idem == nil {
			return act()
		}
		if err := tx.BeginIdempotent(ctx, b.ID, idem.Key, idem.Hash); err != nil {
			return err
		}
		// The key and what the request gave commit together; a refusal
		// undoes the request's writes but keeps the key and the refusal.
		err := tx.Try(ctx, act)
		if storedRefusal(err) {
			welcomed, refused = false, err
			dropAudit(s.Store)
			return s.finishRefused(ctx, tx, b, idem, err)
		} else if err != nil {
			return err
		}
		return s.finishIdempotent(ctx, tx, b, idem, r.entry)
	})
	if err == nil && welcomed {
		s.Customers.notify()
	}
	if idem != nil && ErrorCode(err) == EConflict {
		// A concurrent request with the same key committed first.
		if prev, rerr := s.replay(ctx, b, idem); prev != nil || rerr != nil {
			dropAudit(s.Store)
			return Transaction{}, prev, rerr
		}
	}
	if err == nil {
		err = refused
	}
	if err != nil {
		return Transaction{}, nil, err
	}
	return r.entry, nil, nil
}

// alone applies the change through the group writer (Store.AppendAlone)
// when it may be batched: on PostgreSQL a share of one round trip instead
// of four. Its decision is the reward's one (decideReward), the same the
// transactional road makes. It reports false when the change may not be
// batched, or the writer left it out as the customer stands (a referral
// to pay, a balance, a branch); the transactional road then does what
// else the entry needs or explains the refusal, with the points already
// decided here.
func (s *TransactionService) alone(ctx context.Context, r *entryRequest) (bool, error) {
	if !r.mayBatch() {
		return false, nil
	}
	now := s.Store.Now()
	r.stamp(now)
	got, err := decideReward(ctx, s.Store, s, r.b.Loaded.Rules, r, now)
	if err != nil || !batchable(r, got.result) {
		return false, err
	}
	r.earned = true
	done, err := s.Store.AppendAlone(ctx, &r.entry)
	if !done {
		r.entry.ID, r.entry.Balance = 0, Balance{}
	}
	return done, err
}

// mayBatch reports the part of batchable that the request alone decides,
// before anything is computed: a reward of a customer named by id (no
// one to create or welcome), the business's rules read with it, and no
// imported row's mark to write with it (idempotent requests never come
// here: their key commits with the change).
func (r *entryRequest) mayBatch() bool {
	return r.entry.Intent == IntentReward && r.entry.CustomerID != "" && r.b.Loaded != nil && r.imported == nil
}

// txOptions are the options of the request's transaction: the imported
// row's mark it writes, if any.
func (r *entryRequest) txOptions() TxOptions {
	if r.imported == nil {
		return TxOptions{}
	}
	return importTx(r.imported)
}

// batchable is the one predicate of whether a decided change may be
// applied by the group writer instead of a transaction of its own. The
// writer applies an entry, its balance move under the balance rule, the
// one lot the entry opens, its basket and its event, and nothing else,
// with nothing read under the customer's lock: so the change must be a
// reward that mayBatch lets through, count no limited offer (once per
// customer, a day or a week) nor limited earning rule (their uses are
// recorded in the entry's transaction), stamp no punch card, issue no
// coupon, and carry no catalog items. An unpaid referral of the
// customer is known only under the lock: the writer leaves such an entry
// out, and the transactional road pays it.
func batchable(r *entryRequest, got Earning) bool {
	e := &r.entry
	p := PlanLots(e)
	return e.Intent == IntentReward && len(got.Limited) == 0 && len(got.Takes) == 0 && len(got.Stamps) == 0 &&
		len(got.Coupons) == 0 && len(e.Items) == 0 && e.ReversesID == 0 && len(p.Moves) == 0 && p.Need == 0 && len(p.Open) <= 1
}

// rewardEvents is false only in a build for measuring the events' cost
// (noevents.go).
var rewardEvents = true

// resolveContact returns the id of the customer an e-mail or phone names,
// and whether it created a new person, who is sent the welcome message.
// A customer named by id is taken as given: Append checks, in the
// statement that moves the balance, that it is an active customer of the
// business, so the common case costs no extra query.
func (s *TransactionService) resolveContact(ctx context.Context, tx Tx, b Business, u User) (string, bool, error) {
	c, err := tx.CustomerByContact(ctx, b.ID, u.Email, u.Phone)
	if err == nil {
		return c.ID, false, nil
	} else if ErrorCode(err) != ENotFound {
		return "", false, err
	}
	c, created, err := s.Customers.createTx(ctx, tx, b, u, Address{}, true, nil)
	if err != nil || !created {
		return c.ID, false, err
	}
	return c.ID, true, s.Customers.welcome(ctx, tx, b, c.User)
}

// notFoundField turns a not-found into a 404 naming what was missing.
func notFoundField(err error, msg string) error {
	if ErrorCode(err) == ENotFound {
		return Errorf(ENotFound, "%s", msg)
	}
	return err
}

// Preview computes what a reward would earn now, writing nothing: the same
// checks and earning computation (rules and active points offers) as
// Create. It returns the entry as it would be and the offers its points
// count.
func (s *TransactionService) Preview(ctx context.Context, b Business, in TransactionInput) (Transaction, []Offer, error) {
	r, err := check(b, &in, s.Store.Now())
	if err != nil {
		return Transaction{}, nil, err
	}
	if r.entry.Intent != IntentReward {
		return Transaction{}, nil, Invalid("intent", "Only a reward can be previewed.")
	}
	r.stamp(s.Store.Now())
	rules, err := s.Store.Rules(ctx, b)
	if err != nil {
		return Transaction{}, nil, err
	}
	got, err := earn(ctx, s.Store, s, b, rules, r.in, &r.entry, nil)
	if err != nil {
		return Transaction{}, nil, err
	}
	return r.entry, got.result.Offers, nil
}

// TierLevelOf returns the level a customer holds in the business's
// enabled tier program (0: none), for the earning rules kept to some
// levels.
func (s *TransactionService) TierLevelOf(ctx context.Context, businessID, customerID string) (int64, error) {
	tiers, err := s.Store.Tiers(ctx, businessID)
	if err != nil {
		return 0, err
	}
	for _, t := range tiers {
		if !t.Enabled {
			continue
		}
		st, err := tierStatus(ctx, s.Store, businessID, customerID, t)
		if err != nil || st.Level == nil {
			return 0, err
		}
		return st.Level.ID, nil
	}
	return 0, nil
}
