package loyalty

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// PunchCard is a frequent-buyer program (/punch-cards): qualifying
// purchases stamp a customer's card, and every StampsRequired stamps
// issue a coupon of its reward offer, the stamps beyond carried over.
// With products or categories each qualifying unit of a basket is a stamp
// (on a sale of at least MinAmount); without, each reward for a spend of
// at least MinAmount is one.
type PunchCard struct {
	ID             int64
	BusinessID     string
	Name           string
	StampsRequired int64
	Qualifies      PunchQualifies
	RewardOfferID  int64
	Enabled        bool
	Deleted        bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// PunchQualifies is what stamps a card.
type PunchQualifies struct {
	Products   []int64 `json:"products,omitempty"`
	Categories []int64 `json:"categories,omitempty"`
	MinAmount  Money   `json:"min_amount,omitempty"`
}

// PunchProgress is where a customer stands on a card: the stamps held and
// how many times the card was completed.
type PunchProgress struct {
	CardID    int64
	Stamps    int64
	Completed int64
}

// CardStamps are the stamps a sale gives a card.
type CardStamps struct {
	Card   PunchCard
	Stamps int64
}

// stampsOf returns the stamps a sale gives each enabled card: none
// without a customer or below a card's minimum amount.
func stampsOf(s *sale, customer string, cards []PunchCard) []CardStamps {
	var out []CardStamps
	if customer == "" || s.amount <= 0 {
		return nil
	}
	for _, c := range cards {
		if !c.Enabled || c.Deleted || s.amount < c.Qualifies.MinAmount {
			continue
		}
		q := c.Qualifies
		n := int64(0)
		if len(q.Products) == 0 && len(q.Categories) == 0 {
			n = 1
		} else if s.items {
			for _, l := range s.lines {
				if l.product != 0 && slices.Contains(q.Products, l.product) || l.category != 0 && slices.Contains(q.Categories, l.category) {
					n += l.units
				}
			}
		}
		if n > 0 {
			out = append(out, CardStamps{Card: c, Stamps: n})
		}
	}
	return out
}

// complete returns, for a card's stamps after a sale, the stamps kept
// and the completions they make.
func (c PunchCard) complete(stamps int64) (kept, completions int64) {
	if c.StampsRequired <= 0 {
		return stamps, 0
	}
	return stamps % c.StampsRequired, stamps / c.StampsRequired
}

// PunchCardStore reads and writes punch cards and customers' progress.
type PunchCardReader interface {
	// PunchCard returns one card of a business, deleted or not.
	PunchCard(ctx context.Context, businessID string, id int64) (PunchCard, error)
	// PunchCardPage pages the live cards of a business, oldest first.
	PunchCardPage(ctx context.Context, businessID string, q ListQuery) ([]PunchCard, int, error)
	// PunchCards returns every live card of a business.
	PunchCards(ctx context.Context, businessID string) ([]PunchCard, error)
	// PunchProgress returns a customer's progress on the cards, by card.
	PunchProgress(ctx context.Context, businessID, customerID string) (map[int64]PunchProgress, error)
}

// PunchCardTx writes cards and stamps in a transaction.
type PunchCardTx interface {
	PunchCard(ctx context.Context, businessID string, id int64) (PunchCard, error)
	InsertPunchCard(ctx context.Context, c *PunchCard) error
	// UpdatePunchCard writes every field; a Deleted card is stamped
	// deleted at its UpdatedAt.
	UpdatePunchCard(ctx context.Context, c *PunchCard) error
	// PunchCards returns every live card of a business.
	PunchCards(ctx context.Context, businessID string) ([]PunchCard, error)
	// AddStamps adds n stamps to a customer's card for the entry
	// entryID (kept with it) and returns the stamps the card then holds;
	// concurrent stamps of one card wait for each other.
	AddStamps(ctx context.Context, cardID int64, customerID string, entryID, n int64, at time.Time) (int64, error)
	// SetStamps sets the stamps a customer's card holds and adds to the
	// times it was completed.
	SetStamps(ctx context.Context, cardID int64, customerID string, stamps, completed int64) error
	// EntryStamps returns the stamps each of the entries gave (a return's
	// are negative), by entry and card.
	EntryStamps(ctx context.Context, entryIDs []int64) (map[int64]map[int64]int64, error)
}

// PunchCardListSpec says how GET /punch-cards is paged.
var PunchCardListSpec = ListSpec{DefaultPerPage: 100}

// Limits of a punch card.
const maxStampsRequired = 1000

// PunchCardInput is the body of POST and PUT /punch-cards.
type PunchCardInput struct {
	Name           Opt[string]          `json:"name"`
	StampsRequired Opt[int64]           `json:"stamps_required"`
	Qualifies      Opt[json.RawMessage] `json:"qualifies"`
	RewardOfferID  Opt[int64]           `json:"reward_offer_id"`
	Enabled        Opt[bool]            `json:"enabled"`
}

type qualifiesInput struct {
	Products   Opt[[]int64] `json:"products"`
	Categories Opt[[]int64] `json:"categories"`
	MinAmount  Opt[Money]   `json:"min_amount"`
}

// PunchCardService holds the rules of punch cards.
type PunchCardService struct {
	Store Store
}

func punchCardNotFound() error { return Errorf(ENotFound, "Punch card not found.") }

// Get returns one live card.
func (s *PunchCardService) Get(ctx context.Context, b Business, id string) (PunchCard, error) {
	cid, err := intID("punch card", id)
	if err != nil {
		return PunchCard{}, err
	}
	c, err := s.Store.PunchCard(ctx, b.ID, cid)
	if err == nil && c.Deleted {
		err = punchCardNotFound()
	}
	return c, err
}

// List pages the live cards.
func (s *PunchCardService) List(ctx context.Context, b Business, q ListQuery) ([]PunchCard, int, error) {
	return s.Store.PunchCardPage(ctx, b.ID, q)
}

// Save creates a card (id "") or changes the fields sent of one.
func (s *PunchCardService) Save(ctx context.Context, b Business, id string, in PunchCardInput) (PunchCard, error) {
	var out PunchCard
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		c := PunchCard{BusinessID: b.ID, Enabled: true, CreatedAt: tx.Now()}
		if id != "" {
			cid, err := intID("punch card", id)
			if err != nil {
				return err
			}
			if c, err = tx.PunchCard(ctx, b.ID, cid); err == nil && c.Deleted {
				err = punchCardNotFound()
			}
			if err != nil {
				return err
			}
		}
		if err := in.apply(ctx, tx, b, &c, id == ""); err != nil {
			return err
		}
		c.UpdatedAt = tx.Now()
		out = c
		if id == "" {
			return tx.InsertPunchCard(ctx, &out)
		}
		return tx.UpdatePunchCard(ctx, &out)
	})
	return out, err
}

