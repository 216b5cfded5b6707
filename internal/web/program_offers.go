package web

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Offers: points multipliers and bonuses that apply to sales by
// themselves, and coupon offers issued to customers. The form is one per
// type, chosen first (?type=), showing only that type's fields.

// offerTypes are the types an offer is made with, in the order offered.
var offerTypes = []option{{"1", "Points multiplier"}, {"3", "Bonus points"}, {"2", "Free product (coupon)"},
	{"8", "Coupon"}, {"9", "Percentage off (coupon)"}, {"10", "Amount off (coupon)"}}

// offerHints say what each type of offer does.
var offerHints = map[string]string{
	"1":  "Such as double points this weekend: the points of every sale in its dates, multiplied.",
	"3":  "Such as 50 points more on any purchase over 20.00.",
	"2":  "Such as a free muffin: a coupon the customer shows at the counter.",
	"8":  "A coupon for whatever you describe, such as a table by the window.",
	"9":  "Such as 10% off the next purchase, as a coupon.",
	"10": "Such as 5.00 off the next purchase, as a coupon.",
}

// couponCost is the points a coupon offer costs.
var couponCost = setupField{Name: "points", Label: "Costs", Kind: kindInt, Unit: "points",
	Hint: "Taken from the customer's balance for the coupon. Empty: free."}

// offerFields are the form of an offer of the type typ.
func offerFields(typ string) []setupField {
	fields := []setupField{
		{Name: "type_id", Kind: kindHidden},
		{Name: "title", Label: "Title", Kind: kindText, Hint: "Customers see it, such as Free muffin."},
		{Name: "description", Label: "Description", Kind: kindTextarea},
	}
	switch typ {
	case "1":
		fields = append(fields, setupField{Name: "multip_factor", Label: "Multiply the points by", Kind: kindMoney, Unit: "×",
			Hint: "More than 1, at most 100: 2 doubles them, 1.5 adds half."})
	case "3":
		fields = append(fields, setupField{Name: "points", Label: "Bonus", Kind: kindInt, Unit: "points", Hint: "Added to each sale it applies to."})
	case "2":
		fields = append(fields, couponCost,
			setupField{Name: "real_value", Label: "The product's value", Kind: kindMoney, Unit: unitCurrency, Hint: "For your reports."})
	case "8":
		fields = append(fields, couponCost,
			setupField{Name: "real_value", Label: "Its value", Kind: kindMoney, Unit: unitCurrency, Hint: "For your reports. Empty: none."})
	case "9":
		fields = append(fields, setupField{Name: "discount_value", Label: "Off the purchase", Kind: kindMoney, Unit: "%", Hint: "More than 0, at most 100."},
			couponCost)
	case "10":
		fields = append(fields, setupField{Name: "discount_value", Label: "Off the purchase", Kind: kindMoney, Unit: unitCurrency},
			couponCost)
	}
	purchase := "The sale's amount it applies to."
	if typ != "1" && typ != "3" {
		purchase = "The purchase the coupon is used on."
	}
	fields = append(fields,
		setupField{Name: "min_purchase", Label: "Minimum purchase", Kind: kindMoney, Unit: unitCurrency, Row: "c", Hint: "Empty: any.",
			Section: "When and for whom", Lead: purchase},
		setupField{Name: "max_purchase", Label: "Maximum purchase", Kind: kindMoney, Unit: unitCurrency, Row: "c", Clear: true, Hint: "Empty: no maximum."},
		setupField{Name: "starts_at", Label: "Starts on", Kind: kindDate, Row: "d"},
		setupField{Name: "expires_at", Label: "Ends on", Kind: kindDate, Row: "d", Clear: true, Hint: "Empty: never."},
		setupField{Name: "offer_frequency_id", Label: "How often a customer may have it", Kind: kindIntSelect, Clear: true,
			Options: []option{{"", "Whenever it applies"}, {"1", "Once a day"},
				{"2", "Once a week (Monday to Sunday)"}, {"4", "Once"},
				{"3", "On its days and hours, below"}}},
		setupField{Name: "freq_details", Label: "Its days", Kind: kindPick, Source: "weekdays", Clear: true,
			Hint: "With “On its days and hours” only."},
		setupField{Name: "peak_from", Label: "From", Kind: kindTime, Row: "h", Clear: true},
		setupField{Name: "peak_to", Label: "Until", Kind: kindTime, Row: "h", Clear: true, Hint: "Not included."})
	if typ != "1" && typ != "3" {
		fields = append(fields, setupField{Name: "coupon_expires_in", Label: "A coupon lasts", Kind: kindInt, Unit: "days", Clear: true,
			Hint: "From when it is issued. Empty: as long as the offer."})
	}
	return append(fields,
		setupField{Name: "branches", Label: "Branches", Kind: kindBranches, Hint: "None chosen: every branch."},
		setupField{Name: "targeted", Label: "Only for some customers", Kind: kindBool, Hint: "Only the customers chosen below see it and may have it."},
		setupField{Name: "customers", Label: "Its customers", Kind: kindCustomers, Clear: true,
			Hint: "Find them by name, e-mail or phone, and tick them."},
		enabledField,
	)
}

