package loyalty

import (
	"context"
	"encoding/json"
	"strings"
)

// An earning rule's effect as sent: its type and that type's fields,
// and for a coupon or stamp effect the live offer or card it names.

func (f effectInput) check(v Validation, b Business) RuleEffect {
	out := RuleEffect{}
	t, _ := f.Type.Value()
	switch t {
	case EffectPointsPerAmount, EffectMultiplier, EffectBonus, EffectPointsPerItem, EffectCoupon, EffectStamp:
		out.Type = t
	default:
		v.Add("effect.type", "The effect's type is one of "+strings.Join(EffectTypes, ", ")+".")
		return out
	}
	takes := map[string]bool{"points": t != EffectMultiplier && !out.gift(), "per_amount": t == EffectPointsPerAmount,
		"round_up": t == EffectPointsPerAmount, "factor": t == EffectMultiplier, "offer_id": t == EffectCoupon,
		"punch_card_id": t == EffectStamp, "stamps": t == EffectStamp}
	for name, sent := range map[string]bool{"points": f.Points.Set, "per_amount": f.PerAmount.Set, "round_up": f.RoundUp.Set,
		"factor": f.Factor.Set, "offer_id": f.OfferID.Set, "punch_card_id": f.PunchCardID.Set, "stamps": f.Stamps.Set} {
		if sent && !takes[name] {
			v.Add("effect."+name, "A "+t+" effect takes no "+name+".")
		}
	}
	if takes["points"] {
		if p, ok := f.Points.Value(); ok && p >= 1 && p <= maxRulePoints {
			out.Points = p
		} else {
			v.Add("effect.points", "The points must be a whole number from 1 to "+itoa(maxRulePoints)+".")
		}
	}
	if t == EffectPointsPerAmount {
		if a, ok := f.PerAmount.Value(); ok && a > 0 && a <= MaxMoney {
			out.PerAmount = a
		} else {
			v.Add("effect.per_amount", "The per_amount must be an amount greater than 0: the points are given for each per_amount spent.")
		}
		b.checkSent(v, map[string]Opt[Money]{"effect.per_amount": f.PerAmount})
		out.RoundUp = f.RoundUp.V
	}
	if t == EffectStamp {
		out.Stamps = 1
		if n, ok := f.Stamps.Value(); ok && n >= 1 && n <= maxRuleStamps {
			out.Stamps = n
		} else if f.Stamps.Set {
			v.Add("effect.stamps", "The stamps must be a whole number from 1 to "+itoa(maxRuleStamps)+" (1 when left out).")
		}
	}
	if t == EffectMultiplier {
		if x, ok := f.Factor.Value(); ok && x > 100 && x <= maxRuleFactor {
			out.Factor = x
		} else {
			v.Add("effect.factor", "The factor must be a number greater than 1 and at most 100, such as 2 or 1.5.")
		}
	}
	return out
}

// checkGift reads what a coupon or stamp effect gives: the live coupon
// offer it issues a coupon of, or the live punch card it stamps.
func (f effectInput) checkGift(ctx context.Context, tx Tx, v Validation, b Business, out *RuleEffect) error {
	var field string
	var raw Opt[json.RawMessage]
	switch out.Type {
	case EffectCoupon:
		field, raw = "effect.offer_id", f.OfferID
	case EffectStamp:
		field, raw = "effect.punch_card_id", f.PunchCardID
	default:
		return nil
	}
	var id int64
	if r, ok := raw.Value(); !ok || json.Unmarshal(r, &id) != nil || id <= 0 {
		what := "the coupon offer it issues a coupon of"
		if out.Type == EffectStamp {
			what = "the punch card it stamps"
		}
		v.Add(field, "The "+field[len("effect."):]+" must be the id of "+what+".")
		return nil
	}
	if out.Type == EffectCoupon {
		o, err := tx.Offer(ctx, b.ID, id)
		switch {
		case ErrorCode(err) == ENotFound || err == nil && o.Deleted:
			v.Add(field, "No live offer of the business has the id "+itoa64(id)+".")
		case err != nil:
			return err
		case o.TypeID == OfferPointsMultiplier || o.TypeID == OfferBonusPoints:
			v.Add(field, "The offer must be a coupon offer; a points offer issues no coupon.")
		default:
			out.OfferID = id
		}
		return nil
	}
	c, err := tx.PunchCard(ctx, b.ID, id)
	switch {
	case ErrorCode(err) == ENotFound || err == nil && c.Deleted:
		v.Add(field, "No live punch card of the business has the id "+itoa64(id)+".")
	case err != nil:
		return err
	default:
		out.PunchCardID = id
	}
	return nil
}
