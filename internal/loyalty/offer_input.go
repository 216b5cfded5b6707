package loyalty

import (
	"context"
	"strings"
)

// maxExternalID bounds the business's own reference of an offer or reward.
const maxExternalID = 64

// maxCouponDays bounds coupon_expires_in.
const maxCouponDays = 3650

// OfferInput is the body of an offer create or update. Every field records
// whether it was sent. Besides its own names it takes the reference
// platform's body (targeted_offer_flag, publish_at, available_at_branches,
// offer_languages, ...): each of those is honoured or refused with 422.
type OfferInput struct {
	Title         Opt[string]   `json:"title"`
	Description   Opt[string]   `json:"description"`
	ExpiresAt     Opt[string]   `json:"expires_at"`
	Images        Opt[[]Image]  `json:"images"`
	Enabled       Opt[bool]     `json:"enabled"`
	TypeID        Opt[int]      `json:"type_id"`
	Points        Opt[int64]    `json:"points"`
	MultipFactor  Opt[Money]    `json:"multip_factor"`
	DiscountValue Opt[Money]    `json:"discount_value"`
	RealValue     Opt[Money]    `json:"real_value"`
	StartsAt      Opt[string]   `json:"starts_at"`
	Branches      Opt[[]string] `json:"branches"`
	Targeted      Opt[bool]     `json:"targeted"`
	Customers     Opt[[]string] `json:"customers"`
	Convertible   Opt[bool]     `json:"convertible"`

	PublishAt           Opt[string]               `json:"publish_at"`
	TargetedOfferFlag   Opt[int]                  `json:"targeted_offer_flag"`
	NeverExpiresFlag    Opt[int]                  `json:"never_expires_flag"`
	AvailableAtBranches Opt[[]StringRef]          `json:"available_at_branches"`
	OfferLanguages      Opt[[]OfferLanguageInput] `json:"offer_languages"`
	ExternalID          Opt[string]               `json:"external_id"`
	MinPurchase         Opt[Money]                `json:"min_purchase"`
	MaxPurchase         Opt[Money]                `json:"max_purchase"`
	OfferFrequencyID    Opt[int]                  `json:"offer_frequency_id"`
	FreqDetails         Opt[any]                  `json:"freq_details"`
	PeakFrom            Opt[any]                  `json:"peak_from"`
	PeakTo              Opt[any]                  `json:"peak_to"`
	AppsOnly            Opt[bool]                 `json:"apps_only"`
	CouponAutoGet       Opt[int]                  `json:"coupon_auto_get"`
	CouponPermAvailable Opt[int]                  `json:"coupon_perm_available"`
	CouponExpiresIn     Opt[int64]                `json:"coupon_expires_in"`
}

// OfferLanguageInput is one entry of offer_languages. The reference names
// the title and description offer_title and offer_description, and, in one
// of its data structures, title and description: both are read.
type OfferLanguageInput struct {
	LanguageID       Opt[int]    `json:"language_id"`
	OfferTitle       Opt[string] `json:"offer_title"`
	Title            Opt[string] `json:"title"`
	OfferDescription Opt[string] `json:"offer_description"`
	Description      Opt[string] `json:"description"`
	TermsConditions  Opt[string] `json:"offer_terms_conditions"`
	Link             Opt[string] `json:"offer_link"`
	Product          Opt[string] `json:"offer_product"`
}

// shared returns the fields every catalog object has.
func (in *OfferInput) shared() catalogInput {
	return catalogInput{in.Title, in.Description, in.ExpiresAt, in.Images, in.Enabled}
}

// texts returns offer_languages as the entries applyTexts reads.
func (in *OfferInput) texts() []textInput {
	out := make([]textInput, len(in.OfferLanguages.V))
	for i, l := range in.OfferLanguages.V {
		names := offerTextNames
		title, desc := l.OfferTitle, l.OfferDescription
		if !title.Set && l.Title.Set {
			title, names.title = l.Title, "title"
		}
		if !desc.Set && l.Description.Set {
			desc, names.description = l.Description, "description"
		}
		out[i] = textInput{languageID: l.LanguageID, title: title, description: desc, terms: l.TermsConditions,
			link: l.Link, product: l.Product, names: names}
	}
	return out
}