var offerKind = &setupKind{Path: "offers", Title: "Offers", One: "offer", Toggle: true,
	Lead:      "Points multipliers and bonuses apply to sales by themselves; coupon offers are issued to customers.",
	Types:     offerTypes,
	TypeHints: offerHints,
	TypeField: "type_id",
	typed:     offerFields,
	list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
		all, _, err := s.Program.Services.Offers.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
		var rows []setupRow
		for _, o := range all {
			facts := []string{optionLabel(offerTypes, intText(int64(o.TypeID)))}
			if o.CouponOffer() && o.Points > 0 {
				facts = append(facts, "costs "+intText(o.Points)+" points")
			}
			if o.Targeted {
				facts = append(facts, counted(len(o.TargetIDs), "customer", "customers"))
			}
			rows = append(rows, setupRow{ID: intText(o.ID), Title: o.Title, Enabled: o.Enabled, Facts: facts})
		}
		return rows, err
	},
	get: func(ctx context.Context, s *Server, b loyalty.Business, id string, loc *time.Location) (map[string]string, []string, error) {
		o, err := s.Program.Services.Offers.Get(ctx, b, id)
		return map[string]string{"type_id": intText(int64(o.TypeID)), "title": o.Title, "description": o.Description,
			"multip_factor": factorText(o.MultipFactor), "points": zeroless(o.Points), "discount_value": moneyText(o.DiscountValue),
			"real_value": moneyText(o.RealValue), "min_purchase": moneyText(o.MinPurchase), "max_purchase": moneyText(o.MaxPurchase),
			"starts_at": dateText(o.StartsAt, loc), "expires_at": dateText(o.ExpiresAt, loc), "enabled": boolText(o.Enabled),
			"offer_frequency_id": frequencyText(o.Frequency), "coupon_expires_in": zeroless(o.CouponExpiresIn),
			"targeted": boolText(o.Targeted), "customers": strings.Join(o.TargetIDs, "\n"),
			"freq_details": weekdaysText(o.Days), "peak_from": o.PeakFrom, "peak_to": o.PeakTo}, o.BranchIDs, err
	},
	save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
		in, err := decodeAs[loyalty.OfferInput](body)
		if err != nil {
			return err
		}
		return s.Program.SaveOffer(ctx, a, id, name, in)
	},
}

// frequencyText is an offer's frequency as its choice shows it.
func frequencyText(f int) string {
	if f == 0 {
		return ""
	}
	return strconv.Itoa(f)
}

// weekdayOptions are the days of an offer's window, as the API numbers
// them (1 Monday to 7 Sunday).
var weekdayOptions = []option{{"1", "Mon"}, {"2", "Tue"}, {"3", "Wed"}, {"4", "Thu"}, {"5", "Fri"}, {"6", "Sat"}, {"7", "Sun"}}

// weekdaysText is an offer's days as its picks hold them.
func weekdaysText(days []int) string {
	var out []string
	for _, d := range days {
		out = append(out, strconv.Itoa(d))
	}
	return strings.Join(out, "\n")
}
