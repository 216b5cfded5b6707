package web

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// Earning rules: what a sale earns beyond the points per spend, when and
// on what. The form is one per effect, chosen first (?type=); the rule
// being edited is evaluated on a sample basket (program_preview.go).

// effectTypes are the effects a rule is made with, in the order offered.
var effectTypes = []option{{loyalty.EffectPointsPerAmount, "Points per amount spent"}, {loyalty.EffectMultiplier, "Points multiplier"},
	{loyalty.EffectBonus, "Bonus points"}, {loyalty.EffectPointsPerItem, "Points per item"}, {loyalty.EffectCoupon, "A coupon"},
	{loyalty.EffectStamp, "Punch-card stamps"}}

// effectHints say what each effect gives.
var effectHints = map[string]string{
	loyalty.EffectPointsPerAmount: "Such as 2 points for each 1.00 spent on drinks.",
	loyalty.EffectMultiplier:      "Such as double points on Tuesdays: the points per amount and per item, multiplied.",
	loyalty.EffectBonus:           "Such as 50 points once on a first purchase or a birthday.",
	loyalty.EffectPointsPerItem:   "Such as 10 points for each pastry bought.",
	loyalty.EffectCoupon:          "Such as a free muffin on a first purchase: a coupon of one of your coupon offers.",
	loyalty.EffectStamp:           "Such as a second stamp on the coffee card on Mondays.",
}

var periodOptions = []option{{loyalty.PeriodDay, "a day"}, {loyalty.PeriodWeek, "a week"}, {loyalty.PeriodMonth, "a month"},
	{loyalty.PeriodLifetime, "ever"}}