// apply validates in, merges it into o and checks the offer as a whole.
func (s *OfferService) apply(ctx context.Context, tx Tx, v Validation, b Business, in *OfferInput, o *Offer, create bool) error {
	texts := in.texts()
	b.checkSent(v, map[string]Opt[Money]{"min_purchase": in.MinPurchase, "max_purchase": in.MaxPurchase,
		"discount_value": in.DiscountValue, "real_value": in.RealValue})
	in.shared().apply(v, catalogFields{&o.Title, &o.Description, &o.ExpiresAt, &o.Images, &o.Enabled},
		create && !(in.OfferLanguages.Set && hasEnglishTitle(texts)))
	if in.OfferLanguages.Set {
		applyTexts(v, "offer_languages", texts, catalogTexts{&o.Texts, &o.Title, &o.Description, in.Title.Set, in.Description.Set}, create)
	}
	syncEnglish(o.Texts, o.Title, o.Description)
	startsAt := "starts_at"
	if in.PublishAt.Set {
		startsAt = "publish_at"
		if in.StartsAt.Set {
			v.Add("publish_at", "Send publish_at or starts_at, not both.")
		}
		setTime(v, startsAt, in.PublishAt, &o.StartsAt, false)
	} else {
		setTime(v, startsAt, in.StartsAt, &o.StartsAt, false)
	}
	setPoints(v, "points", in.Points, &o.Points)
	setMoney(v, "multip_factor", in.MultipFactor, &o.MultipFactor)
	setMoney(v, "discount_value", in.DiscountValue, &o.DiscountValue)
	setMoney(v, "real_value", in.RealValue, &o.RealValue)
	setBool(v, "targeted", in.Targeted, &o.Targeted)
	setFlag(v, "targeted_offer_flag", in.TargetedOfferFlag, &o.Targeted)
	if t, ok := in.Targeted.Value(); ok && in.TargetedOfferFlag.Set && t != o.Targeted {
		v.Add("targeted_offer_flag", "The targeted offer flag contradicts targeted.")
	}
	if c, ok := in.Convertible.Value(); ok {
		o.CouponKind = CouponRegular
		if c {
			o.CouponKind = CouponConvertible
		}
	} else if in.Convertible.Null {
		v.Add("convertible", "The convertible field must be true or false.")
	}
	never := applyNeverExpires(v, in.NeverExpiresFlag, in.ExpiresAt, &o.ExpiresAt)
	in.applyLimits(v, o)
	if err := in.applyAudience(ctx, tx, v, b, o); err != nil {
		return err
	}
	checkOfferType(v, o)
	if !v.Has("expires_at") && !v.Has(startsAt) && !o.ExpiresAt.IsZero() && !o.ExpiresAt.After(o.StartsAt) {
		v.Add("expires_at", "The expires at must be a date after "+strings.ReplaceAll(startsAt, "_", " ")+".")
	}
	if never == 0 && o.ExpiresAt.IsZero() && !v.Has("expires_at") {
		v.Add("expires_at", "The expires at is required when never_expires_flag is 0.")
	}
	return v.Err()
}

// applyAudience applies the branches and the targets of an offer.
func (in *OfferInput) applyAudience(ctx context.Context, tx Tx, v Validation, b Business, o *Offer) error {
	if err := applyBranches(ctx, tx, v, b.ID, in.Branches, in.AvailableAtBranches, &o.BranchIDs); err != nil {
		return err
	}
	if in.Customers.Set {
		ids, err := checkTargets(ctx, tx, v, b.ID, in.Customers.V)
		if err != nil {
			return err
		}
		o.TargetIDs = ids
	}
	switch {
	case !o.Targeted && len(in.Customers.V) > 0:
		v.Add("customers", "Customers can only be given for a targeted offer.")
	case !o.Targeted:
		o.TargetIDs = nil
	case in.Targeted.Set && len(o.TargetIDs) == 0:
		// targeted_offer_flag 1 alone may leave an offer for no one yet, as
		// on the reference platform (whose campaigns name the targets).
		v.Add("customers", "A targeted offer needs at least one customer.")
	}
	return nil
}

