package loyalty

import "context"

// GiftcardInput is the body of a gift card create or update. Every field
// records whether it was sent.
type GiftcardInput struct {
	Title         Opt[string]   `json:"title"`
	Description   Opt[string]   `json:"description"`
	ExpiresAt     Opt[string]   `json:"expires_at"`
	Images        Opt[[]Image]  `json:"images"`
	Enabled       Opt[bool]     `json:"enabled"`
	Points        Opt[int64]    `json:"points"`
	DiscountValue Opt[Money]    `json:"discount_value"`
	RealValue     Opt[Money]    `json:"real_value"`
	MultipFactor  Opt[Money]    `json:"multip_factor"`
	Branches      Opt[[]string] `json:"branches"`
}

// shared returns the fields every catalog object has.
func (in *GiftcardInput) shared() catalogInput {
	return catalogInput{in.Title, in.Description, in.ExpiresAt, in.Images, in.Enabled}
}

// GiftcardListSpec says how GET /giftcards is paged and filtered.
var GiftcardListSpec = ListSpec{
	Fields:         map[string]FilterKind{"created_at": KindTime, "updated_at": KindTime},
	Reserved:       []string{"relationships"},
	DefaultPerPage: 100,
}

// GiftcardService holds the rules for the gift cards a business sells.
type GiftcardService struct {
	Store Store
}

// Create adds a gift card: discount_value is the credit it gives,
// real_value its price.
func (s *GiftcardService) Create(ctx context.Context, b Business, in GiftcardInput) (Giftcard, error) {
	g := Giftcard{BusinessID: b.ID, Enabled: true, Images: []Image{}}
	v := Validation{}
	for field, sent := range map[string]bool{"discount_value": in.DiscountValue.Set, "real_value": in.RealValue.Set} {
		if !sent {
			v.Add(field, "The "+field+" field is required.")
		}
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		g.CreatedAt, g.UpdatedAt = now, now
		if err := s.apply(ctx, tx, v, b, &in, &g, true); err != nil {
			return err
		}
		return tx.InsertGiftcard(ctx, &g)
	})
	return g, err
}

// Update changes the fields sent.
func (s *GiftcardService) Update(ctx context.Context, b Business, id string, in GiftcardInput) (Giftcard, error) {
	gid, err := intID("gift card", id)
	if err != nil {
		return Giftcard{}, err
	}
	var out Giftcard
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		g, err := liveGiftcard(ctx, tx, b.ID, gid)
		if err != nil {
			return err
		}
		if err := s.apply(ctx, tx, Validation{}, b, &in, &g, false); err != nil {
			return err
		}
		g.UpdatedAt = tx.Now()
		out = g
		return tx.UpdateGiftcard(ctx, &g)
	})
	return out, err
}

// Delete stops selling a gift card; the credit already sold stays.
func (s *GiftcardService) Delete(ctx context.Context, b Business, id string) error {
	gid, err := intID("gift card", id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		g, err := liveGiftcard(ctx, tx, b.ID, gid)
		if err != nil {
			return err
		}
		g.Deleted, g.UpdatedAt = true, tx.Now()
		return tx.UpdateGiftcard(ctx, &g)
	})
}

// Get returns one gift card of the business.
func (s *GiftcardService) Get(ctx context.Context, b Business, id string) (Giftcard, error) {
	gid, err := intID("gift card", id)
	if err != nil {
		return Giftcard{}, err
	}
	return s.Store.Giftcard(ctx, b.ID, gid)
}

// List pages the gift cards of the business.
func (s *GiftcardService) List(ctx context.Context, b Business, q ListQuery) ([]Giftcard, int, error) {
	return s.Store.Giftcards(ctx, b.ID, q)
}

// liveGiftcard reads a gift card that is not deleted inside tx.
func liveGiftcard(ctx context.Context, tx Tx, businessID string, id int64) (Giftcard, error) {
	g, err := tx.Giftcard(ctx, businessID, id)
	if err == nil && g.Deleted {
		err = Errorf(ENotFound, "Gift card not found.")
	}
	return g, err
}

// apply validates in, merges it into g and checks the card as a whole.
func (s *GiftcardService) apply(ctx context.Context, tx Tx, v Validation, b Business, in *GiftcardInput, g *Giftcard, create bool) error {
	in.shared().apply(v, catalogFields{&g.Title, &g.Description, &g.ExpiresAt, &g.Images, &g.Enabled}, create)
	setPoints(v, "points", in.Points, &g.Points)
	setMoney(v, "discount_value", in.DiscountValue, &g.DiscountValue)
	setMoney(v, "real_value", in.RealValue, &g.RealValue)
	setMoney(v, "multip_factor", in.MultipFactor, &g.MultipFactor)
	b.checkSent(v, map[string]Opt[Money]{"discount_value": in.DiscountValue, "real_value": in.RealValue})
	if in.Branches.Set {
		ids, err := checkBranches(ctx, tx, v, b.ID, "branches", in.Branches.V)
		if err != nil {
			return err
		}
		g.BranchIDs = ids
	}
	if !v.Has("discount_value") && g.DiscountValue <= 0 {
		v.Add("discount_value", "The discount value (the card's value) must be greater than 0.")
	}
	if !v.Has("real_value") && g.RealValue <= 0 {
		v.Add("real_value", "The real value (the card's price) must be greater than 0.")
	}
	if !v.Has("multip_factor") && g.MultipFactor > 100_00 {
		v.Add("multip_factor", "The multip factor may not be greater than 100.")
	}
	return v.Err()
}
