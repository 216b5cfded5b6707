package loyalty

import (
	"context"
	"strings"
)

// The counter is where a cashier serves the customer in front of them:
// find them by what they show (e-mail, phone, the customer code or a
// coupon's code in their app), record a sale after seeing what it earns,
// redeem a reward, claim a coupon, sell or pay with a gift card. Every
// action carries an Idempotency-Key, so a double click or a reload acts
// once.

// CounterMatch is what a code typed or scanned at the counter found.
type CounterMatch struct {
	Customers []Customer
	Coupon    *Coupon // the coupon whose code it was, with its offer
}

// Find looks up what a cashier typed or scanned: an e-mail address, a
// phone number, a customer code (the customer's id, as the customer's app
// shows it) or a coupon's qrcode.
func (d *CustomerDesk) Find(ctx context.Context, a Actor, code string) (CounterMatch, error) {
	if err := a.Require(PermCounter); err != nil {
		return CounterMatch{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return CounterMatch{}, err
	}
	code = strings.TrimSpace(code)
	var m CounterMatch
	switch {
	case code == "":
		return m, Invalid("code", "Type or scan an e-mail address, a phone number, a customer code or a coupon code.")
	case strings.Contains(code, "@") || isPhoneLike(code):
		m.Customers, err = d.Services.Customers.Lookup(ctx, b, code)
		return m, fieldsAs(err, map[string]string{"q": "code"})
	case ValidID(strings.ToLower(code)):
		c, err := d.Services.Customers.Get(ctx, b, code)
		if ErrorCode(err) == ENotFound {
			return m, nil
		}
		m.Customers = []Customer{c}
		return m, err
	}
	cp, err := d.Store.CouponByCode(ctx, b.ID, strings.ToUpper(code))
	if ErrorCode(err) == ENotFound {
		return m, nil
	} else if err != nil {
		return m, err
	}
	c, err := d.Services.Customers.Get(ctx, b, cp.CustomerID)
	if ErrorCode(err) == ENotFound {
		return m, nil
	} else if err != nil {
		return m, err
	}
	m.Customers, m.Coupon = []Customer{c}, &cp
	return m, nil
}

// SalePreview is what a sale would earn.
type SalePreview struct {
	Amount Money
	Points int64
	Base   int64   // the points of the earning rules alone
	Offers []Offer // the active offers the points count
}

// PreviewSale computes what a purchase of amount would earn the customer
// now, under the rules and active offers, writing nothing.
func (d *CustomerDesk) PreviewSale(ctx context.Context, a Actor, customerID, amount string) (SalePreview, error) {
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return SalePreview{}, err
	}
	m, err := parseAmount(amount)
	if err != nil {
		return SalePreview{}, err
	}
	in := TransactionInput{Intent: Some(IntentReward), Amount: Some(m), Customer: Some(CustomerRef{ID: Some(c.ID)})}
	e, offers, err := d.Services.Transactions.Preview(ctx, b, in)
	if err != nil {
		return SalePreview{}, err
	}
	rules, err := d.Store.Rules(ctx, b)
	if err != nil {
		return SalePreview{}, err
	}
	return SalePreview{Amount: e.Amount, Points: e.Points, Base: rules.PointsForSpend(e.Amount), Offers: offers}, nil
}

// parseAmount reads a sum of money typed in a form.
func parseAmount(s string) (Money, error) {
	m, err := ParseMoney(strings.TrimSpace(s))
	if err != nil || m <= 0 {
		return 0, Invalid("amount", "Enter an amount greater than 0, such as 12.50.")
	}
	return m, nil
}