// Delete ends a card: no purchase stamps it any more; the coupons it
// issued stay.
func (s *PunchCardService) Delete(ctx context.Context, b Business, id string) error {
	cid, err := intID("punch card", id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		c, err := tx.PunchCard(ctx, b.ID, cid)
		if err == nil && c.Deleted {
			err = punchCardNotFound()
		}
		if err != nil {
			return err
		}
		c.Deleted, c.UpdatedAt = true, tx.Now()
		return tx.UpdatePunchCard(ctx, &c)
	})
}

// apply validates in and merges it into c.
func (in *PunchCardInput) apply(ctx context.Context, tx Tx, b Business, c *PunchCard, create bool) error {
	v := Validation{}
	if n, ok := in.Name.Value(); ok && strings.TrimSpace(n) != "" && len(strings.TrimSpace(n)) <= maxEarningRuleName {
		c.Name = strings.TrimSpace(n)
	} else if in.Name.Set || create {
		v.Add("name", "The name field is required: 1 to "+itoa(maxEarningRuleName)+" characters.")
	}
	if n, ok := in.StampsRequired.Value(); ok && n >= 1 && n <= maxStampsRequired {
		c.StampsRequired = n
	} else if in.StampsRequired.Set || create {
		v.Add("stamps_required", "The stamps_required must be a whole number from 1 to "+itoa(maxStampsRequired)+".")
	}
	if e, ok := in.Enabled.Value(); ok {
		c.Enabled = e
	} else if in.Enabled.Null {
		v.Add("enabled", "The enabled field must be true or false.")
	}
	if id, ok := in.RewardOfferID.Value(); ok {
		o, err := tx.Offer(ctx, b.ID, id)
		switch {
		case ErrorCode(err) == ENotFound || err == nil && o.Deleted:
			v.Add("reward_offer_id", "No live offer of the business has the id "+itoa64(id)+".")
		case err != nil:
			return err
		case o.TypeID == OfferPointsMultiplier || o.TypeID == OfferBonusPoints:
			v.Add("reward_offer_id", "The reward offer must be a coupon offer; a points offer issues no coupon.")
		default:
			c.RewardOfferID = id
		}
	} else if in.RewardOfferID.Set || create {
		v.Add("reward_offer_id", "The reward_offer_id field is required: the coupon offer a full card issues.")
	}
	if raw, ok := in.Qualifies.Value(); ok {
		var q qualifiesInput
		if strictObject(v, "qualifies", raw, &q) {
			c.Qualifies = PunchQualifies{}
			var err error
			if c.Qualifies.Products, err = checkRefs(ctx, v, "qualifies.products", q.Products.V, func(id int64) (bool, error) {
				p, err := tx.Product(ctx, b.ID, id)
				return err == nil && !p.Deleted, notFoundOK(err)
			}); err != nil {
				return err
			}
			if c.Qualifies.Categories, err = checkRefs(ctx, v, "qualifies.categories", q.Categories.V, func(id int64) (bool, error) {
				cat, err := tx.ProductCategory(ctx, b.ID, id)
				return err == nil && !cat.Deleted, notFoundOK(err)
			}); err != nil {
				return err
			}
			if m, ok := q.MinAmount.Value(); ok && m >= 0 && m <= MaxMoney {
				c.Qualifies.MinAmount = m
			} else if q.MinAmount.Set {
				v.Add("qualifies.min_amount", "The min_amount must be an amount of 0 or more.")
			}
			b.checkSent(v, map[string]Opt[Money]{"qualifies.min_amount": q.MinAmount})
		}
	} else if in.Qualifies.Null {
		c.Qualifies = PunchQualifies{}
	}
	return v.Err()
}