// ruleFields are the form of a rule with the effect typ.
func ruleFields(typ string) []setupField {
	fields := []setupField{
		{Name: "name", Label: "Name", Kind: kindText, Hint: "Customers may see it, such as Double points on Tuesdays."},
		{Name: "effect.type", Kind: kindConst},
	}
	switch typ {
	case loyalty.EffectPointsPerAmount:
		fields = append(fields,
			setupField{Name: "effect.points", Label: "Points", Kind: kindInt, Unit: "points", Row: "e"},
			setupField{Name: "effect.per_amount", Label: "For each", Kind: kindMoney, Unit: unitCurrency, Row: "e", Hint: "Spent, such as 1.00."},
			setupField{Name: "effect.round_up", Label: "Round up", Kind: kindBool, Hint: "A part of the amount earns its share, rounded up."})
	case loyalty.EffectMultiplier:
		fields = append(fields, setupField{Name: "effect.factor", Label: "Multiply the points by", Kind: kindMoney, Unit: "×",
			Hint: "More than 1, at most 100: 2 doubles them, 1.5 adds half."})
	case loyalty.EffectBonus:
		fields = append(fields, setupField{Name: "effect.points", Label: "Bonus", Kind: kindInt, Unit: "points", Hint: "Given once per sale."})
	case loyalty.EffectPointsPerItem:
		fields = append(fields, setupField{Name: "effect.points", Label: "Per item", Kind: kindInt, Unit: "points", Hint: "For each qualifying unit bought."})
	case loyalty.EffectCoupon:
		fields = append(fields, setupField{Name: "effect.offer_id", Label: "The coupon of", Kind: kindRef, Source: "coupon_offers", Ints: true,
			Hint: "One of your coupon offers, issued free to the customer with the sale."})
	case loyalty.EffectStamp:
		fields = append(fields,
			setupField{Name: "effect.punch_card_id", Label: "Punch card", Kind: kindRef, Source: "punch_cards", Ints: true},
			setupField{Name: "effect.stamps", Label: "Stamps", Kind: kindInt, Unit: "stamps", Hint: "1 to 100. Empty: 1."})
	}
	fields = append(fields,
		setupField{Name: "schedule.days", Label: "Days", Kind: kindPick, Source: "days", Section: "When",
			Lead: "In your business's time zone. Nothing chosen: every day, all day.", Hint: "None chosen: every day."},
		setupField{Name: "schedule.from", Label: "From", Kind: kindTime, Row: "t"},
		setupField{Name: "schedule.to", Label: "Until", Kind: kindTime, Row: "t", Hint: "Not included. Before From: runs past midnight."},
		setupField{Name: "starts_at", Label: "Starts on", Kind: kindDate, Row: "d", Clear: true},
		setupField{Name: "ends_at", Label: "Ends before", Kind: kindDate, Row: "d", Clear: true},
		setupField{Name: "conditions.products", Label: "Products", Kind: kindPick, Source: "products", Ints: true, Section: "On what",
			Lead: "Nothing chosen: every sale. With products or categories only their lines count, and only a basket sale has lines."},
		setupField{Name: "conditions.categories", Label: "Categories", Kind: kindPick, Source: "categories", Ints: true},
		setupField{Name: "conditions.min_amount", Label: "Minimum purchase", Kind: kindMoney, Unit: unitCurrency, Row: "m"},
		setupField{Name: "conditions.min_quantity", Label: "Minimum quantity", Kind: kindInt, Unit: "units", Row: "m", Hint: "Of the chosen products."},
		setupField{Name: "conditions.branches", Label: "Branches", Kind: kindPick, Source: "branches", Section: "Where and who"},
		setupField{Name: "conditions.channels", Label: "Channels", Kind: kindPick, Source: "channels"},
		setupField{Name: "conditions.tier_levels", Label: "Tier levels", Kind: kindPick, Source: "tier_levels", Ints: true,
			Hint: "Customers holding one of them."},
		setupField{Name: "conditions.first_purchase", Label: "First purchase only", Kind: kindBool, Hint: "Once per customer."},
		setupField{Name: "conditions.birthday_within_days", Label: "Birthday within", Kind: kindInt, Unit: "days",
			Hint: "0 to 31, either side of the customer's birthday. Empty: any day."},
		setupField{Name: "limits.per_customer.count", Label: "Times per customer", Kind: kindInt, Row: "l", Section: "Limits",
			Lead: "Empty: no limit."},
		setupField{Name: "limits.per_customer.period", Label: "In", Kind: kindSelect, Row: "l", Options: periodOptions})
	if typ != loyalty.EffectCoupon && typ != loyalty.EffectStamp {
		// A coupon or stamps give no points: no budget of points.
		fields = append(fields,
			setupField{Name: "limits.budget.points", Label: "Points budget", Kind: kindInt, Unit: "points", Row: "b", Hint: "For all customers together."},
			setupField{Name: "limits.budget.period", Label: "In", Kind: kindSelect, Row: "b", Options: periodOptions})
	}
	return append(fields,
		setupField{Name: "priority", Label: "Priority", Kind: kindInt, Section: "Order",
			Hint: "-1000 to 1000; the highest is decided first. 0 and up come before your points per spend and offers."},
		setupField{Name: "exclusive", Label: "Exclusive", Kind: kindBool, Hint: "When it applies, no rule after it does."},
		enabledField,
	)
}

var earningRuleKind = &setupKind{Path: "earning-rules", Title: "Earning rules", One: "earning rule", Toggle: true,
	Lead:      "Extra points on products, days and hours, for tiers, birthdays and first purchases, with limits and budgets.",
	Types:     effectTypes,
	TypeHints: effectHints,
	TypeField: "effect.type",
	typed:     ruleFields,
	list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
		all, _, err := s.Program.Services.EarningRules.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
		if err != nil {
			return nil, err
		}
		names, err := giftNames(ctx, s, b)
		var rows []setupRow
		for _, r := range all {
			facts := []string{effectWords(r.Effect, b, names), conditionWords(r.Conditions, b), scheduleWords(r.Schedule), "priority " + strconv.Itoa(r.Priority)}
			if r.Exclusive {
				facts = append(facts, "exclusive")
			}
			rows = append(rows, setupRow{ID: intText(r.ID), Title: r.Name, Enabled: r.Enabled, Facts: nonEmpty(facts)})
		}
		return rows, err
	},
	get: func(ctx context.Context, s *Server, b loyalty.Business, id string, loc *time.Location) (map[string]string, []string, error) {
		r, err := s.Program.Services.EarningRules.Get(ctx, b, id)
		return ruleForm(r, loc), nil, err
	},
	save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
		in, err := decodeAs[loyalty.EarningRuleInput](ruleBody(body))
		if err != nil {
			return err
		}
		return s.Program.SaveEarningRule(ctx, a, id, name, in)
	},
	remove: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string) error {
		return s.Program.DeleteEarningRule(ctx, a, id, name)
	},
	preview: previewRule,
}

