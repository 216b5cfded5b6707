package console

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The counter is where a cashier serves the customer in front of them:
// find them by what they show (e-mail, phone, the customer code or a
// coupon's code in their app), record a sale after seeing what it earns,
// redeem a reward, claim a coupon, sell or pay with a gift card. Every
// action carries an Idempotency-Key, so a double click or a reload acts
// once.

// CounterMatch is what a code typed or scanned at the counter found.
type CounterMatch struct {
	Customers []loyalty.Customer
	Coupon    *loyalty.Coupon  // the coupon whose code it was, with its offer
	Voucher   *loyalty.Voucher // the member's voucher whose code it was
	// ByName is set when the text was read as the start of a name: the
	// customers are the first CounterNames to pick from, More set when
	// more have it.
	ByName bool
	More   bool
}

// CounterNames is how many customers a search by name lists at the
// counter: a short list to pick from, not a directory.
const CounterNames = 10

// Find looks up what a cashier typed or scanned: an e-mail address, a
// phone number, a customer code (the customer's id, as the customer's app
// shows it), a member's rotating code (their wallet's QR code), a
// member's voucher, a coupon's qrcode, or else the start of
// a customer's name.
func (d *CustomerDesk) Find(ctx context.Context, a loyalty.Actor, code string) (CounterMatch, error) {
	if err := a.Require(loyalty.PermCounter); err != nil {
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
		return m, loyalty.Invalid("code", "Type or scan an e-mail address, a phone number, or a customer, voucher or coupon code.")
	case strings.Contains(code, "@") || isPhoneLike(code):
		m.Customers, err = d.on(b).Customers.Lookup(ctx, b, code)
		return m, fieldsAs(err, map[string]string{"q": "code"})
	case loyalty.IsMemberCode(code):
		// The rotating code of a member's wallet: this minute's or the
		// last; an older one (a screenshot) finds no one.
		c, err := d.on(b).MemberCodes.Customer(ctx, b, code)
		if loyalty.ErrorCode(err) == loyalty.ENotFound {
			return m, nil
		}
		m.Customers = []loyalty.Customer{c}
		return m, err
	case loyalty.ValidID(strings.ToLower(code)):
		c, err := d.on(b).Customers.Get(ctx, b, code)
		if loyalty.ErrorCode(err) == loyalty.ENotFound {
			return m, nil
		}
		m.Customers = []loyalty.Customer{c}
		return m, err
	}
	if _, ok := loyalty.NormalVoucherCode(code); ok {
		v, err := d.on(b).Vouchers.Voucher(ctx, b, code)
		if err == nil {
			c, err := d.on(b).Customers.Get(ctx, b, v.CustomerID)
			if err != nil {
				return m, err
			}
			m.Customers, m.Voucher = []loyalty.Customer{c}, &v
			return m, nil
		} else if loyalty.ErrorCode(err) != loyalty.ENotFound {
			return m, err
		}
	}
	cp, err := d.Store.CouponByCode(ctx, b.ID, strings.ToUpper(code))
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return d.byName(ctx, b, code)
	} else if err != nil {
		return m, err
	}
	c, err := d.on(b).Customers.Get(ctx, b, cp.CustomerID)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return m, nil
	} else if err != nil {
		return m, err
	}
	m.Customers, m.Coupon = []loyalty.Customer{c}, &cp
	return m, nil
}

// byName finds the customers of b whose first name, last name or full
// name starts with name, newest first.
func (d *CustomerDesk) byName(ctx context.Context, b loyalty.Business, name string) (CounterMatch, error) {
	f := loyalty.CustomerFilter{NamePrefix: strings.ToLower(strings.Join(strings.Fields(name), " "))}
	list, total, err := d.Store.SearchCustomers(ctx, b.ID, f, 0, CounterNames)
	if err != nil {
		return CounterMatch{}, err
	}
	return CounterMatch{Customers: list, ByName: true, More: total > len(list)}, nil
}

// SalePreview is what a sale would earn, and why.
type SalePreview struct {
	Amount  loyalty.Money
	Points  int64
	Applied []loyalty.Outcome
	Lines   []PreviewLine // the basket's lines, each with its price
	Unknown []string      // the lines' SKUs no product has
	Stamps  []loyalty.CardStamps
	Coupons []string // the titles of the coupons the sale would issue
}

// PreviewLine is a line of a sale's basket with its unit price (typed,
// or its product's) and its total.
type PreviewLine struct {
	SaleLine
	Unit, Total loyalty.Money
}

