package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// formKey returns the Idempotency-Key of the form posting to action on a
// page.
func formKey(t *testing.T, r *result, action string) string {
	t.Helper()
	body := string(r.Body)
	i := strings.Index(body, `action="`+action+`"`)
	if i < 0 {
		t.Fatalf("%s: no form posting to %s", r.what, action)
	}
	m := regexp.MustCompile(`name="idempotency_key" value="([^"]+)"`).FindStringSubmatch(body[i:])
	if m == nil {
		t.Fatalf("%s: the form posting to %s has no Idempotency-Key", r.what, action)
	}
	return m[1]
}

// TestCounter: a cashier finds the customer by e-mail, local phone
// number, customer code or a coupon's code; sees what a purchase earns
// with the active offers before recording it; records it once however
// often the form is sent; redeems a reward (a second redemption beyond
// the balance is refused, and its repeat gets the same refusal); claims
// the scanned coupon; sells gift-card credit and pays with it. Each
// action is in the audit log once, under the cashier's name.
func TestCounter(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		owner := e.ownerConsole(t)
		c := e.staffConsole(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")
		a.do(t, http.MethodPatch, "/rules", map[string]any{"reward_ratio": 1, "reward_milestone_amount": 1}).want(t, http.StatusOK)
		a.catOffer(t, map[string]any{"type_id": 1, "title": "Double points", "multip_factor": 2})
		muffin := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free muffin"})
		mug := catID(a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 20}))
		ann := a.createCustomer(t, map[string]any{"email": "ann@friends.example", "first_name": "Ann", "phone": "+1 604 555 0142"})
		coupon := a.catTransact(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": json.Number(muffin)}})
		qrcode := coupon["coupon"].(map[string]any)["qrcode"].(string)
		serve := "/business/counter/" + ann.ID

		// Finding the customer.
		for _, code := range []string{"Ann@Friends.example", "604 555 0142", strings.ToUpper(ann.ID)} {
			r := c.get(t, "/business/counter?code="+url.QueryEscape(code)).want(t, http.StatusSeeOther)
			if to := r.Header.Get("Location"); to != serve {
				t.Errorf("code %q led to %q, want %q", code, to, serve)
			}
		}
		r := c.get(t, "/business/counter?code="+url.QueryEscape(" "+strings.ToLower(qrcode)+" ")).want(t, http.StatusSeeOther)
		if to := r.Header.Get("Location"); !strings.HasPrefix(to, serve+"?coupon=") {
			t.Errorf("the coupon's code led to %q", to)
		}
		page := c.get(t, r.Header.Get("Location")).want(t, http.StatusOK).has(t, "Scanned coupon: Free muffin")
		claimKey := formKey(t, page, serve+"/claim")
		c.get(t, "/business/counter?code=NOSUCHCODE").want(t, http.StatusOK).has(t, "Nobody found")

		// A sale: the preview, then the sale, once.
		c.get(t, serve+"?amount=abc").want(t, http.StatusUnprocessableEntity).has(t, `id="sale-amount-error"`)
		page = c.get(t, serve+"?amount=12.50").want(t, http.StatusOK).has(t, "<strong>24</strong> points", `id="preview-applied"`,
			"<strong>Earning rules</strong>", `<span class="pts">+12</span>`, "<strong>Double points")
		sale := url.Values{"amount": {"12.50"}, "idempotency_key": {formKey(t, page, serve+"/sale")}}
		first := c.post(t, serve+"/sale", sale).want(t, http.StatusSeeOther)
		again := c.post(t, serve+"/sale", sale).want(t, http.StatusSeeOther)
		if to := first.Header.Get("Location"); !strings.HasPrefix(to, serve+"?action=sale&done=") || again.Header.Get("Location") != to {
			t.Errorf("the sale led to %q, its repeat to %q: want the same entry", to, again.Header.Get("Location"))
		}
		c.get(t, first.Header.Get("Location")).want(t, http.StatusOK).has(t, "Sale recorded.", "+24 points", `id="points">24<`)
		changed := url.Values{"amount": {"99.00"}, "idempotency_key": sale["idempotency_key"]}
		c.post(t, serve+"/sale", changed).want(t, http.StatusUnprocessableEntity).has(t, "already used with a different request")
		c.post(t, serve+"/sale", url.Values{"amount": {"5"}}).want(t, http.StatusUnprocessableEntity).has(t, "reload the page")

		// Redeem: once within the balance, then refused beyond it, the
		// same refusal for the same form sent again.
		page = c.get(t, serve).want(t, http.StatusOK).has(t, `Mug <span class="muted">· 20 points</span>`)
		redeem := url.Values{"reward": {mug}, "quantity": {"1"}, "idempotency_key": {formKey(t, page, serve+"/redeem")}}
		c.post(t, serve+"/redeem", redeem).want(t, http.StatusSeeOther)
		page = c.get(t, serve).want(t, http.StatusOK).has(t, `id="points">4<`)
		redeem.Set("idempotency_key", formKey(t, page, serve+"/redeem"))
		for range 2 {
			c.post(t, serve+"/redeem", redeem).want(t, http.StatusUnprocessableEntity).has(t, "points balance is not enough", `id="reward-error"`)
		}

		// The scanned coupon, claimed once.
		claim := url.Values{"coupon": {catID(coupon["coupon"].(map[string]any))}, "idempotency_key": {claimKey}}
		c.post(t, serve+"/claim", claim).want(t, http.StatusSeeOther)
		c.post(t, serve+"/claim", claim).want(t, http.StatusSeeOther)
		c.get(t, serve).want(t, http.StatusOK).has(t, "No coupon to claim")

		// Gift-card credit sold, then spent; not beyond the balance.
		page = c.get(t, serve).want(t, http.StatusOK)
		c.post(t, serve+"/giftcard_sell", url.Values{"amount": {"25"}, "giftcard": {""},
			"idempotency_key": {formKey(t, page, serve+"/giftcard_sell")}}).want(t, http.StatusSeeOther)
		c.post(t, serve+"/giftcard_pay", url.Values{"amount": {"10"},
			"idempotency_key": {formKey(t, page, serve+"/giftcard_pay")}}).want(t, http.StatusSeeOther)
		page = c.get(t, serve).want(t, http.StatusOK).has(t, `id="giftcard">$15.00<`)
		c.post(t, serve+"/giftcard_pay", url.Values{"amount": {"100"},
			"idempotency_key": {formKey(t, page, serve+"/giftcard_pay")}}).want(t, http.StatusUnprocessableEntity).
			has(t, "gift-card balance is not enough", `id="pay-amount-error"`)

		cust, err := e.app.DB.Customer(context.Background(), e.biz.ID, ann.ID)
		if err != nil || cust.Balance.Points != 4 || cust.Balance.Giftcard != 1500 {
			t.Errorf("Ann's balance %+v, %v; want 4 points and 15.00 on the gift card", cust.Balance, err)
		}
		var got []string
		for _, entry := range e.auditActions(t, e.biz.ID) {
			if strings.HasPrefix(entry, "counter.") && strings.HasSuffix(entry, " by till@cafe.example") {
				got = append(got, strings.Fields(entry)[0])
			}
		}
		want := "counter.giftcard_payment counter.giftcard_sold counter.coupon_claimed counter.redeem counter.sale"
		if strings.Join(got, " ") != want {
			t.Errorf("the cashier's audit entries %q, want %q (each action once, none for a refusal)", got, want)
		}
	})
}