// ruleForm is a saved rule as its form shows it.
func ruleForm(r loyalty.EarningRule, loc *time.Location) map[string]string {
	f := map[string]string{"name": r.Name, "enabled": boolText(r.Enabled), "priority": strconv.Itoa(r.Priority),
		"exclusive": boolText(r.Exclusive), "starts_at": dateText(r.StartsAt, loc), "ends_at": dateText(r.EndsAt, loc),
		"effect.type": r.Effect.Type, "effect.points": zeroless(r.Effect.Points), "effect.per_amount": moneyText(r.Effect.PerAmount),
		"effect.round_up": boolText(r.Effect.RoundUp), "effect.factor": factorText(r.Effect.Factor),
		"effect.offer_id": zeroless(r.Effect.OfferID), "effect.punch_card_id": zeroless(r.Effect.PunchCardID),
		"effect.stamps": zeroless(r.Effect.Stamps),
		"schedule.from": r.Schedule.From, "schedule.to": r.Schedule.To,
		"conditions.products": idsText(r.Conditions.Products), "conditions.categories": idsText(r.Conditions.Categories),
		"conditions.tier_levels": idsText(r.Conditions.TierLevels), "conditions.branches": strings.Join(r.Conditions.Branches, "\n"),
		"conditions.channels": strings.Join(r.Conditions.Channels, "\n"), "conditions.min_amount": moneyText(r.Conditions.MinAmount),
		"conditions.min_quantity": zeroless(r.Conditions.MinQuantity), "conditions.first_purchase": boolText(r.Conditions.FirstPurchase)}
	if r.StartsAt.Equal(r.CreatedAt) {
		f["starts_at"] = ""
	}
	var days []string
	for _, d := range r.Schedule.Days {
		if d >= 1 && d <= 7 {
			days = append(days, dayOptions[d-1].Value)
		}
	}
	f["schedule.days"] = strings.Join(days, "\n")
	if d := r.Conditions.BirthdayWithinDays; d != nil {
		f["conditions.birthday_within_days"] = strconv.Itoa(*d)
	}
	if l := r.Limits.PerCustomer; l != nil {
		f["limits.per_customer.count"], f["limits.per_customer.period"] = intText(l.Count), l.Period
	}
	if l := r.Limits.Budget; l != nil {
		f["limits.budget.points"], f["limits.budget.period"] = intText(l.Count), l.Period
	}
	return f
}