// applyLimits applies the purchase range, the frequency and the coupon
// settings, refusing the reference platform's settings the service does
// not keep.
func (in *OfferInput) applyLimits(v Validation, o *Offer) {
	setMoney(v, "min_purchase", in.MinPurchase, &o.MinPurchase)
	if m, ok := in.MaxPurchase.Value(); ok && m == 0 {
		v.Add("max_purchase", "The max purchase must be greater than 0; leave it out (or null) for no maximum.")
	} else if in.MaxPurchase.Null {
		o.MaxPurchase = 0
	} else {
		setMoney(v, "max_purchase", in.MaxPurchase, &o.MaxPurchase)
	}
	if !v.Has("min_purchase") && !v.Has("max_purchase") && o.MaxPurchase > 0 && o.MaxPurchase < o.MinPurchase {
		v.Add("max_purchase", "The max purchase may not be less than the min purchase.")
	}
	in.applyFrequency(v, o)
	if a, ok := in.AppsOnly.Value(); ok && a {
		v.Add("apps_only", "Offers only for customers signed in with the app's QR code are not supported; send false or leave it out.")
	}
	refuseFlag(v, "coupon_auto_get", in.CouponAutoGet,
		"Coupons are not claimed automatically: a coupon is issued by a get_coupon transaction. Send 0 or leave it out.")
	refuseFlag(v, "coupon_perm_available", in.CouponPermAvailable,
		"Permanently available coupons are not supported; send 0 or leave it out.")
	if d, ok := in.CouponExpiresIn.Value(); ok {
		if d < 0 || d > maxCouponDays {
			v.Add("coupon_expires_in", "The coupon expires in must be a number of days between 0 and "+itoa(maxCouponDays)+".")
		} else {
			o.CouponExpiresIn = d
		}
	} else if in.CouponExpiresIn.Null {
		o.CouponExpiresIn = 0
	}
	setExternalID(v, in.ExternalID, &o.ExternalID)
}

// checkOfferType checks the fields each type of offer needs.
func checkOfferType(v Validation, o *Offer) {
	switch o.TypeID {
	case OfferPointsMultiplier:
		if !v.Has("multip_factor") && (o.MultipFactor <= 100 || o.MultipFactor > 100_00) {
			v.Add("multip_factor", "A points multiplier needs a multip factor greater than 1 and at most 100.")
		}
	case OfferBonusPoints:
		if !v.Has("points") && o.Points <= 0 {
			v.Add("points", "A bonus points offer needs points greater than 0.")
		}
	case OfferBasic9:
		if !v.Has("discount_value") && (o.DiscountValue <= 0 || o.DiscountValue > 100_00) {
			v.Add("discount_value", "A percent-off offer needs a discount value greater than 0 and at most 100.")
		}
	case OfferBasic10:
		if !v.Has("discount_value") && o.DiscountValue <= 0 {
			v.Add("discount_value", "An amount-off offer needs a discount value greater than 0.")
		}
	}
	if o.TypeID != 0 && !o.CouponOffer() && o.CouponKind == CouponConvertible {
		v.Add("convertible", "Only coupon offers (type 2, 8, 9, 10) can be convertible.")
	}
	if o.TypeID != 0 && !o.CouponOffer() && o.CouponExpiresIn > 0 && !v.Has("coupon_expires_in") {
		v.Add("coupon_expires_in", "Only coupon offers (type 2, 8, 9, 10) issue coupons that expire.")
	}
}

// checkTargets checks that every id names a customer of the business and
// returns the ids without repeats.
func checkTargets(ctx context.Context, tx Tx, v Validation, businessID string, ids []string) ([]string, error) {
	if len(ids) > maxTargets {
		v.Add("customers", "At most "+itoa(maxTargets)+" customers may be given.")
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for i, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		field := "customers." + itoa(i)
		if !ValidID(id) {
			v.Add(field, "The customer id is not a valid id.")
			continue
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := tx.CustomerAny(ctx, businessID, id)
		if ErrorCode(err) == ENotFound || (err == nil && c.Deleted) {
			v.Add(field, "The customer does not exist.")
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}
