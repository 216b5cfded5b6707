package loyalty

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"
)

// EarningRuleInput is the body of POST /earning-rules and PUT
// /earning-rules/{id}. Schedule, conditions, effect and limits are read
// strictly: a key they do not have is refused by name, never ignored (a
// misspelt condition would make a rule apply to every sale).
type EarningRuleInput struct {
	Name       Opt[string]          `json:"name"`
	Enabled    Opt[bool]            `json:"enabled"`
	Priority   Opt[int]             `json:"priority"`
	Exclusive  Opt[bool]            `json:"exclusive"`
	StartsAt   Opt[string]          `json:"starts_at"`
	EndsAt     Opt[string]          `json:"ends_at"`
	Schedule   Opt[json.RawMessage] `json:"schedule"`
	Conditions Opt[json.RawMessage] `json:"conditions"`
	Effect     Opt[json.RawMessage] `json:"effect"`
	Limits     Opt[json.RawMessage] `json:"limits"`
}

type scheduleInput struct {
	Days Opt[[]string] `json:"days"`
	From Opt[string]   `json:"from"`
	To   Opt[string]   `json:"to"`
}

type conditionsInput struct {
	MinAmount          Opt[Money]    `json:"min_amount"`
	Branches           Opt[[]string] `json:"branches"`
	Channels           Opt[[]string] `json:"channels"`
	Products           Opt[[]int64]  `json:"products"`
	Categories         Opt[[]int64]  `json:"categories"`
	MinQuantity        Opt[int64]    `json:"min_quantity"`
	TierLevels         Opt[[]int64]  `json:"tier_levels"`
	FirstPurchase      Opt[bool]     `json:"first_purchase"`
	BirthdayWithinDays Opt[int]      `json:"birthday_within_days"`
	// Set by a campaign's gift only: sent, they must be what the rule has.
	CampaignID   Opt[int64] `json:"campaign_id"`
	CampaignDays Opt[int]   `json:"campaign_days"`
}

type effectInput struct {
	Type        Opt[string]          `json:"type"`
	Points      Opt[int64]           `json:"points"`
	PerAmount   Opt[Money]           `json:"per_amount"`
	RoundUp     Opt[bool]            `json:"round_up"`
	Factor      Opt[Money]           `json:"factor"`
	OfferID     Opt[json.RawMessage] `json:"offer_id"`
	PunchCardID Opt[json.RawMessage] `json:"punch_card_id"`
	Stamps      Opt[int64]           `json:"stamps"`
}

// Limits of an earning rule.
const (
	maxEarningRuleName = 100
	maxRulePriority    = 1000
	maxRulePoints      = 1_000_000
	maxRuleFactor      = 10000 // ×100
	maxRuleStamps      = 100
	maxRuleRefs        = 200
	maxRuleMinQuanty   = 100_000
	maxRuleUses        = 1_000_000
	maxBirthdayDays    = 31
	maxBudget          = 1_000_000_000_000
)

// weekdays are the schedule's day names, Monday first.
var weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// clockTime is a schedule's HH:MM.
var clockTime = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// apply validates in and merges it into r, reading what the rule names
// (products, categories, branches) in tx: a rule naming one that does not
// exist, or is deleted, is refused when saved.
func (in *EarningRuleInput) apply(ctx context.Context, tx Tx, b Business, r *EarningRule, create bool) error {
	v := Validation{}
	if n, ok := in.Name.Value(); ok {
		switch n = strings.TrimSpace(n); {
		case n == "":
			v.Add("name", "The name may not be empty.")
		case len(n) > maxEarningRuleName:
			v.Add("name", "The name may not be greater than "+itoa(maxEarningRuleName)+" characters.")
		default:
			r.Name = n
		}
	} else if in.Name.Null || create {
		v.Add("name", "The name field is required.")
	}
	if e, ok := in.Enabled.Value(); ok {
		r.Enabled = e
	} else if in.Enabled.Null {
		v.Add("enabled", "The enabled field must be true or false.")
	}
	if p, ok := in.Priority.Value(); ok && p >= -maxRulePriority && p <= maxRulePriority {
		r.Priority = p
	} else if in.Priority.Set {
		v.Add("priority", "The priority must be a whole number from -1000 to 1000; the highest is evaluated first.")
	}
	if x, ok := in.Exclusive.Value(); ok {
		r.Exclusive = x
	} else if in.Exclusive.Null {
		v.Add("exclusive", "The exclusive field must be true or false.")
	}
	rules, err := rulesOf(ctx, tx, b)
	if err != nil {
		return err
	}
	loc := zoneOf(rules.TimeZone)
	ruleTime(v, "starts_at", in.StartsAt, loc, &r.StartsAt)
	ruleTime(v, "ends_at", in.EndsAt, loc, &r.EndsAt)
	if !v.Has("starts_at") && !v.Has("ends_at") && !r.EndsAt.IsZero() && !r.EndsAt.After(r.StartsAt) {
		v.Add("ends_at", "The ends_at must be after the starts_at.")
	}
	if raw, ok := in.Schedule.Value(); ok {
		var s scheduleInput
		if strictObject(v, "schedule", raw, &s) {
			r.Schedule = s.check(v)
		}
	} else if in.Schedule.Null {
		r.Schedule = RuleSchedule{}
	}
	gate := r.Conditions // the campaign's: kept whatever the conditions sent
	if raw, ok := in.Conditions.Value(); ok {
		var c conditionsInput
		if strictObject(v, "conditions", raw, &c) {
			if r.Conditions, err = c.check(ctx, tx, v, b); err != nil {
				return err
			}
			c.checkCampaign(v, gate)
		}
	} else if in.Conditions.Null {
		r.Conditions = RuleConditions{}
	}
	r.Conditions.CampaignID, r.Conditions.CampaignDays = gate.CampaignID, gate.CampaignDays
	if raw, ok := in.Effect.Value(); ok {
		var f effectInput
		if strictObject(v, "effect", raw, &f) {
			r.Effect = f.check(v, b)
			if err := f.checkGift(ctx, tx, v, b, &r.Effect); err != nil {
				return err
			}
		}
	} else if in.Effect.Null || create {
		v.Add("effect", "The effect field is required: {type, …} with type one of "+strings.Join(EffectTypes, ", ")+".")
	}
	if raw, ok := in.Limits.Value(); ok {
		var l limitsInput
		if strictObject(v, "limits", raw, &l) {
			r.Limits = l.check(v)
		}
	} else if in.Limits.Null {
		r.Limits = RuleLimits{}
	}
	if r.Effect.gift() && r.Limits.Budget != nil && !v.Has("effect") && !v.Has("limits.budget") {
		v.Add("limits.budget", "A "+r.Effect.Type+" effect gives no points, so it has no budget of points; limit it per customer.")
	}
	return v.Err()
}