// PreviewSale evaluates what a sale would earn the customer now, under
// the earning rules, the points per spend and the active offers, writing
// nothing: a sale of amount, or of lines (SKUs with their quantities and
// prices, a line without a price at its product's).
func (d *CustomerDesk) PreviewSale(ctx context.Context, a loyalty.Actor, customerID, amount string, lines []SaleLine) (SalePreview, error) {
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return SalePreview{}, err
	}
	svc := d.on(b)
	in := loyalty.EvaluateInput{Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})}
	var items []loyalty.BasketItemInput
	if len(lines) > 0 {
		if items, err = basketItems(ctx, svc.Products, b, lines); err != nil {
			return SalePreview{}, err
		}
		in.Items = loyalty.Some(items)
	} else {
		m, err := parseAmount(amount)
		if err != nil {
			return SalePreview{}, err
		}
		in.Amount = loyalty.Some(m)
	}
	ev, err := svc.Transactions.Evaluate(ctx, b, in)
	if err != nil {
		return SalePreview{}, err
	}
	out := SalePreview{Amount: ev.EligibleAmount, Points: ev.Points, Applied: ev.Applied, Unknown: ev.UnknownSKUs, Stamps: ev.Stamps}
	for _, c := range ev.Coupons {
		o, err := svc.Offers.Get(ctx, b, strconv.FormatInt(c.OfferID, 10))
		if loyalty.ErrorCode(err) == loyalty.ENotFound {
			o.Title = "offer #" + strconv.FormatInt(c.OfferID, 10)
		} else if err != nil {
			return SalePreview{}, err
		}
		out.Coupons = append(out.Coupons, o.Title)
	}
	if len(items) > 0 {
		out.Amount = 0
		for _, it := range items {
			n := max(it.Quantity.V, 1)
			l := PreviewLine{SaleLine: SaleLine{SKU: it.SKU.V, Quantity: strconv.FormatInt(n, 10), Price: it.Price.V.String()},
				Unit: it.Price.V, Total: loyalty.Money(n) * it.Price.V}
			out.Lines = append(out.Lines, l)
			out.Amount += l.Total
		}
		return out, nil
	}
	out.Amount = in.Amount.V
	return out, nil
}

// parseAmount reads a sum of money typed in a form.
func parseAmount(s string) (loyalty.Money, error) {
	m, err := loyalty.ParseMoney(strings.TrimSpace(s))
	if err != nil || m <= 0 {
		return 0, loyalty.Invalid("amount", "Enter an amount greater than 0, such as 12.50.")
	}
	return m, nil
}