// ruleBody is a rule form's body as the API takes it: the schedule,
// conditions and limits sent whole (what the form left empty is cleared),
// a limit without its number left out.
func ruleBody(body []byte) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	for _, n := range []string{"schedule", "conditions", "limits"} {
		if _, ok := m[n].(map[string]any); !ok {
			m[n] = map[string]any{}
		}
	}
	limits := m["limits"].(map[string]any)
	for name, number := range map[string]string{"per_customer": "count", "budget": "points"} {
		if l, ok := limits[name].(map[string]any); ok && l[number] == nil {
			delete(limits, name)
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// factorText writes a multiplier's factor without trailing zeros: 2, 1.5.
func factorText(f loyalty.Money) string {
	if f == 0 {
		return ""
	}
	s := f.String()
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// giftNames are the names of what coupon and stamp rules give: the
// coupon offers' titles ("offer-ID") and the punch cards' ("card-ID").
func giftNames(ctx context.Context, s *Server, b loyalty.Business) (map[string]string, error) {
	names := map[string]string{}
	offers, _, err := s.Program.Services.Offers.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
	if err != nil {
		return names, err
	}
	for _, o := range offers {
		names["offer-"+intText(o.ID)] = o.Title
	}
	cards, _, err := s.Program.Services.PunchCards.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
	for _, c := range cards {
		names["card-"+intText(c.ID)] = c.Name
	}
	return names, err
}

// effectWords says what a rule gives; names are what giftNames returns.
func effectWords(f loyalty.RuleEffect, b loyalty.Business, names map[string]string) string {
	switch f.Type {
	case loyalty.EffectPointsPerAmount:
		w := intText(f.Points) + " points per " + format.Money(f.PerAmount, b)
		if f.RoundUp {
			w += ", rounded up"
		}
		return w
	case loyalty.EffectMultiplier:
		return "×" + factorText(f.Factor) + " points"
	case loyalty.EffectBonus:
		return "+" + intText(f.Points) + " bonus points"
	case loyalty.EffectPointsPerItem:
		return intText(f.Points) + " points per item"
	case loyalty.EffectCoupon:
		return "a coupon: " + cmp(names["offer-"+intText(f.OfferID)], "offer #"+intText(f.OfferID))
	case loyalty.EffectStamp:
		n := "1 stamp"
		if f.Stamps > 1 {
			n = intText(f.Stamps) + " stamps"
		}
		return n + " on " + cmp(names["card-"+intText(f.PunchCardID)], "card #"+intText(f.PunchCardID))
	}
	return f.Type
}

// conditionWords says on what a rule applies, briefly.
func conditionWords(c loyalty.RuleConditions, b loyalty.Business) string {
	var w []string
	if on := counted(len(c.Products), "product", "products"); on != "" {
		w = append(w, "on "+on)
	}
	if on := counted(len(c.Categories), "category", "categories"); on != "" {
		w = append(w, "on "+on)
	}
	if c.MinAmount > 0 {
		w = append(w, "from "+format.Money(c.MinAmount, b))
	}
	if c.MinQuantity > 0 {
		w = append(w, "from "+intText(c.MinQuantity)+" units")
	}
	if len(c.Branches) > 0 {
		w = append(w, counted(len(c.Branches), "branch", "branches"))
	}
	if len(c.Channels) > 0 {
		var names []string
		for _, ch := range c.Channels {
			names = append(names, strings.ToLower(optionLabel(channelOptions, ch)))
		}
		w = append(w, strings.Join(names, ", "))
	}
	if len(c.TierLevels) > 0 {
		w = append(w, counted(len(c.TierLevels), "tier level", "tier levels"))
	}
	if c.FirstPurchase {
		w = append(w, "first purchase")
	}
	if d := c.BirthdayWithinDays; d != nil {
		w = append(w, "birthday ±"+strconv.Itoa(*d)+" days")
	}
	if c.CampaignID != 0 {
		w = append(w, "reached by campaign "+strconv.FormatInt(c.CampaignID, 10)+" in the last "+strconv.Itoa(c.CampaignDays)+" days")
	}
	return strings.Join(w, ", ")
}

// scheduleWords says when a rule applies in the week.
func scheduleWords(s loyalty.RuleSchedule) string {
	days := "every day"
	if len(s.Days) == 5 && s.Days[0] == 1 && s.Days[4] == 5 {
		days = "Mon–Fri"
	} else if len(s.Days) == 2 && s.Days[0] == 6 && s.Days[1] == 7 {
		days = "Sat–Sun"
	} else if len(s.Days) > 0 && len(s.Days) < 7 {
		var names []string
		for _, d := range s.Days {
			if d >= 1 && d <= 7 {
				names = append(names, dayOptions[d-1].Label)
			}
		}
		days = strings.Join(names, ", ")
	}
	if s.From != "" {
		return days + " " + s.From + "–" + s.To
	}
	return days
}

// nonEmpty drops the empty strings of list.
func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
