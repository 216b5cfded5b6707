package loyalty

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"strings"
	"time"
)

// TransactionService holds the rules of the ledger: how each intent earns,
// spends, cancels and pays referrals.
type TransactionService struct {
	Store     Store
	Customers *CustomerService
}

// Idempotency carries an Idempotency-Key with the request's fingerprint and
// how to encode the reply that is stored under it.
type Idempotency struct {
	Key    string
	Hash   []byte
	Encode func(Transaction) (status int, body []byte, err error)
}

// Create performs one POST /transactions. With an Idempotency it returns
// the stored reply of an earlier request with the same key instead of
// acting again (reply non-nil), or EInvalid when the body differs.
func (s *TransactionService) Create(ctx context.Context, b Business, in TransactionInput, idem *Idempotency) (Transaction, *IdempotentReply, error) {
	v := Validation{}
	intent := in.intent(v)
	details := in.details(v)
	custRef, hasCustomer := in.Customer.Value()
	if !hasCustomer {
		v.Add("customer", "The customer field is required (id, email, or phone with country_code).")
	}
	if err := v.Err(); err != nil {
		return Transaction{}, nil, err
	}
	if idem != nil {
		if prev, err := s.replay(ctx, b, idem); prev != nil || err != nil {
			return Transaction{}, prev, err
		}
	} else if intent == IntentReward {
		if t, done, err := s.rewardAlone(ctx, b, &in, details); done || err != nil {
			return t, nil, err
		}
	}
	var out Transaction
	welcomed := false
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		if idem != nil {
			if err := tx.BeginIdempotent(ctx, b.ID, idem.Key, idem.Hash); err != nil {
				return err
			}
		}
		customerID, created, err := s.resolveCustomer(ctx, tx, b, custRef)
		welcomed = created
		if err != nil {
			return err
		}
		e := newEntry(b, customerID, intent, tx.Now())
		e.Details = details
		if br, ok := in.Branch.Value(); ok {
			id, _ := br.ID.Value()
			if _, err := tx.Branch(ctx, b.ID, id); err != nil {
				return notFoundField(err, "branch.id", "The branch does not exist.")
			}
			e.BranchID = id
		}
		if err := s.apply(ctx, tx, b, &in, &e); err != nil {
			return err
		}
		out = e
		if idem != nil {
			status, body, err := idem.Encode(out)
			if err != nil {
				return err
			}
			return tx.FinishIdempotent(ctx, b.ID, idem.Key, status, body)
		}
		return nil
	})
	if err == nil && welcomed {
		s.Customers.notify()
	}
	if idem != nil && ErrorCode(err) == EConflict {
		// A concurrent request with the same key committed first.
		prev, rerr := s.replay(ctx, b, idem)
		if prev != nil || rerr != nil {
			return Transaction{}, prev, rerr
		}
	}
	return out, nil, err
}

