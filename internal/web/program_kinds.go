package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// setupKind is one part of the program's setup: its list, its form, and
// how a form is saved through console.ProgramDesk.
type setupKind struct {
	Path, Title, One, Lead string
	Fields                 []setupField
	Toggle                 bool // objects are enabled and disabled
	// Search is the label of the list's search box ("" for none): the
	// list is then paged by page rather than read whole by list.
	Search string
	list   func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error)
	page   func(ctx context.Context, s *Server, a loyalty.Actor, b loyalty.Business, q string, page int) ([]setupRow, bool, error)
	// get returns an object's form values and its chosen branches.
	get  func(ctx context.Context, s *Server, b loyalty.Business, id string, loc *time.Location) (map[string]string, []string, error)
	save func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error
	// remove deletes an object (nil: objects are not deleted).
	remove func(ctx context.Context, s *Server, a loyalty.Actor, id, name string) error
	// Types are the kinds of object the form is for, chosen before the
	// form (a rule's effect); typed returns a type's fields, and TypeField
	// is the field that carries the type.
	Types     []option
	TypeHints map[string]string // a line under each type
	TypeField string
	typed     func(typ string) []setupField
	// preview evaluates a posted form on a sample (a rule's live preview).
	preview func(r *http.Request, s *Server, a loyalty.Actor, b loyalty.Business, body []byte) (*rulePreview, error)
}

// fieldsOf returns the fields of the form with values form.
func (k *setupKind) fieldsOf(form map[string]string) []setupField {
	if k.typed != nil {
		return k.typed(form[k.TypeField])
	}
	return k.Fields
}

// setupRow is one object of a list.
type setupRow struct {
	ID, Title string
	Facts     []string
	Enabled   bool
}

// decodeAs reads the API's body into the input type T.
func decodeAs[T any](body []byte) (T, error) {
	var in T
	err := json.Unmarshal(body, &in)
	return in, err
}

// intID reads an integer id of a path; 0 for none.
func intID(id string) int64 {
	n, _ := strconv.ParseInt(id, 10, 64)
	return n
}

var enabledField = setupField{Name: "enabled", Label: "Enabled", Kind: kindBool, Hint: "Customers see it and it applies."}