// ruleTime reads a rule's starts_at or ends_at: a date-time with its
// offset, or a local date or date and time in the business's zone; null
// or "" clears it.
func ruleTime(v Validation, field string, o Opt[string], loc *time.Location, dst *time.Time) {
	if !o.Set {
		return
	}
	s := strings.TrimSpace(o.V)
	if o.Null || s == "" {
		*dst = time.Time{}
		return
	}
	for _, l := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			*dst = t.UTC()
			return
		}
	}
	if t, err := ParseTime(s); err == nil && t.Year() >= 1970 && t.Year() <= 9999 {
		*dst = t
		return
	}
	v.Add(field, "The "+field+" must be a date-time such as 2026-12-01T09:00:00+01:00, or a local 2026-12-01T09:00 in the business's time zone.")
}

// strictObject decodes raw, a JSON object, into dst, refusing any key dst
// does not have and any value of the wrong type, each named under field.
func strictObject(v Validation, field string, raw json.RawMessage, dst any) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &te) && te.Field != "":
		f := field + "." + te.Field
		v.Add(f, "The "+f+" field is not of the right type.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		v.Add(field+"."+name, "The "+field+" have no "+name+".")
	default:
		v.Add(field, "The "+field+" must be a JSON object.")
	}
	return false
}

func (s scheduleInput) check(v Validation) RuleSchedule {
	out := RuleSchedule{}
	for i, d := range s.Days.V {
		n := slices.Index(weekdays, strings.ToLower(strings.TrimSpace(d)))
		if n < 0 {
			v.Add("schedule.days."+itoa(i), "A day is one of "+strings.Join(weekdays, ", ")+".")
			continue
		}
		if !slices.Contains(out.Days, n+1) {
			out.Days = append(out.Days, n+1)
		}
	}
	slices.Sort(out.Days)
	if s.Days.Set && (s.Days.Null || len(s.Days.V) == 0) {
		v.Add("schedule.days", "The days must name one day at least; leave days out for every day.")
	}
	from, to := strings.TrimSpace(s.From.V), strings.TrimSpace(s.To.V)
	switch {
	case s.From.Set != s.To.Set || s.From.Null || s.To.Null:
		name := "schedule.from"
		if s.From.Set && !s.From.Null {
			name = "schedule.to"
		}
		v.Add(name, "A schedule's hours need both from and to (HH:MM), or neither for the whole day.")
	case !s.From.Set:
	case !clockTime.MatchString(from):
		v.Add("schedule.from", "The from must be a time of day, HH:MM (00:00 to 23:59).")
	case !clockTime.MatchString(to):
		v.Add("schedule.to", "The to must be a time of day, HH:MM (00:00 to 23:59).")
	case from == to:
		v.Add("schedule.to", "The to must differ from the from; leave both out for the whole day.")
	default:
		out.From, out.To = from, to
	}
	return out
}

