package web

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestFormBodyPicks: a pick's ticked values become a list (numbers for
// ids), a ref's one value a number, tags a list, a pick left empty that
// clears an empty list, and a value that is not an id a message.
func TestFormBodyPicks(t *testing.T) {
	fields := []setupField{
		{Name: "conditions.products", Kind: kindPick, Ints: true},
		{Name: "conditions.channels", Kind: kindPick},
		{Name: "category_id", Kind: kindRef, Ints: true, Clear: true},
		{Name: "tags", Kind: kindTags},
		{Name: "branches", Kind: kindBranches, Clear: true},
		{Name: "schedule.from", Kind: kindTime},
	}
	f := url.Values{"conditions.products": {"3", "7"}, "conditions.channels": {"online"}, "category_id": {"4"},
		"tags": {" hot, ,vegan "}, "schedule.from": {"07:30"}}
	body, bad := formBody(fields, f, time.UTC)
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil || len(bad) != 0 {
		t.Fatalf("body %s, bad %v, %v", body, bad, err)
	}
	want := map[string]any{"conditions": map[string]any{"products": []any{3.0, 7.0}, "channels": []any{"online"}},
		"category_id": 4.0, "tags": []any{"hot", "vegan"}, "branches": []any{}, "schedule": map[string]any{"from": "07:30"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body %v, want %v", got, want)
	}
	_, bad = formBody(fields, url.Values{"conditions.products": {"x"}}, time.UTC)
	if len(bad["conditions.products"]) != 1 {
		t.Errorf("a product id x: %v", bad)
	}
	body, _ = formBody(fields, url.Values{"category_id": {""}}, time.UTC)
	if string(body) != `{"branches":[],"category_id":null}` {
		t.Errorf("a category cleared: %s", body)
	}
}

// TestRuleBody: a rule's form sends its schedule, conditions and limits
// whole, and leaves out a limit without its number (its period's select
// always posts one).
func TestRuleBody(t *testing.T) {
	body, bad := formBody(ruleFields(loyalty.EffectBonus), url.Values{"name": {"Birthday"}, "effect.type": {"bonus"},
		"effect.points": {"50"}, "limits.per_customer.period": {"day"}, "limits.budget.points": {"500"},
		"limits.budget.period": {"month"}, "enabled": {"true"}}, time.UTC)
	if len(bad) != 0 {
		t.Fatal(bad)
	}
	var got map[string]any
	json.Unmarshal(ruleBody(body), &got)
	want := map[string]any{"schedule": map[string]any{}, "conditions": map[string]any{"first_purchase": false},
		"limits": map[string]any{"budget": map[string]any{"points": 500.0, "period": "month"}}}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if e := got["effect"].(map[string]any); e["type"] != "bonus" || e["points"] != 50.0 || len(e) != 2 {
		t.Errorf("effect = %v", e)
	}
}

// TestErrorsFor: a message about a list's item is shown beside the list.
func TestErrorsFor(t *testing.T) {
	fields := ruleFields(loyalty.EffectMultiplier)
	got := errorsFor(map[string][]string{"conditions.products.2": {"a"}, "schedule.days.0": {"b"}, "effect.factor": {"c"},
		"effect": {"d"}}, fields)
	want := map[string][]string{"conditions.products": {"a"}, "schedule.days": {"b"}, "effect.factor": {"c"}, "effect": {"d"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errorsFor = %v", got)
	}
	if msg := fieldsMessage(map[string][]string{"effect": {"The effect field is required."}}, fields); msg !=
		"Please correct the fields marked below. The effect field is required." {
		t.Errorf("a message with no field of its own: %q", msg)
	}
}

// TestSaleLines: a SKU scanned adds a unit to its line or a line of its
// own; a line of quantity 0 is dropped.
func TestSaleLines(t *testing.T) {
	got := saleLines(url.Values{"item_sku": {"A-1", "B-2", "C-3"}, "item_qty": {"2", "0", ""}, "item_price": {"", "1", "3.00"},
		"scan": {" A-1 "}})
	want := []console.SaleLine{{SKU: "A-1", Quantity: "3"}, {SKU: "C-3", Quantity: "1", Price: "3.00"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	if got := saleLines(url.Values{"scan": {"D-4"}}); !reflect.DeepEqual(got, []console.SaleLine{{SKU: "D-4", Quantity: "1"}}) {
		t.Errorf("a first scan: %v", got)
	}
}

// TestRuleWords: a rule reads in words in the list.
func TestRuleWords(t *testing.T) {
	b := loyalty.Business{}
	days := 3
	for _, c := range []struct{ got, want string }{
		{effectWords(loyalty.RuleEffect{Type: loyalty.EffectMultiplier, Factor: 150}, b, nil), "×1.5 points"},
		{effectWords(loyalty.RuleEffect{Type: loyalty.EffectPointsPerItem, Points: 5}, b, nil), "5 points per item"},
		{scheduleWords(loyalty.RuleSchedule{Days: []int{1, 2, 3, 4, 5}, From: "07:00", To: "11:00"}), "Mon–Fri 07:00–11:00"},
		{scheduleWords(loyalty.RuleSchedule{Days: []int{2}}), "Tue"},
		{scheduleWords(loyalty.RuleSchedule{}), "every day"},
		{conditionWords(loyalty.RuleConditions{Products: []int64{1, 2}, Channels: []string{"online"}, FirstPurchase: true,
			BirthdayWithinDays: &days}, b), "on 2 products, online, first purchase, birthday ±3 days"},
		{factorText(200), "2"},
		{effectWords(loyalty.RuleEffect{Type: loyalty.EffectStamp, PunchCardID: 4, Stamps: 2}, b, map[string]string{"card-4": "Coffee card"}),
			"2 stamps on Coffee card"},
		{effectWords(loyalty.RuleEffect{Type: loyalty.EffectCoupon, OfferID: 9}, b, nil), "a coupon: offer #9"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	f := ruleForm(loyalty.EarningRule{Name: "x", Schedule: loyalty.RuleSchedule{Days: []int{2, 7}},
		Limits: loyalty.RuleLimits{PerCustomer: &loyalty.RuleLimit{Count: 1, Period: "week"}}}, time.UTC)
	if f["schedule.days"] != "tue\nsun" || f["limits.per_customer.count"] != "1" || f["limits.per_customer.period"] != "week" {
		t.Errorf("the rule's form: %v", f)
	}
}