var setupKinds = []*setupKind{
	earningRuleKind,
	offerKind,
	{Path: "rewards", Title: "Rewards catalogue", One: "reward", Toggle: true,
		Lead: "What customers redeem their points for: catalogue items at the counter and in their app.",
		Fields: []setupField{
			{Name: "kind", Label: "Kind", Kind: kindSelect, Options: []option{{loyalty.CatalogItem, "Catalogue item"}, {loyalty.CustomReward, "Custom reward"}}},
			{Name: "title", Label: "Title", Kind: kindText},
			{Name: "description", Label: "Description", Kind: kindTextarea},
			{Name: "points", Label: "Costs", Kind: kindInt, Unit: "points"},
			{Name: "type_id", Label: "What it gives", Kind: kindIntSelect, Options: []option{{"", "Nothing more"},
				{"15", "A free product"}, {"16", "Cashback"}, {"18", "A percentage off"}}},
			{Name: "real_value", Label: "Product's value", Kind: kindMoney, Unit: unitCurrency, Row: "a"},
			{Name: "amount", Label: "Cashback", Kind: kindMoney, Unit: unitCurrency, Row: "a"},
			{Name: "discount_value", Label: "Off", Kind: kindMoney, Unit: "%", Row: "a"},
			{Name: "expires_at", Label: "Ends", Kind: kindDate, Clear: true},
			enabledField,
		},
		list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
			all, _, err := s.Program.Services.Rewards.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
			var rows []setupRow
			for _, r := range all {
				rows = append(rows, setupRow{ID: intText(r.ID), Title: r.Title, Enabled: r.Enabled, Facts: []string{intText(r.Points) + " points"}})
			}
			return rows, err
		},
		get: func(ctx context.Context, s *Server, b loyalty.Business, id string, loc *time.Location) (map[string]string, []string, error) {
			r, err := s.Program.Services.Rewards.Get(ctx, b, id)
			typ := ""
			if r.TypeID != 0 {
				typ = intText(int64(r.TypeID))
			}
			return map[string]string{"kind": r.Kind, "title": r.Title, "description": r.Description, "points": intText(r.Points),
				"type_id": typ, "real_value": moneyText(r.RealValue), "amount": moneyText(r.Amount),
				"discount_value": moneyText(r.DiscountValue), "expires_at": dateText(r.ExpiresAt, loc), "enabled": boolText(r.Enabled)}, nil, err
		},
		save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
			in, err := decodeAs[loyalty.RewardInput](body)
			if err != nil {
				return err
			}
			return s.Program.SaveReward(ctx, a, id, name, in)
		},
	},
	{Path: "giftcards", Title: "Gift cards", One: "gift card", Toggle: true,
		Lead: "Gift cards the counter sells: the customer pays the price and receives the credit.",
		Fields: []setupField{
			{Name: "title", Label: "Title", Kind: kindText},
			{Name: "description", Label: "Description", Kind: kindTextarea},
			{Name: "real_value", Label: "Price", Kind: kindMoney, Unit: unitCurrency, Row: "a"},
			{Name: "discount_value", Label: "Credit", Kind: kindMoney, Unit: unitCurrency, Row: "a"},
			{Name: "expires_at", Label: "Ends", Kind: kindDate, Clear: true},
			{Name: "branches", Label: "Branches", Kind: kindBranches, Hint: "None chosen: every branch."},
			enabledField,
		},
		list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
			all, _, err := s.Program.Services.Giftcards.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
			var rows []setupRow
			for _, g := range all {
				rows = append(rows, setupRow{ID: intText(g.ID), Title: g.Title, Enabled: g.Enabled, Facts: []string{format.Money(g.RealValue, b) + " for " + format.Money(g.DiscountValue, b)}})
			}
			return rows, err
		},
		get: func(ctx context.Context, s *Server, b loyalty.Business, id string, loc *time.Location) (map[string]string, []string, error) {
			g, err := s.Program.Services.Giftcards.Get(ctx, b, id)
			return map[string]string{"title": g.Title, "description": g.Description, "real_value": moneyText(g.RealValue),
				"discount_value": moneyText(g.DiscountValue), "expires_at": dateText(g.ExpiresAt, loc), "enabled": boolText(g.Enabled)}, g.BranchIDs, err
		},
		save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
			in, err := decodeAs[loyalty.GiftcardInput](body)
			if err != nil {
				return err
			}
			return s.Program.SaveGiftcard(ctx, a, id, name, in)
		},
	},
	{Path: "referral-programs", Title: "Referral programs", One: "referral program", Toggle: true,
		Lead: "What a customer and the friend they bring earn on the friend's first qualifying purchase. One is enabled at a time.",
		Fields: []setupField{
			{Name: "rule_name", Label: "Name", Kind: kindText},
			{Name: "cond_min_amount", Label: "Minimum first purchase", Kind: kindMoney, Unit: unitCurrency},
			{Name: "referee_earns", Label: "The friend earns", Kind: kindInt, Unit: "points", Row: "a"},
			{Name: "referer_earns", Label: "The customer earns", Kind: kindInt, Unit: "points", Row: "a"},
			{Name: "expires_in", Label: "Time to qualify", Kind: kindInt, Unit: "days"},
			{Name: "link_referral_enabled", Label: "Shared by link", Kind: kindBool, Hint: "Each customer gets a referral link to share."},
			enabledField,
		},
		list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
			all, err := s.Program.Services.ReferralPrograms.List(ctx, b)
			var rows []setupRow
			for _, p := range all {
				rows = append(rows, setupRow{ID: intText(p.ID), Title: cmp(p.RuleName, "Referral program "+intText(p.ID)), Enabled: p.Enabled,
					Facts: []string{intText(p.RefereeEarns) + " + " + intText(p.RefererEarns) + " points"}})
			}
			return rows, err
		},
		get: func(ctx context.Context, s *Server, b loyalty.Business, id string, _ *time.Location) (map[string]string, []string, error) {
			p, err := s.Program.Services.ReferralPrograms.Get(ctx, b, intID(id))
			return map[string]string{"rule_name": p.RuleName, "cond_min_amount": moneyText(p.CondMinAmount),
				"referee_earns": intText(p.RefereeEarns), "referer_earns": intText(p.RefererEarns), "expires_in": intText(p.ExpiresIn),
				"link_referral_enabled": boolText(p.LinkReferralEnabled), "enabled": boolText(p.Enabled)}, nil, err
		},
		save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
			in, err := decodeAs[loyalty.ReferralProgramInput](body)
			if err != nil {
				return err
			}
			return s.Program.SaveReferralProgram(ctx, a, intID(id), name, in)
		},
	},
	tierKind,
	punchCardKind,
	productKind,
	categoryKind,
	{Path: "branches", Title: "Branches", One: "branch",
		Lead: "Your shops. Offers and gift cards may be limited to some of them.",
		Fields: []setupField{
			{Name: "name", Label: "Name", Kind: kindText},
			{Name: "web_site", Label: "Web site", Kind: kindText},
			{Name: "address.formatted", Label: "Street", Kind: kindText},
			{Name: "address.city", Label: "City", Kind: kindText, Row: "a"},
			{Name: "address.region", Label: "Region", Kind: kindText, Row: "a"},
			{Name: "address.country", Label: "Country", Kind: kindText, Row: "a"},
		},
		list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
			all, err := s.Program.Services.Branches.All(ctx, b)
			var rows []setupRow
			for _, br := range all {
				row := setupRow{ID: br.ID, Title: br.Name, Enabled: true, Facts: []string{br.Address.City}}
				if br.IsMain {
					row.Facts = append(row.Facts, "Main branch")
				}
				rows = append(rows, row)
			}
			return rows, err
		},
		get: func(ctx context.Context, s *Server, b loyalty.Business, id string, _ *time.Location) (map[string]string, []string, error) {
			all, err := s.Program.Services.Branches.All(ctx, b)
			for _, br := range all {
				if br.ID == id {
					return map[string]string{"name": br.Name, "web_site": br.WebSite, "address.formatted": br.Address.Formatted,
						"address.city": br.Address.City, "address.region": br.Address.Region, "address.country": br.Address.Country}, nil, err
				}
			}
			return nil, nil, cmpErr(err, loyalty.Errorf(loyalty.ENotFound, "Branch not found."))
		},
		save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
			in, err := decodeAs[loyalty.BranchInput](body)
			if err != nil {
				return err
			}
			return s.Program.SaveBranch(ctx, a, id, name, in)
		},
	},
}

// cmp returns a, or b when a is empty.
func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cmpErr returns a, or b when a is nil.
func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// optionLabel is the label of the option with value v.
func optionLabel(opts []option, v string) string {
	for _, o := range opts {
		if o.Value == v {
			return o.Label
		}
	}
	return v
}