// forCounter reads the customer a counter action is on.
func (d *CustomerDesk) forCounter(ctx context.Context, a loyalty.Actor, id string) (loyalty.Business, loyalty.Customer, error) {
	if err := a.Require(loyalty.PermCounter); err != nil {
		return loyalty.Business{}, loyalty.Customer{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return loyalty.Business{}, loyalty.Customer{}, err
	}
	c, err := d.on(b).Customers.Get(ctx, b, id)
	return b, c, err
}

// CounterAction is one action at the counter, as its form sends it.
type CounterAction struct {
	Amount     string     // a sale, a gift-card sale or payment
	Items      []SaleLine // a sale of a basket (then without Amount)
	RewardID   int64      // a redemption
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
	CounterSale: {loyalty.IntentReward, loyalty.AuditSaleRecorded}, CounterRedeem: {loyalty.IntentRedeem, loyalty.AuditRewardRedeemed},
	CounterClaim: {loyalty.IntentClaimCoupon, loyalty.AuditCouponClaimed}, CounterGiftcardSell: {loyalty.IntentGiftcardBuy, loyalty.AuditGiftcardSold},
	CounterGiftcardPay: {loyalty.IntentGiftcardPay, loyalty.AuditGiftcardPaid},
}

// Act performs a counter action for a customer under an Idempotency-Key:
// the key's first request acts, a repeat gets the first one's result (or
// refusal) and acts never. The audit log records the action once.
func (d *CustomerDesk) Act(ctx context.Context, a loyalty.Actor, customerID, action string, in CounterAction, idem *loyalty.Idempotency) (loyalty.Transaction, error) {
	kind, ok := counterIntents[action]
	if !ok {
		return loyalty.Transaction{}, loyalty.Errorf(loyalty.ENotFound, "No such counter action.")
	}
	if idem == nil || idem.Key == "" {
		return loyalty.Transaction{}, loyalty.Invalid("idempotency_key", "The form has no Idempotency-Key: reload the page.")
	}
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return loyalty.Transaction{}, err
	}
	ti := loyalty.TransactionInput{Intent: loyalty.Some(kind[0]), Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})}
	after := map[string]string{}
	v := loyalty.Validation{}
	switch action {
	case CounterSale, CounterGiftcardPay:
		if action == CounterSale && len(in.Items) > 0 {
			items, err := basketItems(ctx, d.on(b).Products, b, in.Items)
			if err != nil {
				return loyalty.Transaction{}, err
			}
			ti.Items, after["items"] = loyalty.Some(items), strconv.Itoa(len(items))+" lines"
			break
		}
		m, err := parseAmount(in.Amount)
		if err != nil {
			return loyalty.Transaction{}, err
		}
		ti.Amount, after["amount"] = loyalty.Some(m), m.String()
	case CounterRedeem:
		if in.RewardID <= 0 {
			v.Add("reward", "Choose a reward.")
		}
		if in.Quantity <= 0 {
			v.Add("quantity", "The quantity must be at least 1.")
		}
		ti.CatalogItems = loyalty.Some([]loyalty.ItemInput{{ID: loyalty.Some(in.RewardID), Quantity: loyalty.Some(in.Quantity)}})
		after["reward"], after["quantity"] = strconv.FormatInt(in.RewardID, 10), strconv.FormatInt(in.Quantity, 10)
	case CounterClaim:
		ti.Coupon, after["coupon"] = loyalty.Some(loyalty.IntRef{ID: loyalty.Some(in.CouponID)}), strconv.FormatInt(in.CouponID, 10)
	case CounterGiftcardSell:
		if in.GiftcardID > 0 {
			ti.Giftcard, after["giftcard"] = loyalty.Some(loyalty.IntRef{ID: loyalty.Some(in.GiftcardID)}), strconv.FormatInt(in.GiftcardID, 10)
		} else if m, err := parseAmount(in.Amount); err != nil {
			return loyalty.Transaction{}, err
		} else {
			ti.Amount, after["amount"] = loyalty.Some(m), m.String()
		}
	}
	if err := v.Err(); err != nil {
		return loyalty.Transaction{}, err
	}
	var t loyalty.Transaction
	err = loyalty.Audited(a, kind[1], customerName(c), nil, after, func(r *loyalty.AuditRecord) error {
		out, reply, err := d.on(b).AuditedBy(r).Transactions.Create(ctx, b, ti, idem)
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
	Customer  loyalty.Customer
	Coupons   []loyalty.Coupon      // coupons to claim
	Rewards   []loyalty.Reward      // catalogue items the customer may redeem now
	Giftcards []loyalty.Giftcard    // gift cards of the catalogue on sale now
	Recent    []loyalty.Transaction // the latest entries, newest first
	// Vouchers are the member's vouchers waiting to be handed over, and
	// the one scanned (whatever its state), newest first.
	Vouchers []loyalty.Voucher
	Now      time.Time // the business's time the page is drawn at
}

// CounterRecent is how many of the latest entries the counter shows.
const CounterRecent = 5

// Serve reads what the counter shows of a customer;
// scanned is the code of a voucher just scanned, shown whatever its state.
func (d *CustomerDesk) Serve(ctx context.Context, a loyalty.Actor, id, scanned string) (CounterCustomer, error) {
	b, c, err := d.forCounter(ctx, a, id)
	if err != nil {
		return CounterCustomer{}, err
	}
	svc := d.on(b)
	out := CounterCustomer{Customer: c}
	all := loyalty.ListQuery{Page: 1, PerPage: 100}
	if out.Coupons, _, err = svc.Offers.AvailableCoupons(ctx, b, c.ID, all); err != nil {
		return out, err
	}
	if out.Rewards, _, err = svc.Rewards.CustomerRewards(ctx, b, c.ID, all); err != nil {
		return out, err
	}
	cards, _, err := svc.Giftcards.List(ctx, b, all)
	if err != nil {
		return out, err
	}
	now := loyalty.ClockedStore(d.Store, b.ClockOffset).Now()
	for _, g := range cards {
		if g.Available(now) {
			out.Giftcards = append(out.Giftcards, g)
		}
	}
	vouchers, err := svc.Vouchers.Vouchers(ctx, b, c.ID)
	if err != nil {
		return out, err
	}
	out.Now = now
	for _, v := range vouchers {
		if v.State(now) == loyalty.VoucherIssued || v.Code == scanned {
			out.Vouchers = append(out.Vouchers, v)
		}
	}
	page, err := svc.Transactions.History(ctx, b, c.ID, loyalty.ListQuery{Page: 1, PerPage: CounterRecent}, loyalty.TransactionWith{})
	out.Recent = page.Entries
	return out, err
}