// replay returns the stored reply for an idempotency key already used.
func (s *TransactionService) replay(ctx context.Context, b Business, idem *Idempotency) (*IdempotentReply, error) {
	prev, err := s.Store.IdempotentReply(ctx, b.ID, idem.Key)
	if ErrorCode(err) == ENotFound {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if !bytes.Equal(prev.Hash, idem.Hash) {
		return nil, Invalid("idempotency_key", "The Idempotency-Key was already used with a different request.")
	}
	return &prev, nil
}

// customerID returns the customer id a reference names, if it names one
// by id (ok), or a bad-request error for an id that cannot be one.
func (ref CustomerRef) customerID() (id string, ok bool, err error) {
	id, ok = ref.ID.Value()
	if !ok || id == "" {
		return "", false, nil
	}
	if id = strings.ToLower(id); !ValidID(id) {
		return "", true, Errorf(EBadRequest, "Invalid customer id supplied.")
	}
	return id, true, nil
}

// notFoundField turns a not-found into a 404 naming what was missing.
func notFoundField(err error, field, msg string) error {
	if ErrorCode(err) == ENotFound {
		return Errorf(ENotFound, "%s", msg)
	}
	return err
}

// resolveCustomer returns the id of the customer a transaction names, and
// whether it created a new person. An unknown e-mail or phone creates the
// customer, who is sent the welcome message. An id is taken as given:
// Append checks, in the statement that moves the balance, that it is an
// active customer of the business, so the common case costs no extra query.
func (s *TransactionService) resolveCustomer(ctx context.Context, tx Tx, b Business, ref CustomerRef) (string, bool, error) {
	if id, ok, err := ref.customerID(); ok {
		return id, false, err
	}
	in := CustomerInput{Email: ref.Email, Phone: ref.Phone, CountryCode: ref.CountryCode}
	v := Validation{}
	var u User
	in.validateProfile(v, &u, b.Country)
	if u.Email == "" && u.Phone == "" && len(v) == 0 {
		v.Add("customer", "The customer needs an id, an email, or a phone with country_code.")
	}
	if len(v) > 0 {
		prefixed := Validation{}
		for k, msgs := range v {
			prefixed["customer."+k] = msgs
		}
		return "", false, prefixed.Err()
	}
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

// apply performs the intent on entry e and appends it to the ledger.
func (s *TransactionService) apply(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	switch e.Intent {
	case IntentReward:
		return s.reward(ctx, tx, b, in, e)
	case IntentRedeem:
		return s.redeem(ctx, tx, b, in, e)
	case IntentReturn:
		return s.giveBack(ctx, tx, b, in, e)
	case IntentAdjust:
		return s.adjust(ctx, tx, in, e)
	case IntentGetCoupon:
		return s.getCoupon(ctx, tx, b, in, e)
	case IntentClaimCoupon:
		return s.claimCoupon(ctx, tx, b, in, e)
	case IntentGiftcardBuy:
		return s.buyGiftcard(ctx, tx, b, in, e)
	case IntentGiftcardPay:
		return s.payWithGiftcard(ctx, tx, in, e)
	case IntentStoreCredit:
		return s.storeCredit(ctx, tx, in, e)
	case IntentReferral:
		return s.rewardReferral(ctx, tx, b, e)
	}
	return Invalid("intent", "The selected intent is invalid.")
}

// onlyOne checks that exactly one of the named inputs was sent.
func onlyOne(v Validation, names []string, sent []bool) int {
	n, which := 0, -1
	for i, s := range sent {
		if s {
			n, which = n+1, i
		}
	}
	if n != 1 {
		v.Add(names[0], "Exactly one of "+strings.Join(names, ", ")+" is required.")
		return -1
	}
	return which
}

// reward earns points for a spend (through the rules and active offers),
// for a number of visits, or as given.
func (s *TransactionService) reward(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	rules, err := rulesOf(ctx, tx, b)
	if err != nil {
		return err
	}
	if err := earn(ctx, tx, b, rules, in, e); err != nil {
		return err
	}
	if err := tx.Append(ctx, e); err != nil {
		return err
	}
	if !e.ReferralPending {
		return nil
	}
	return s.payReferral(ctx, tx, b, e)
}

// rewardAlone performs the everyday reward (a customer named by id, no
// Idempotency-Key) as one change of its own, through Store.AppendAlone,
// when nothing else must happen with it: on PostgreSQL that is one round
// trip instead of four. It reports false whenever the request needs the
// transactional path, which also gives every error its answer.
func (s *TransactionService) rewardAlone(ctx context.Context, b Business, in *TransactionInput, details *TransactionDetails) (Transaction, bool, error) {
	ref, _ := in.Customer.Value()
	id, ok, err := ref.customerID()
	if !ok || err != nil || b.Loaded == nil {
		return Transaction{}, false, nil
	}
	e := newEntry(b, id, IntentReward, s.Store.Now())
	e.Details = details
	if br, ok := in.Branch.Value(); ok {
		if e.BranchID, _ = br.ID.Value(); e.BranchID == "" {
			return Transaction{}, false, nil
		}
	}
	if err := earn(ctx, s.Store, b, b.Loaded.Rules, in, &e); err != nil {
		return Transaction{}, false, nil
	}
	done, err := s.Store.AppendAlone(ctx, &e)
	return e, done, err
}

// earn checks a reward's amount, points or visits and sets the points it
// earns under the rules and the offers active at e.CreatedAt.
func earn(ctx context.Context, offers OfferFinder, b Business, rules Rules, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	which := onlyOne(v, []string{"amount", "points", "visits"}, []bool{in.Amount.Set, in.Points.Set, in.Visits.Set})
	if err := v.Err(); err != nil {
		return err
	}
	switch which {
	case 0:
		amount := in.positiveAmount(v)
		if err := v.Err(); err != nil {
			return err
		}
		e.Amount, e.TierAmount, e.Visits = amount, amount, 1
		e.Points = rules.PointsForSpend(amount)
		if b.Loaded == nil || b.Loaded.HasPointsOffers {
			found, err := offers.PointsOffers(ctx, b.ID, e.CustomerID, e.BranchID, e.CreatedAt)
			if err != nil {
				return err
			}
			e.Points = applyOffers(e.Points, found, e)
		}
	case 1:
		p, ok := in.Points.Value()
		if !ok || p <= 0 || p > maxPoints {
			return Invalid("points", "The points must be a whole number greater than 0.")
		}
		e.Points, e.Visits = p, 1
	case 2:
		n, ok := in.Visits.Value()
		if !ok || n <= 0 || n > 1000 {
			return Invalid("visits", "The visits must be a whole number between 1 and 1000.")
		}
		e.Visits, e.Points = n, n*rules.PointsPerVisit
	}
	e.TierPoints = e.Points
	return nil
}

// rulesOf returns the business's rules, read with the business when they
// were, else now.
func rulesOf(ctx context.Context, tx Tx, b Business) (Rules, error) {
	if b.Loaded != nil {
		return b.Loaded.Rules, nil
	}
	return tx.Rules(ctx, b)
}

// applyOffers multiplies the base points by the best active multiplier and
// adds every bonus offer, recording the offer that applied.
func applyOffers(base int64, offers []Offer, e *Transaction) int64 {
	var best Offer
	bonus := int64(0)
	for _, o := range offers {
		switch o.TypeID {
		case OfferPointsMultiplier:
			if o.MultipFactor > best.MultipFactor {
				best = o
			}
		case OfferBonusPoints:
			bonus += o.Points
			if e.OfferID == 0 {
				e.OfferID = o.ID
			}
		}
	}
	points := base
	if best.ID != 0 && best.MultipFactor > 100 {
		// Factors are hundredths; the product rounds down to whole points.
		points = base * int64(best.MultipFactor) / 100
		e.OfferID = best.ID
	}
	return points + bonus
}

// payReferral pays a pending referral on the referee's first qualifying
// reward within the program's time limit, exactly once.
func (s *TransactionService) payReferral(ctx context.Context, tx Tx, b Business, reward *Transaction) error {
	ref, prog, err := tx.PendingReferral(ctx, b.ID, reward.CustomerID)
	if ErrorCode(err) == ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	now := tx.Now()
	expired := prog.ExpiresIn > 0 && !now.Before(ref.CreatedAt.Add(time.Duration(prog.ExpiresIn)*24*time.Hour))
	if !expired && reward.Amount < prog.CondMinAmount {
		return nil
	}
	outcome := ReferralPaid
	switch {
	case expired:
		outcome = ReferralExpired
	case !prog.Enabled:
		outcome = ReferralForfeited
	}
	settled, err := tx.SettleReferral(ctx, ref, outcome)
	if err != nil || !settled || outcome != ReferralPaid {
		return err
	}
	for _, pay := range []struct {
		who    string
		points int64
	}{{ref.RefereeID, prog.RefereeEarns}, {ref.ReferrerID, prog.RefererEarns}} {
		if pay.points <= 0 {
			continue
		}
		if pay.who != reward.CustomerID {
			// A referrer who left or was deactivated since is not paid; the
			// referee's reward must not fail because of it.
			c, err := tx.CustomerAny(ctx, b.ID, pay.who)
			if err != nil && ErrorCode(err) != ENotFound {
				return err
			}
			if err != nil || c.Deleted || !c.Enabled {
				continue
			}
		}
		e := newEntry(b, pay.who, IntentReferral, now)
		e.Points, e.TierPoints = pay.points, pay.points
		if err := tx.Append(ctx, &e); err != nil {
			return err
		}
		if pay.who == reward.CustomerID {
			reward.Balance = e.Balance
		}
	}
	return nil
}

// rewardReferral pays the customer's pending referral now, whatever the
// amount condition (a business's manual payout).
func (s *TransactionService) rewardReferral(ctx context.Context, tx Tx, b Business, e *Transaction) error {
	ref, prog, err := tx.PendingReferral(ctx, b.ID, e.CustomerID)
	if ErrorCode(err) == ENotFound {
		return Invalid("customer", "The customer has no unpaid referral.")
	} else if err != nil {
		return err
	}
	settled, err := tx.SettleReferral(ctx, ref, ReferralPaid)
	if err != nil {
		return err
	}
	if !settled {
		return Invalid("customer", "The referral was already paid.")
	}
	e.Points, e.TierPoints = prog.RefereeEarns, prog.RefereeEarns
	if err := tx.Append(ctx, e); err != nil {
		return err
	}
	if prog.RefererEarns > 0 {
		r := newEntry(b, ref.ReferrerID, IntentReferral, tx.Now())
		r.Points, r.TierPoints = prog.RefererEarns, prog.RefererEarns
		return tx.Append(ctx, &r)
	}
	return nil
}

// redeem spends points, given directly or as the cost of catalog items.
func (s *TransactionService) redeem(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	which := onlyOne(v, []string{"points", "catalog_items"}, []bool{in.Points.Set, in.CatalogItems.Set})
	if err := v.Err(); err != nil {
		return err
	}
	if which == 0 {
		p, ok := in.Points.Value()
		if !ok || p <= 0 || p > maxPoints {
			return Invalid("points", "The points must be a whole number greater than 0.")
		}
		e.Points = -p
		return tx.Append(ctx, e)
	}
	items, _ := in.CatalogItems.Value()
	if len(items) == 0 || len(items) > 100 {
		return Invalid("catalog_items", "Between 1 and 100 catalog items are required.")
	}
	e.Name = "Redemption"
	total := int64(0)
	seen := map[int64]bool{}
	for i, it := range items {
		field := "catalog_items." + itoa(i)
		id, ok := it.ID.Value()
		if !ok || id <= 0 {
			return Invalid(field+".id", "The catalog item id is required.")
		}
		qty := int64(1)
		if q, ok := it.Quantity.Value(); ok {
			qty = q
		}
		if qty <= 0 || qty > 1000 {
			return Invalid(field+".quantity", "The quantity must be between 1 and 1000.")
		}
		if seen[id] {
			return Invalid(field+".id", "Each catalog item may appear once; use quantity.")
		}
		seen[id] = true
		r, err := tx.Reward(ctx, b.ID, id)
		if err == nil && (r.Kind != CatalogItem || r.Deleted) {
			err = Errorf(ENotFound, "not a catalog item")
		}
		if err != nil {
			return notFoundField(err, field, "Catalog item "+itoa(int(id))+" not found.")
		}
		if !r.Available(tx.Now()) {
			return Invalid(field+".id", "The catalog item is not available.")
		}
		e.Items = append(e.Items, TransactionItem{RewardID: id, Quantity: qty, Points: r.Points * qty})
		total += r.Points * qty
	}
	e.Points = -total
	return tx.Append(ctx, e)
}

// giveBack takes back the points a returned spend earned, never more than
// the customer holds, and lowers the spend counted for tiers.
func (s *TransactionService) giveBack(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	amount := in.positiveAmount(v)
	if err := v.Err(); err != nil {
		return err
	}
	rules, err := rulesOf(ctx, tx, b)
	if err != nil {
		return err
	}
	c, err := tx.CustomerAny(ctx, b.ID, e.CustomerID)
	if err == nil && c.Deleted {
		err = customerNotFound()
	}
	if err != nil {
		return err
	}
	points := min(rules.PointsForSpend(amount), c.Balance.Points)
	e.Amount, e.TierAmount = amount, -amount
	e.Points, e.TierPoints = -points, -points
	return tx.Append(ctx, e)
}

// adjust moves points up or down by hand; it never takes a balance below zero.
func (s *TransactionService) adjust(ctx context.Context, tx Tx, in *TransactionInput, e *Transaction) error {
	p, ok := in.Points.Value()
	if !ok || p == 0 || p > maxPoints || p < -maxPoints {
		return Invalid("points", "The points must be a non-zero whole number.")
	}
	e.Points = p
	return tx.Append(ctx, e)
}

// newQRCode returns a random, unguessable coupon code.
func newQRCode() string {
	b := make([]byte, 15)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base32.StdEncoding.EncodeToString(b)
}

// getCoupon issues a coupon of a coupon offer to the customer, paying its
// points cost if it has one.
func (s *TransactionService) getCoupon(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	id := ref(v, "offer", in.Offer)
	if err := v.Err(); err != nil {
		return err
	}
	o, err := tx.Offer(ctx, b.ID, id)
	if err == nil && o.Deleted {
		err = Errorf(ENotFound, "deleted")
	}
	if err != nil {
		return notFoundField(err, "offer.id", "Offer not found.")
	}
	now := tx.Now()
	switch {
	case o.TypeID == OfferPointsMultiplier || o.TypeID == OfferBonusPoints:
		return Invalid("offer.id", "Points offers apply to rewards by themselves; they issue no coupon.")
	case !o.Active(now):
		return Invalid("offer.id", "The offer is not active.")
	case o.Targeted && !contains(o.TargetIDs, e.CustomerID):
		return Invalid("offer.id", "The offer is not available to this customer.")
	}
	kind := o.CouponKind
	if kind != CouponConvertible {
		kind = CouponRegular
	}
	c := Coupon{BusinessID: b.ID, OfferID: o.ID, CustomerID: e.CustomerID, QRCode: newQRCode(), CouponTypeID: kind,
		ExpiresAt: o.ExpiresAt, CreatedAt: now, UpdatedAt: now, Offer: o}
	if err := tx.InsertCoupon(ctx, &c); err != nil {
		return err
	}
	e.OfferID, e.CouponID, e.Points, e.Coupon = o.ID, c.ID, -o.Points, &c
	return tx.Append(ctx, e)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// claimCoupon redeems an issued coupon, once.
func (s *TransactionService) claimCoupon(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	id := ref(v, "coupon", in.Coupon)
	if err := v.Err(); err != nil {
		return err
	}
	c, err := tx.Coupon(ctx, b.ID, id)
	if err == nil && c.CustomerID != e.CustomerID {
		err = Errorf(ENotFound, "another customer's coupon")
	}
	if err != nil {
		return notFoundField(err, "coupon.id", "Coupon not found.")
	}
	now := tx.Now()
	switch {
	case c.CouponTypeID == CouponRegularRedeemed || c.CouponTypeID == CouponConvertibleRedeemed:
		return Invalid("coupon.id", "The coupon has already been claimed.")
	case c.Locked:
		return Invalid("coupon.id", "The coupon is locked.")
	case !c.ExpiresAt.IsZero() && !c.ExpiresAt.After(now):
		return Invalid("coupon.id", "The coupon has expired.")
	}
	if c.CouponTypeID == CouponConvertible {
		c.CouponTypeID = CouponConvertibleRedeemed
	} else {
		c.CouponTypeID = CouponRegularRedeemed
	}
	if o, err := tx.Offer(ctx, b.ID, c.OfferID); err == nil {
		c.Offer = o
	} else {
		return err
	}
	c.ClaimedAt, c.UpdatedAt = now, now
	ok, err := tx.ClaimCoupon(ctx, &c)
	if err != nil {
		return err
	}
	if !ok {
		return Invalid("coupon.id", "The coupon has already been claimed.")
	}
	e.CouponID, e.OfferID, e.Coupon = c.ID, c.OfferID, &c
	if a, ok := in.Amount.Value(); ok && a > 0 {
		e.Amount = a
	}
	return tx.Append(ctx, e)
}

// buyGiftcard sells a gift card: its value is added to the customer's
// gift-card balance.
func (s *TransactionService) buyGiftcard(ctx context.Context, tx Tx, b Business, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	id := ref(v, "giftcard", in.Giftcard)
	if err := v.Err(); err != nil {
		return err
	}
	g, err := tx.Giftcard(ctx, b.ID, id)
	if err == nil && g.Deleted {
		err = Errorf(ENotFound, "deleted")
	}
	if err != nil {
		return notFoundField(err, "giftcard.id", "Gift card not found.")
	}
	if !g.Available(tx.Now()) {
		return Invalid("giftcard.id", "The gift card is not available.")
	}
	e.GiftcardID, e.Amount, e.Giftcard = g.ID, g.RealValue, g.DiscountValue
	return tx.Append(ctx, e)
}

// payWithGiftcard pays an amount from the gift-card balance.
func (s *TransactionService) payWithGiftcard(ctx context.Context, tx Tx, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	amount := in.positiveAmount(v)
	if err := v.Err(); err != nil {
		return err
	}
	e.Amount, e.Giftcard = amount, -amount
	return tx.Append(ctx, e)
}

// storeCredit adds money to the gift-card balance.
func (s *TransactionService) storeCredit(ctx context.Context, tx Tx, in *TransactionInput, e *Transaction) error {
	v := Validation{}
	amount := in.positiveAmount(v)
	if err := v.Err(); err != nil {
		return err
	}
	e.Amount, e.Giftcard = amount, amount
	return tx.Append(ctx, e)
}

// cancellable are the intents DELETE /transactions/{id} may reverse.
var cancellable = map[string]bool{IntentReward: true, IntentRedeem: true, IntentAdjust: true,
	IntentStoreCredit: true, IntentGiftcardPay: true, IntentReturn: true}

// Cancel reverses a transaction by appending its opposite; the original
// stays in the ledger. A balance that cannot cover the reversal is EInvalid.
func (s *TransactionService) Cancel(ctx context.Context, b Business, id int64) (Transaction, error) {
	var out Transaction
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		orig, err := tx.Transaction(ctx, b.ID, id)
		if err != nil {
			return notFoundField(err, "id", "Transaction not found.")
		}
		if !cancellable[orig.Intent] {
			return Invalid("id", "A "+orig.Intent+" transaction cannot be cancelled.")
		}
		e := newEntry(b, orig.CustomerID, IntentCancellation, tx.Now())
		e.ReversesID, e.BranchID = orig.ID, orig.BranchID
		e.Amount = orig.Amount
		e.Points, e.Giftcard, e.Visits = -orig.Points, -orig.Giftcard, -orig.Visits
		e.TierAmount, e.TierPoints = -orig.TierAmount, -orig.TierPoints
		if err := tx.Append(ctx, &e); err != nil {
			return err
		}
		out = e
		return nil
	})
	return out, err
}

// UpdateRules changes a business's earning rules.
func (s *TransactionService) UpdateRules(ctx context.Context, b Business, in RulesInput) (Rules, error) {
	var out Rules
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		r, err := tx.Rules(ctx, b)
		if err != nil {
			return err
		}
		if err := in.Apply(&r); err != nil {
			return err
		}
		out = r
		return tx.SaveRules(ctx, r)
	})
	return out, err
}

// History pages a customer's ledger entries, newest first.
func (s *TransactionService) History(ctx context.Context, b Business, customerID string, q ListQuery) ([]Transaction, int, error) {
	id, err := customerIDOf(customerID)
	if err != nil {
		return nil, 0, err
	}
	return s.Store.CustomerTransactions(ctx, b.ID, id, q)
}
