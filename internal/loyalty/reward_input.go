package loyalty

import (
	"context"
	"slices"
	"strings"
)

// RewardInput is the body of a reward create or update. Every field
// records whether it was sent. Besides its own names it takes the
// reference platform's body (type_id with its value, targeted_flag,
// reward_languages, ...): each of those is honoured or refused with 422.
type RewardInput struct {
	Title         Opt[string]  `json:"title"`
	Description   Opt[string]  `json:"description"`
	ExpiresAt     Opt[string]  `json:"expires_at"`
	Images        Opt[[]Image] `json:"images"`
	Enabled       Opt[bool]    `json:"enabled"`
	Kind          Opt[string]  `json:"kind"`
	Type          Opt[string]  `json:"type"` // another name for kind
	Points        Opt[int64]   `json:"points"`
	PartnerReward Opt[bool]    `json:"partner_reward"`

	TypeID              Opt[int]                   `json:"type_id"`
	RealValue           Opt[Money]                 `json:"real_value"`
	Amount              Opt[Money]                 `json:"amount"`
	DiscountValue       Opt[Money]                 `json:"discount_value"`
	RedeemForGiftCard   Opt[bool]                  `json:"redeem_for_gift_card"`
	TargetedFlag        Opt[int]                   `json:"targeted_flag"`
	Customers           Opt[[]string]              `json:"customers"`
	RedemptionUserTiers Opt[[]IntRef]              `json:"redemption_user_tiers"`
	ShippingOption      Opt[int]                   `json:"shipping_option"`
	NeverExpiresFlag    Opt[int]                   `json:"never_expires_flag"`
	PublishAt           Opt[string]                `json:"publish_at"`
	ExternalID          Opt[string]                `json:"external_id"`
	Branches            Opt[[]string]              `json:"branches"`
	AvailableAtBranches Opt[[]StringRef]           `json:"available_at_branches"`
	RewardLanguages     Opt[[]RewardLanguageInput] `json:"reward_languages"`
}

// RewardLanguageInput is one entry of reward_languages.
type RewardLanguageInput struct {
	LanguageID      Opt[int]    `json:"language_id"`
	Title           Opt[string] `json:"title"`
	Description     Opt[string] `json:"description"`
	TermsConditions Opt[string] `json:"terms_conditions"`
	Link            Opt[string] `json:"link"`
}

// shared returns the fields every catalog object has.
func (in *RewardInput) shared() catalogInput {
	return catalogInput{in.Title, in.Description, in.ExpiresAt, in.Images, in.Enabled}
}

// texts returns reward_languages as the entries applyTexts reads.
func (in *RewardInput) texts() []textInput {
	out := make([]textInput, len(in.RewardLanguages.V))
	for i, l := range in.RewardLanguages.V {
		out[i] = textInput{languageID: l.LanguageID, title: l.Title, description: l.Description, terms: l.TermsConditions,
			link: l.Link, names: rewardTextNames}
	}
	return out
}

// tierLevelIDs returns the tier level ids redemption_user_tiers names.
func (in *RewardInput) tierLevelIDs() []int64 {
	var out []int64
	for _, t := range in.RedemptionUserTiers.V {
		if id, ok := t.ID.Value(); ok {
			out = append(out, id)
		}
	}
	return out
}

// apply validates in and merges it into r. levels holds the ids of the
// business's tier levels, which redemption_user_tiers may name.
func (in *RewardInput) apply(ctx context.Context, tx Tx, v Validation, b Business, levels map[int64]bool, r *Reward, create bool) error {
	texts := in.texts()
	b.checkSent(v, map[string]Opt[Money]{"real_value": in.RealValue, "amount": in.Amount, "discount_value": in.DiscountValue})
	in.shared().apply(v, catalogFields{&r.Title, &r.Description, &r.ExpiresAt, &r.Images, &r.Enabled},
		create && !(in.RewardLanguages.Set && hasEnglishTitle(texts)))
	if in.RewardLanguages.Set {
		applyTexts(v, "reward_languages", texts, catalogTexts{&r.Texts, &r.Title, &r.Description, in.Title.Set, in.Description.Set}, create)
	}
	syncEnglish(r.Texts, r.Title, r.Description)
	kind, field := in.Kind, "kind"
	if !kind.Set {
		kind, field = in.Type, "type"
	}
	if k, ok := kind.Value(); ok && slices.Contains(RewardKinds, k) {
		r.Kind = k
	} else if kind.Set {
		v.Add(field, "The selected "+field+" is invalid; one of "+strings.Join(RewardKinds, ", ")+".")
	} else if create && in.TypeID.Set {
		r.Kind = CatalogItem // the reference's rewards are catalog items
	}
	if p, ok := in.Points.Value(); ok {
		if p <= 0 || p > maxPoints {
			v.Add("points", "The points must be a whole number greater than 0.")
		} else {
			r.Points = p
		}
	} else if in.Points.Null {
		v.Add("points", "The points must be a whole number greater than 0.")
	}
	setBool(v, "partner_reward", in.PartnerReward, &r.PartnerReward)
	setTime(v, "publish_at", in.PublishAt, &r.StartsAt, true)
	never := applyNeverExpires(v, in.NeverExpiresFlag, in.ExpiresAt, &r.ExpiresAt)
	setExternalID(v, in.ExternalID, &r.ExternalID)
	if o, ok := in.ShippingOption.Value(); ok {
		if o >= 1 && o <= 3 {
			v.Add("shipping_option", "Shipping options apply to an e-commerce branch, which the service does not have; send null or leave it out.")
		} else {
			v.Add("shipping_option", "The shipping option must be null, 1, 2 or 3; only null is supported.")
		}
	}
	in.applyType(v, r, create)
	if err := in.applyAudience(ctx, tx, v, levels, b, r); err != nil {
		return err
	}
	if err := applyBranches(ctx, tx, v, b.ID, in.Branches, in.AvailableAtBranches, &r.BranchIDs); err != nil {
		return err
	}
	published := r.StartsAt
	if published.IsZero() {
		published = r.CreatedAt
	}
	if !v.Has("expires_at") && !v.Has("publish_at") && !r.ExpiresAt.IsZero() && !r.ExpiresAt.After(published) {
		v.Add("expires_at", "The expires at must be a date after publish at (by default, when the reward was created).")
	}
	if never == 0 && r.ExpiresAt.IsZero() && !v.Has("expires_at") {
		v.Add("expires_at", "The expires at is required when never_expires_flag is 0.")
	}
	return v.Err()
}

