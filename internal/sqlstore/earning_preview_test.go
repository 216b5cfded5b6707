package sqlstore_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestPreviewRule is the console's live preview: a basket evaluated with
// an earning rule as it would be once saved (a new one, or a saved one
// changed), checked as saving checks it, and nothing written.
func TestPreviewRule(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		tb := createBusiness(t, db, "")
		b, err := db.Business(ctx, tb.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		rules := &loyalty.EarningRuleService{Store: db}
		txs := &loyalty.TransactionService{Store: db}
		input := func(body string) loyalty.EarningRuleInput {
			t.Helper()
			var in loyalty.EarningRuleInput
			if err := json.Unmarshal([]byte(body), &in); err != nil {
				t.Fatal(err)
			}
			return in
		}
		bonus, err := rules.Create(ctx, b, input(`{"name": "Big order", "conditions": {"min_amount": 20}, "effect": {"type": "bonus", "points": 50}}`))
		if err != nil {
			t.Fatal(err)
		}
		basket := loyalty.EvaluateInput{Amount: loyalty.Some(money(t, "30.00"))}
		plain, err := txs.Evaluate(ctx, b, basket)
		if err != nil {
			t.Fatal(err)
		}
		applied := func(ev loyalty.Evaluation, id string) int64 {
			for _, o := range ev.Applied {
				if o.RuleID == id {
					return o.Points
				}
			}
			return -1
		}
		bonusID := "rule-" + strconv.FormatInt(bonus.ID, 10)
		if applied(plain, bonusID) != 50 {
			t.Fatalf("the saved bonus gave %d, want 50: %+v", applied(plain, bonusID), plain.Applied)
		}

		// A new rule: the saved ones still apply beside it.
		ev, err := txs.PreviewRule(ctx, b, "", input(`{"name": "Bonus for all", "effect": {"type": "bonus", "points": 7}}`), basket)
		if err != nil {
			t.Fatal(err)
		}
		if applied(ev, "rule-0") != 7 || applied(ev, bonusID) != 50 || ev.Points != plain.Points+7 {
			t.Fatalf("new rule previewed as %d points, applied %+v; want %d with both", ev.Points, ev.Applied, plain.Points+7)
		}

		// The saved rule changed: the change decides, not what is saved.
		ev, err = txs.PreviewRule(ctx, b, strconv.FormatInt(bonus.ID, 10), input(`{"conditions": {"min_amount": 40}}`), basket)
		if err != nil {
			t.Fatal(err)
		}
		if applied(ev, bonusID) != -1 || ev.Points != plain.Points-50 {
			t.Fatalf("changed rule previewed as %d points, applied %+v; want %d without the bonus", ev.Points, ev.Applied, plain.Points-50)
		}

		// Checked as saving checks it.
		_, err = txs.PreviewRule(ctx, b, "", input(`{"name": "x", "effect": {"type": "cashback"}}`), basket)
		wantInvalid(t, err, "effect.type")
		_, err = txs.PreviewRule(ctx, b, "999999", input(`{}`), basket)
		wantCode(t, err, loyalty.ENotFound)

		// Nothing written: the saved rule is as it was, and alone.
		list, n, err := rules.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 10})
		if err != nil || n != 1 || list[0].Conditions.MinAmount.String() != "20.00" {
			t.Fatalf("after previews: %d rules %+v (%v), want the one saved as it was", n, list, err)
		}
	})
}

// money parses an amount of a test.
func money(t *testing.T, s string) loyalty.Money {
	t.Helper()
	m, err := loyalty.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