// forCounter reads the customer a counter action is on.
func (d *CustomerDesk) forCounter(ctx context.Context, a Actor, id string) (Business, Customer, error) {
	if err := a.Require(PermCounter); err != nil {
		return Business{}, Customer{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return Business{}, Customer{}, err
	}
	c, err := d.Services.Customers.Get(ctx, b, id)
	return b, c, asNotFound(err, customerNotFound)
}

// CounterAction is one action at the counter, as its form sends it.
type CounterAction struct {
	Amount     string // a sale, a gift-card sale or payment
	RewardID   int64  // a redemption
	Quantity   int64
	CouponID   int64 // a claim
	GiftcardID int64 // a gift-card sale of a card of the catalog
}

// Counter actions.
const (
	CounterSale         = "sale"
	CounterRedeem       = "redeem"
	CounterClaim        = "claim"
	CounterGiftcardSell = "giftcard_sell"
	CounterGiftcardPay  = "giftcard_pay"
)

// counterIntents are each counter action's intent and audit action.
var counterIntents = map[string][2]string{
	CounterSale: {IntentReward, AuditSaleRecorded}, CounterRedeem: {IntentRedeem, AuditRewardRedeemed},
	CounterClaim: {IntentClaimCoupon, AuditCouponClaimed}, CounterGiftcardSell: {IntentGiftcardBuy, AuditGiftcardSold},
	CounterGiftcardPay: {IntentGiftcardPay, AuditGiftcardPaid},
}

// Act performs a counter action for a customer under an Idempotency-Key:
// the key's first request acts, a repeat gets the first one's result (or
// refusal) and acts never. The audit log records the action once.
func (d *CustomerDesk) Act(ctx context.Context, a Actor, customerID, action string, in CounterAction, idem *Idempotency) (Transaction, error) {
	kind, ok := counterIntents[action]
	if !ok {
		return Transaction{}, Errorf(ENotFound, "No such counter action.")
	}
	if idem == nil || idem.Key == "" {
		return Transaction{}, Invalid("idempotency_key", "The form has no Idempotency-Key: reload the page.")
	}
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return Transaction{}, err
	}
	ti := TransactionInput{Intent: Some(kind[0]), Customer: Some(CustomerRef{ID: Some(c.ID)})}
	after := map[string]string{}
	v := Validation{}
	switch action {
	case CounterSale, CounterGiftcardPay:
		m, err := parseAmount(in.Amount)
		if err != nil {
			return Transaction{}, err
		}
		ti.Amount, after["amount"] = Some(m), m.String()
	case CounterRedeem:
		if in.RewardID <= 0 {
			v.Add("reward", "Choose a reward.")
		}
		if in.Quantity <= 0 {
			v.Add("quantity", "The quantity must be at least 1.")
		}
		ti.CatalogItems = Some([]ItemInput{{ID: Some(in.RewardID), Quantity: Some(in.Quantity)}})
		after["reward"], after["quantity"] = itoa64(in.RewardID), itoa64(in.Quantity)
	case CounterClaim:
		ti.Coupon, after["coupon"] = Some(IntRef{ID: Some(in.CouponID)}), itoa64(in.CouponID)
	case CounterGiftcardSell:
		if in.GiftcardID > 0 {
			ti.Giftcard, after["giftcard"] = Some(IntRef{ID: Some(in.GiftcardID)}), itoa64(in.GiftcardID)
		} else if m, err := parseAmount(in.Amount); err != nil {
			return Transaction{}, err
		} else {
			ti.Amount, after["amount"] = Some(m), m.String()
		}
	}
	if err := v.Err(); err != nil {
		return Transaction{}, err
	}
	var t Transaction
	err = audited(ctx, a, kind[1], customerName(c), nil, after, func(ctx context.Context) error {
		out, reply, err := d.Services.Transactions.Create(ctx, b, ti, idem)
		switch {
		case err != nil:
			return err
		case reply != nil && reply.Err != nil:
			return reply.Err
		case reply != nil:
			out = reply.Transaction
		}
		t = out
		return nil
	})
	return t, fieldsAs(err, map[string]string{"catalog_items": "reward", "catalog_items.0.id": "reward",
		"catalog_items.0.quantity": "quantity", "coupon.id": "coupon", "giftcard.id": "giftcard"})
}

// CounterCustomer is a customer as the counter serves them.
type CounterCustomer struct {
	Customer  Customer
	Coupons   []Coupon      // coupons to claim
	Rewards   []Reward      // catalogue items the customer may redeem now
	Giftcards []Giftcard    // gift cards of the catalogue on sale now
	Recent    []Transaction // the latest entries, newest first
}

// CounterRecent is how many of the latest entries the counter shows.
const CounterRecent = 5

// Serve reads what the counter shows of a customer.
func (d *CustomerDesk) Serve(ctx context.Context, a Actor, id string) (CounterCustomer, error) {
	b, c, err := d.forCounter(ctx, a, id)
	if err != nil {
		return CounterCustomer{}, err
	}
	out := CounterCustomer{Customer: c}
	all := ListQuery{Page: 1, PerPage: 100}
	if out.Coupons, _, err = d.Services.Offers.AvailableCoupons(ctx, b, c.ID, all); err != nil {
		return out, err
	}
	if out.Rewards, _, err = d.Services.Rewards.CustomerRewards(ctx, b, c.ID, all); err != nil {
		return out, err
	}
	cards, _, err := d.Services.Giftcards.List(ctx, b, all)
	if err != nil {
		return out, err
	}
	now := d.Store.Now()
	for _, g := range cards {
		if g.Available(now) {
			out.Giftcards = append(out.Giftcards, g)
		}
	}
	page, err := d.Services.Transactions.History(ctx, b, c.ID, ListQuery{Page: 1, PerPage: CounterRecent}, TransactionWith{})
	out.Recent = page.Entries
	return out, err
}