// applyType applies type_id and the value each type needs: real_value
// (15), amount and redeem_for_gift_card (16), discount_value (18). A value
// of another type than the reward's is refused, unless zero.
func (in *RewardInput) applyType(v Validation, r *Reward, create bool) {
	changed := false
	if in.TypeID.Set {
		t, ok := in.TypeID.Value()
		switch {
		case !ok:
			changed, r.TypeID = r.TypeID != 0, 0
		case slices.Contains(RewardTypes, t):
			changed, r.TypeID = create || t != r.TypeID, t
		default:
			v.Add("type_id", "The selected type id is invalid; one of 15 (free product), 16 (cashback), 18 (percentage).")
			return
		}
	}
	if changed {
		r.RealValue, r.Amount, r.DiscountValue, r.RedeemForGiftCard = 0, 0, 0, false
	}
	setMoney(v, "real_value", in.RealValue, &r.RealValue)
	setMoney(v, "amount", in.Amount, &r.Amount)
	setMoney(v, "discount_value", in.DiscountValue, &r.DiscountValue)
	setBool(v, "redeem_for_gift_card", in.RedeemForGiftCard, &r.RedeemForGiftCard)
	if r.TypeID != 0 && r.Kind == CustomReward {
		v.Add("type_id", "Only catalog items have a type id.")
	}
	required := func(field string, sent bool, what string) {
		if changed && !sent && !v.Has(field) {
			v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" field is required for "+what+".")
		}
	}
	switch r.TypeID {
	case RewardFreeProduct:
		required("real_value", in.RealValue.Set, "a free product (type 15)")
	case RewardCashback:
		required("amount", in.Amount.Set, "a cashback (type 16)")
		required("redeem_for_gift_card", in.RedeemForGiftCard.Set, "a cashback (type 16)")
		if !v.Has("amount") && r.Amount <= 0 {
			v.Add("amount", "A cashback needs an amount greater than 0.")
		}
	case RewardPercentage:
		required("discount_value", in.DiscountValue.Set, "a percentage (type 18)")
		if !v.Has("discount_value") && (r.DiscountValue <= 0 || r.DiscountValue > 100_00) {
			v.Add("discount_value", "A percentage needs a discount value greater than 0 and at most 100.")
		}
	}
	for _, f := range []struct {
		name  string
		set   bool
		owner int
	}{
		{"real_value", r.RealValue != 0, RewardFreeProduct}, {"amount", r.Amount != 0, RewardCashback},
		{"discount_value", r.DiscountValue != 0, RewardPercentage}, {"redeem_for_gift_card", r.RedeemForGiftCard, RewardCashback},
	} {
		if f.set && r.TypeID != f.owner && !v.Has(f.name) && !v.Has("type_id") {
			v.Add(f.name, "The "+strings.ReplaceAll(f.name, "_", " ")+" applies to rewards of type_id "+itoa(f.owner)+" only.")
		}
	}
}

// applyAudience applies targeted_flag with the customers (1) or the tier
// levels (2) who may redeem the reward.
func (in *RewardInput) applyAudience(ctx context.Context, tx Tx, v Validation, levels map[int64]bool, b Business, r *Reward) error {
	if f, ok := in.TargetedFlag.Value(); ok && f >= AudienceEveryone && f <= AudienceTiers {
		r.Audience = f
	} else if in.TargetedFlag.Set {
		v.Add("targeted_flag", "The targeted flag must be 0 (everyone), 1 (targeted customers) or 2 (tier customers).")
	}
	if in.Customers.Set {
		ids, err := checkTargets(ctx, tx, v, b.ID, in.Customers.V)
		if err != nil {
			return err
		}
		r.TargetIDs = ids
	}
	if in.RedemptionUserTiers.Set {
		var ids []int64
		for i, t := range in.RedemptionUserTiers.V {
			field := "redemption_user_tiers." + itoa(i) + ".id"
			if id, ok := t.ID.Value(); !ok || !levels[id] {
				v.Add(field, "The tier level does not exist.")
			} else if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		r.TierLevelIDs = ids
	}
	if r.Audience != AudienceTargeted {
		if len(in.Customers.V) > 0 {
			v.Add("customers", "Customers can only be given with targeted_flag 1.")
		}
		r.TargetIDs = nil
	}
	if r.Audience != AudienceTiers {
		if len(in.RedemptionUserTiers.V) > 0 {
			v.Add("redemption_user_tiers", "Tier levels can only be given with targeted_flag 2.")
		}
		r.TierLevelIDs = nil
	} else if len(r.TierLevelIDs) == 0 && !v.Has("redemption_user_tiers.0.id") {
		v.Add("redemption_user_tiers", "The redemption user tiers field is required when targeted_flag is 2.")
	}
	return nil
}