func (c conditionsInput) check(ctx context.Context, tx Tx, v Validation, b Business) (RuleConditions, error) {
	out := RuleConditions{}
	if m, ok := c.MinAmount.Value(); ok && m >= 0 && m <= MaxMoney {
		out.MinAmount = m
	} else if c.MinAmount.Set {
		v.Add("conditions.min_amount", "The min_amount must be an amount of 0 or more.")
	}
	b.checkSent(v, map[string]Opt[Money]{"conditions.min_amount": c.MinAmount})
	if c.Branches.Set {
		found, err := checkBranches(ctx, tx, v, b.ID, "conditions.branches", c.Branches.V)
		if err != nil {
			return out, err
		}
		out.Branches = found
	}
	for i, ch := range c.Channels.V {
		if !slices.Contains(Channels, ch) {
			v.Add("conditions.channels."+itoa(i), "A channel is one of "+strings.Join(Channels, ", ")+".")
		} else if !slices.Contains(out.Channels, ch) {
			out.Channels = append(out.Channels, ch)
		}
	}
	var err error
	if out.Products, err = checkRefs(ctx, v, "conditions.products", c.Products.V, func(id int64) (bool, error) {
		p, err := tx.Product(ctx, b.ID, id)
		return err == nil && !p.Deleted, notFoundOK(err)
	}); err != nil {
		return out, err
	}
	if out.Categories, err = checkRefs(ctx, v, "conditions.categories", c.Categories.V, func(id int64) (bool, error) {
		cat, err := tx.ProductCategory(ctx, b.ID, id)
		return err == nil && !cat.Deleted, notFoundOK(err)
	}); err != nil {
		return out, err
	}
	if q, ok := c.MinQuantity.Value(); ok && q >= 0 && q <= maxRuleMinQuanty {
		out.MinQuantity = q
	} else if c.MinQuantity.Set {
		v.Add("conditions.min_quantity", "The min_quantity must be a whole number from 0 to "+itoa(maxRuleMinQuanty)+".")
	}
	if f, ok := c.FirstPurchase.Value(); ok {
		out.FirstPurchase = f
	} else if c.FirstPurchase.Null {
		v.Add("conditions.first_purchase", "The first_purchase condition must be true or false.")
	}
	if d, ok := c.BirthdayWithinDays.Value(); ok && d >= 0 && d <= maxBirthdayDays {
		out.BirthdayWithinDays = &d
	} else if c.BirthdayWithinDays.Set {
		v.Add("conditions.birthday_within_days", "The birthday_within_days must be a whole number from 0 (the birthday itself) to "+itoa(maxBirthdayDays)+".")
	}
	if c.TierLevels.Set {
		levels := map[int64]bool{}
		tiers, err := tx.Tiers(ctx, b.ID)
		if err != nil {
			return out, err
		}
		for _, t := range tiers {
			for _, l := range t.Levels {
				levels[l.ID] = true
			}
		}
		if out.TierLevels, err = checkRefs(ctx, v, "conditions.tier_levels", c.TierLevels.V, func(id int64) (bool, error) {
			return levels[id], nil
		}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// checkCampaign refuses a campaign condition sent unlike the rule's own
// (gate): a campaign's gift sets it (PUT /campaigns/{id} gift), so that
// no edit of the conditions can free the rule to every customer. Sent as
// the rule has it (a rule read and sent back whole), it is fine.
func (c conditionsInput) checkCampaign(v Validation, gate RuleConditions) {
	if c.CampaignID.Set && c.CampaignID.V != gate.CampaignID {
		v.Add("conditions.campaign_id", "The campaign_id is set by a campaign's gift (gift.earning_rule_id of PUT /campaigns/{id}), not here.")
	}
	if c.CampaignDays.Set && c.CampaignDays.V != gate.CampaignDays {
		v.Add("conditions.campaign_days", "The campaign_days are set by a campaign's gift (gift.days of PUT /campaigns/{id}), not here.")
	}
}

// notFoundOK is err, unless it only says the thing was not found.
func notFoundOK(err error) error {
	if ErrorCode(err) == ENotFound {
		return nil
	}
	return err
}

// checkRefs checks a rule's list of ids, each of which must name a live
// thing (live reports it), and returns it without repeats.
func checkRefs(ctx context.Context, v Validation, field string, ids []int64, live func(int64) (bool, error)) ([]int64, error) {
	if len(ids) > maxRuleRefs {
		v.Add(field, "At most "+itoa(maxRuleRefs)+" may be given.")
		return nil, nil
	}
	var out []int64
	for i, id := range ids {
		if slices.Contains(out, id) {
			continue
		}
		ok, err := live(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			noun := strings.TrimSuffix(field[strings.LastIndex(field, ".")+1:], "s")
			switch noun {
			case "categorie":
				noun = "category"
			case "tier_level":
				noun = "tier level"
			}
			v.Add(field+"."+itoa(i), "No live "+noun+" has the id "+itoa64(id)+".")
			continue
		}
		out = append(out, id)
	}
	return out, nil
}