// stampCards gives a reward's stamps to its customer's cards, in its
// transaction: a card that reaches its stamps issues a coupon of its
// reward offer for each time it is full, and keeps the stamps beyond.
func stampCards(ctx context.Context, tx Tx, b Business, e *Transaction, stamps []CardStamps) error {
	now := tx.Now()
	for _, cs := range stamps {
		total, err := tx.AddStamps(ctx, cs.Card.ID, e.CustomerID, e.ID, cs.Stamps, now)
		if err != nil {
			return err
		}
		kept, completions := cs.Card.complete(total)
		if completions == 0 {
			continue
		}
		if err := tx.SetStamps(ctx, cs.Card.ID, e.CustomerID, kept, completions); err != nil {
			return err
		}
		o, err := tx.Offer(ctx, b.ID, cs.Card.RewardOfferID)
		if err != nil {
			return err
		}
		for range completions {
			if err := issueCoupon(ctx, tx, b.ID, e, o, cs.Card.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// issueCoupon issues the reward e's customer a coupon of the offer o, as
// given by e (by a coupon rule, or by filling the punch card cardID), in
// e's transaction, with its coupon.issued event.
func issueCoupon(ctx context.Context, tx Tx, businessID string, e *Transaction, o Offer, cardID int64) error {
	now := tx.Now()
	kind := o.CouponKind
	if kind != CouponConvertible {
		kind = CouponRegular
	}
	c := Coupon{BusinessID: businessID, OfferID: o.ID, CustomerID: e.CustomerID, QRCode: newQRCode(), CouponTypeID: kind,
		ExpiresAt: o.CouponExpiry(now), CreatedAt: now, UpdatedAt: now, Offer: o, EntryID: e.ID, PunchCardID: cardID}
	if err := tx.InsertCoupon(ctx, &c); err != nil {
		return err
	}
	return record(ctx, tx, businessID, EventCouponIssued, newCouponEventJSON(c))
}
