package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestProgramSetup: a manager changes the earning rules (the next sale
// earns by them, the audit log has each rule before and after) and
// creates, edits, disables and enables offers, rewards, gift cards,
// referral programs, tiers with levels and branches, each form refused
// with the API's messages beside its fields; a cashier is refused.
func TestProgramSetup(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		owner := e.ownerConsole(t)
		m := e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		cashier := e.staffConsole(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")
		saved := func(r *result, path string) {
			t.Helper()
			r.want(t, http.StatusSeeOther)
			if to := r.Header.Get("Location"); !strings.HasPrefix(to, path+"?notice=") {
				t.Errorf("saved, then sent to %q; want %s", to, path)
			}
		}
		m.get(t, "/business/program").want(t, http.StatusOK).has(t, "Earning rules", "Offers", "Tiers", "Branches")
		cashier.get(t, "/business/program").want(t, http.StatusForbidden)
		cashier.post(t, "/business/program/offers", url.Values{"title": {"x"}}).want(t, http.StatusForbidden)

		// Earning rules.
		m.get(t, "/business/program/rules").want(t, http.StatusOK).has(t, `name="reward_ratio"`)
		m.post(t, "/business/program/rules", url.Values{"reward_ratio": {"two"}, "reward_milestone_amount": {"1"}}).
			want(t, http.StatusUnprocessableEntity).has(t, `id="f-reward_ratio-error"`, "Enter a whole number", `value="two"`)
		m.post(t, "/business/program/rules", url.Values{"reward_ratio": {"2"}, "reward_milestone_amount": {"0"}}).
			want(t, http.StatusUnprocessableEntity).has(t, `id="f-reward_milestone_amount-error"`)
		saved(m.post(t, "/business/program/rules", url.Values{"reward_ratio": {"2"}, "reward_milestone_amount": {"1"}}), "/business/program/rules")
		ann := a.createCustomer(t, map[string]any{"email": "ann@friends.example"})
		var sale struct{ Data struct{ Points int64 } }
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 10,
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).decode(t, &sale)
		if sale.Data.Points != 20 {
			t.Errorf("a sale of 10 after 2 points per 1.00: %d points, want 20", sale.Data.Points)
		}
		m.get(t, "/business/audit").want(t, http.StatusOK).has(t, "Changed the earning rules", "Points per unit spent")

		// The life of a point: usable after some days, expiring after some
		// months, with a notice before; never again when emptied.
		m.get(t, "/business/program/rules").want(t, http.StatusOK).has(t, `name="pending_days" type="text" inputmode="decimal" value="0"`,
			`name="expire_count"`, "The life of a point")
		life := url.Values{"reward_ratio": {"2"}, "reward_milestone_amount": {"1"}, "pending_days": {"14"}, "expire_count": {"0"},
			"expire_unit": {"months"}, "expiry_notice_days": {"30"}}
		m.post(t, "/business/program/rules", life).want(t, http.StatusUnprocessableEntity).has(t, `id="f-expire_count-error"`, "between 1 and 120")
		life.Set("expire_count", "12")
		saved(m.post(t, "/business/program/rules", life), "/business/program/rules")
		var rules struct{ Data map[string]any }
		a.get(t, "/rules").want(t, http.StatusOK).decode(t, &rules)
		if fmt.Sprint(rules.Data["points_expire_after"]) != "map[months:12]" || rules.Data["pending_days"] != 14.0 || rules.Data["expiry_notice_days"] != 30.0 {
			t.Errorf("the rules after the life of a point was set: %v", rules.Data)
		}
		m.get(t, "/business/program/rules").want(t, http.StatusOK).has(t, `name="expire_count" type="text" inputmode="decimal" value="12"`,
			`value="14"`, `value="30"`)
		life.Set("expire_count", "")
		saved(m.post(t, "/business/program/rules", life), "/business/program/rules")
		a.get(t, "/rules").want(t, http.StatusOK).decode(t, &rules)
		if rules.Data["points_expire_after"] != nil {
			t.Errorf("points expire after %v once emptied, want never (null)", rules.Data["points_expire_after"])
		}

		// Offers: the API's message beside the title; then created, edited,
		// disabled (after confirming) and enabled.
		// The type first; each type's form has only its fields, with units.
		m.get(t, "/business/program/offers/new").want(t, http.StatusOK).has(t, `href="?type=1"`, `href="?type=9"`).hasNot(t, `name="title"`)
		m.get(t, "/business/program/offers/new?type=1").want(t, http.StatusOK).has(t, `name="multip_factor"`, `name="type_id" value="1"`).
			hasNot(t, `name="discount_value"`).hasNot(t, `name="coupon_expires_in"`)
		m.get(t, "/business/program/offers/new?type=9").want(t, http.StatusOK).has(t, `name="discount_value"`, `class="unit" id="f-discount_value-unit">%<`,
			`name="coupon_expires_in"`, `>days<`).hasNot(t, `name="multip_factor"`)
		m.post(t, "/business/program/offers", url.Values{"type_id": {"1"}, "multip_factor": {"2"}, "enabled": {"true"}}).
			want(t, http.StatusUnprocessableEntity).has(t, `id="f-title-error"`)
		m.post(t, "/business/program/offers", url.Values{"type_id": {"1"}, "title": {"Double"}, "multip_factor": {"lots"}}).
			want(t, http.StatusUnprocessableEntity).has(t, `id="f-multip_factor-error"`, "Enter an amount")
		saved(m.post(t, "/business/program/offers", url.Values{"type_id": {"1"}, "title": {"Double points"}, "multip_factor": {"2"},
			"enabled": {"true"}}), "/business/program/offers")
		var offers catPage
		a.get(t, "/offers").want(t, http.StatusOK).decode(t, &offers)
		if len(offers.Data) != 1 || offers.Data[0]["multip_factor"] != 2.0 || offers.Data[0]["enabled"] != true {
			t.Fatalf("the offers after the console's create: %v", offers.Data)
		}
		id := catID(offers.Data[0])
		m.get(t, "/business/program/offers").want(t, http.StatusOK).has(t, "Double points", "Points multiplier", "Enabled")
		m.get(t, "/business/program/offers/"+id).want(t, http.StatusOK).has(t, `value="Double points"`, `value="2"`)
		saved(m.post(t, "/business/program/offers/"+id, url.Values{"type_id": {"1"}, "title": {"Triple points"}, "multip_factor": {"3"},
			"enabled": {"true"}}), "/business/program/offers")
		m.get(t, "/business/program/offers/"+id+"/disable").want(t, http.StatusOK).has(t, "Disable this offer?")
		saved(m.post(t, "/business/program/offers/"+id+"/disable", url.Values{"confirm": {"yes"}}), "/business/program/offers")
		m.get(t, "/business/program/offers").want(t, http.StatusOK).has(t, "Triple points", "Disabled")
		saved(m.post(t, "/business/program/offers/"+id+"/enable", nil), "/business/program/offers")

		// Days and hours are set on the form: Tuesdays and Thursdays, 2 to 5 pm.
		saved(m.post(t, "/business/program/offers/"+id, url.Values{"type_id": {"1"}, "title": {"Triple points"}, "multip_factor": {"3"},
			"enabled": {"true"}, "offer_frequency_id": {"3"}, "freq_details": {"2", "4"}, "peak_from": {"14:00"}, "peak_to": {"17:00"}}),
			"/business/program/offers")
		var window struct{ Data map[string]any }
		a.get(t, "/offers/"+id).want(t, http.StatusOK).decode(t, &window)
		if d := window.Data; d["offer_frequency_id"] != 3.0 || fmt.Sprint(d["freq_details"]) != "[2 4]" || d["peak_from"] != "14:00" ||
			d["peak_to"] != "17:00" {
			t.Errorf("the offer's window after the console's save: %v %v %v %v", d["offer_frequency_id"], d["freq_details"], d["peak_from"], d["peak_to"])
		}
		m.get(t, "/business/program/offers/"+id).want(t, http.StatusOK).has(t, `value="14:00"`, `value="17:00"`)
		m.post(t, "/business/program/offers/"+id, url.Values{"type_id": {"1"}, "title": {"Triple points"}, "multip_factor": {"3"},
			"offer_frequency_id": {"3"}, "peak_from": {"14:00"}, "peak_to": {"17:00"}}).want(t, http.StatusUnprocessableEntity).
			has(t, `id="f-freq_details-error"`)
		saved(m.post(t, "/business/program/offers/"+id, url.Values{"type_id": {"1"}, "title": {"Triple points"}, "multip_factor": {"3"},
			"enabled": {"true"}}), "/business/program/offers")

		// A coupon offer for one customer, once each, until a day; its end
		// cleared by emptying the field.
		m.post(t, "/business/program/offers", url.Values{"type_id": {"8"}, "title": {"Muffin for Ann"}, "targeted": {"true"},
			"enabled": {"true"}}).want(t, http.StatusUnprocessableEntity).has(t, `id="f-customers-error"`)
		// Its customers are found by name, e-mail or phone: Find shows the
		// form again with those found to tick, saving nothing.
		m.post(t, "/business/program/offers", url.Values{"type_id": {"8"}, "title": {"Muffin for Ann"}, "targeted": {"true"},
			"customers_q": {"ann@"}, "find": {"1"}}).want(t, http.StatusOK).
			has(t, `value="Muffin for Ann"`, `name="customers" value="`+ann.ID+`">`, "ann@friends.example", `value="ann@"`)
		m.post(t, "/business/program/offers", url.Values{"type_id": {"8"}, "title": {"Muffin for Ann"}, "customers_q": {"nobody"},
			"find": {"1"}}).want(t, http.StatusOK).has(t, "Nobody found for “nobody”.")
		saved(m.post(t, "/business/program/offers", url.Values{"type_id": {"8"}, "title": {"Muffin for Ann"}, "targeted": {"true"},
			"customers": {ann.ID}, "offer_frequency_id": {"4"}, "expires_at": {"2099-01-31"}, "enabled": {"true"}}),
			"/business/program/offers")
		a.get(t, "/offers").want(t, http.StatusOK).decode(t, &offers)
		muffin := offers.Data[len(offers.Data)-1]
		if muffin["title"] != "Muffin for Ann" || muffin["targeted"] != true || muffin["offer_frequency_id"] != 4.0 ||
			!strings.HasPrefix(fmt.Sprint(muffin["expires_at"]), "2099-01-31") {
			t.Errorf("the targeted offer saved: %v", muffin)
		}
		mid := catID(muffin)
		m.get(t, "/business/program/offers/"+mid).want(t, http.StatusOK).has(t, `value="2099-01-31"`, `name="customers" value="`+ann.ID+`" checked>`,
			"ann@friends.example", `value="4" checked>`)
		saved(m.post(t, "/business/program/offers/"+mid, url.Values{"type_id": {"8"}, "title": {"Muffin for Ann"}, "targeted": {"true"},
			"customers": {ann.ID}, "offer_frequency_id": {""}, "expires_at": {""}, "enabled": {"true"}}), "/business/program/offers")
		a.get(t, "/offers").want(t, http.StatusOK).decode(t, &offers)
		if muffin = offers.Data[len(offers.Data)-1]; muffin["expires_at"] != nil || muffin["offer_frequency_id"] != nil {
			t.Errorf("the offer after clearing its end and limit: %v", muffin)
		}

		// The other parts of the program.
		saved(m.post(t, "/business/program/rewards", url.Values{"kind": {"catalog_item"}, "title": {"Mug"}, "points": {"50"},
			"enabled": {"true"}}), "/business/program/rewards")
		saved(m.post(t, "/business/program/giftcards", url.Values{"title": {"Card"}, "real_value": {"20"}, "discount_value": {"25"},
			"enabled": {"true"}}), "/business/program/giftcards")
		saved(m.post(t, "/business/program/referral-programs", url.Values{"rule_name": {"Friends"}, "cond_min_amount": {"10"},
			"referee_earns": {"30"}, "referer_earns": {"50"}, "expires_in": {"30"}, "link_referral_enabled": {"true"},
			"enabled": {"true"}}), "/business/program/referral-programs")
		m.post(t, "/business/program/tiers", url.Values{"tiers_relation": {"0"}, "reset_type": {"0"}, "enabled": {"true"},
			"tier_levels.0.name": {"Gold"}, "tier_levels.0.reach_points": {"500"},
			"tier_levels.1.name": {"Silver"}, "tier_levels.1.reach_points": {"100"}}).want(t, http.StatusUnprocessableEntity).
			has(t, `id="f-tier_levels.1.reach_points-error"`)
		saved(m.post(t, "/business/program/tiers", url.Values{"tiers_relation": {"0"}, "reset_type": {"0"}, "enabled": {"true"},
			"tier_levels.0.name": {"Silver"}, "tier_levels.0.reach_points": {"100"},
			"tier_levels.1.name": {"Gold"}, "tier_levels.1.reach_points": {"500"}}), "/business/program/tiers")
		saved(m.post(t, "/business/program/branches", url.Values{"name": {"Harbour"}, "address.city": {"Vancouver"}}), "/business/program/branches")
		m.get(t, "/business/program/tiers").want(t, http.StatusOK).has(t, "Silver, Gold", "2 levels")
		m.get(t, "/business/program/branches").want(t, http.StatusOK).has(t, "Harbour", "Vancouver", "Main branch")
		for path, want := range map[string]string{"/rewards": "Mug", "/giftcards": "Card", "/referral-programs": "Friends", "/tiers": "Gold"} {
			body := a.get(t, path).want(t, http.StatusOK)
			if !strings.Contains(string(body.Body), want) {
				t.Errorf("GET %s after the console's create: %s", path, body.Body)
			}
		}
		var tiers struct {
			Data []struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		a.get(t, "/tiers").want(t, http.StatusOK).decode(t, &tiers)
		edit := m.get(t, "/business/program/tiers/"+strconv.FormatInt(tiers.Data[0].ID, 10)).want(t, http.StatusOK)
		edit.has(t, `value="Silver"`, `value="Gold"`, `name="tier_levels.0.id"`)

		var got []string
		for _, entry := range e.auditActions(t, e.biz.ID) {
			if strings.HasSuffix(entry, " by mgr@cafe.example") {
				got = append(got, strings.SplitN(entry, " by ", 2)[0])
			}
		}
		want := []string{"program.created Branch: Harbour", "program.created Tier program: Silver",
			"program.created Referral program: Friends", "program.created Gift card: Card", "program.created Reward: Mug",
			"program.updated Offer: Muffin for Ann", "program.created Offer: Muffin for Ann",
			"program.updated Offer: Triple points", "program.updated Offer: Triple points", "program.updated Offer: Triple points",
			// The window set, then cleared (the refused save in between is not an entry).
			"program.updated Offer: Triple points", "program.updated Offer: Triple points",
			"program.created Offer: Double points", "rules.updated Earning rules", "rules.updated Earning rules", "rules.updated Earning rules",
			"staff.joined mgr@cafe.example"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the manager's audit entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
