package e2e

import (
	"net/http"
	"net/url"
	"testing"
)

// TestReferenceCurrency replays rest_business_rules.apib's redemption
// value and reads the business's currency as the reference shows it: in
// GET /rules (redeeming, currency) and in GET /me (business.settings.currency,
// business.cover_photo), for a business in the United States and one in
// Canada. Each refusal names its field and changes nothing; the console's
// dashboard counts the liability at the redemption value, in the currency.
func TestReferenceCurrency(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		data := func(r *result) map[string]any {
			t.Helper()
			return r.want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		}

		// A business created in the United States keeps dollars; it never
		// said what its points are worth.
		r := data(a.replay(t, "GET", "/rules", ""))
		wantAt(t, r, "currency.iso_code", "USD", "currency.code", "USD", "currency.symbol", "$", "currency.denominator", 100.0,
			"currency.name", nil)
		if r["redeeming"] != nil {
			t.Fatalf("redeeming before it was set = %v, want null", r["redeeming"])
		}

		// The docs' values: 20 points are worth 1 of the currency.
		r = data(a.replay(t, "PATCH", "/rules", `{"redemption_ratio": 20, "redemption_amount": 1}`))
		wantAt(t, r, "redeeming.redemption_ratio", 20.0, "redeeming.redemption_amount", 1.0)
		r = data(a.replay(t, "PATCH", "/rules", `{"currency": "eur"}`))
		wantAt(t, r, "currency.iso_code", "EUR", "currency.symbol", "€", "redeeming.redemption_ratio", 20.0)
		r = data(a.replay(t, "GET", "/rules", ""))
		wantAt(t, r, "currency.iso_code", "EUR", "redeeming.redemption_ratio", 20.0, "redeeming.redemption_amount", 1.0)

		// Refusals name the field and change nothing.
		for body, field := range map[string]string{
			`{"redemption_ratio": 0}`:                            "redemption_ratio",
			`{"redemption_ratio": "20"}`:                         "redemption_ratio",
			`{"redemption_ratio": 2.5}`:                          "redemption_ratio",
			`{"redemption_amount": 1.234}`:                       "redemption_amount",
			`{"redemption_amount": -1}`:                          "redemption_amount",
			`{"redemption_ratio": null}`:                         "redemption_ratio",
			`{"currency": "EURO"}`:                               "currency",
			`{"currency": null}`:                                 "currency",
			`{"currency": "JPY", "redemption_ratio": -5}`:        "redemption_ratio",
			`{"currency": {"name": "Euro"}, "reward_ratio": 50}`: "currency.iso_code",
		} {
			a.replay(t, "PATCH", "/rules", body).wantFields(t, field)
		}
		r = data(a.get(t, "/rules"))
		wantAt(t, r, "currency.iso_code", "EUR", "redeeming.redemption_ratio", 20.0, "redeeming.redemption_amount", 1.0,
			"earning.reward_ratio", 1.0)

		// GET /me: the currency in the business's settings, no cover yet.
		me := data(a.replay(t, "GET", "/me", ""))
		wantAt(t, me, "business.settings.currency.code", "EUR", "business.settings.currency.symbol", "€",
			"business.cover_photo", nil)
		if b := me["business"].(map[string]any); b["cover_photo"] != nil {
			t.Errorf("cover_photo without a cover = %v, want null", b["cover_photo"])
		}

		// The console's profile sets a cover; GET /me shows it at every size.
		owner := e.ownerConsole(t)
		cover := "https://cdn.cafe.example/cover.jpg"
		owner.post(t, "/business/profile", url.Values{"name": {"Corner Cafe"}, "cover": {cover}, "currency": {"EUR"},
			"time_zone": {"UTC"}, "brand_color": {"#4338ca"}}).want(t, http.StatusSeeOther)
		me = data(a.get(t, "/me?include=settings,business"))
		wantAt(t, me, "business.cover_photo.large", cover, "business.cover_photo.medium", cover,
			"business.cover_photo.thumbnail", cover, "business.settings.currency.iso_code", "EUR")
		included := a.get(t, "/me?include=settings,business").want(t, http.StatusOK).obj(t)["included"].(map[string]any)
		wantAt(t, included, "settings.currency.symbol", "€", "business.settings.currency.code", "EUR")

		// The dashboard counts 250 points at 20 for €1.00: €12.50.
		ann := a.createCustomer(t, map[string]any{"email": "ann@currency.example"})
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 250,
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK)
		owner.get(t, "/business/dashboard").want(t, http.StatusOK).
			has(t, `id="kpi-liability"><dt>Points liability</dt><dd class="value">€12.50<`, "at €1.00 for 20 points (your redemption value)")

		// A Canadian business has Canadian dollars, written "$" in en-CA;
		// US dollars are "US$" there; yen have no minor unit.
		ca := e.owner(t, e.newBusiness(t, "Maple"))
		wantAt(t, data(ca.get(t, "/rules")), "currency.iso_code", "CAD", "currency.symbol", "$")
		wantAt(t, data(ca.do(t, http.MethodPatch, "/rules", map[string]any{"currency": map[string]any{"iso_code": "USD"}})),
			"currency.iso_code", "USD", "currency.symbol", "US$")
		wantAt(t, data(ca.do(t, http.MethodPatch, "/rules", map[string]any{"currency": "JPY"})),
			"currency.iso_code", "JPY", "currency.denominator", 1.0)
		wantAt(t, data(ca.get(t, "/me")), "business.settings.currency.iso_code", "JPY")

		// Yen have no cents: an amount with them is refused by name, on a
		// sale as in the rules; whole yen are taken.
		bob := ca.createCustomer(t, map[string]any{"email": "bob@currency.example"})
		sale := func(amount any) *result {
			return ca.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": amount,
				"customer": map[string]any{"id": bob.ID}})
		}
		sale(12.5).wantFields(t, "amount")
		sale(1250).want(t, http.StatusOK)
		ca.do(t, http.MethodPatch, "/rules", map[string]any{"redemption_ratio": 10, "redemption_amount": 0.5}).
			wantFields(t, "redemption_amount")

		// The audit log writes the amounts of a change in the currency
		// they were set in: the redemption value set in euros stays in
		// euros after the business chose dollars.
		owner.post(t, "/business/program/rules", url.Values{"reward_ratio": {"1"}, "reward_milestone_amount": {"1"},
			"redemption_ratio": {"20"}, "redemption_amount": {"2"}}).want(t, http.StatusSeeOther)
		owner.post(t, "/business/profile", url.Values{"name": {"Corner Cafe"}, "cover": {cover}, "currency": {"USD"},
			"time_zone": {"UTC"}, "brand_color": {"#4338ca"}}).want(t, http.StatusSeeOther)
		owner.get(t, "/business/audit").want(t, http.StatusOK).has(t, "€1.00", "€2.00")
	})
}
