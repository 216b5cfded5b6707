package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalletMemberData (issue 31 item 4 on the wallet): a member
// downloads their data from the wallet's settings (a JSON file holding
// their entries and no other member's) and deletes their account after a
// page saying what happens: refused without the PIN, with a wrong one,
// and while a gift-card balance is held; then erased, signed out, their
// session and tokens dead, their entries summing to zero, their profile
// photo's file gone, and the counter finding them no more by code,
// e-mail or id.
func TestWalletMemberData(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		cafe := e.biz
		owner := e.owner(t, cafe)
		ann := e.register(t, cafe.Key, map[string]any{"email": "ann@example.com", "pin_code": 2468, "first_name": "Ann"})
		bo := e.register(t, cafe.Key, map[string]any{"email": "bo@example.com", "pin_code": 1357, "first_name": "Bo"})
		owner.reward(t, ann.ID, 100)
		owner.reward(t, bo.ID, 37)
		base := "/wallet/" + cafe.ID
		photos := func() int {
			names, _ := filepath.Glob(filepath.Join(e.app.Config.DataDir, "images", "*"))
			return len(names)
		}
		annAPI := e.asUser(t, e.userApp(t), cafe.Key, "ann@example.com", "2468")
		annAPI.upload(t, "me", "image", "ann.png", "image/png", testImage(t, "png")).want(t, http.StatusOK)

		w := e.web(t)
		w.walletSignIn(t, cafe.ID, "ann@example.com", "2468")
		w.get(t, base+"/settings").want(t, http.StatusOK).has(t, "Download my data", base+"/export", "Delete my account", base+"/delete")

		t.Run("download my data", func(t *testing.T) {
			r := w.get(t, base+"/export").want(t, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("the download's Content-Type %q, want application/json", ct)
			}
			if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, ".json") {
				t.Errorf("the download's Content-Disposition %q, want an attachment of a .json file", cd)
			}
			var doc struct {
				Person struct {
					ID    string `json:"id"`
					Email string `json:"email"`
				} `json:"person"`
				Businesses []struct {
					Business     struct{ ID string }
					Transactions []struct {
						Points int64 `json:"points"`
					} `json:"transactions"`
				} `json:"businesses"`
			}
			if err := json.Unmarshal(r.Body, &doc); err != nil {
				t.Fatalf("the download is not JSON: %v\n%s", err, r.Body)
			}
			if doc.Person.Email != "ann@example.com" || len(doc.Businesses) != 1 || doc.Businesses[0].Business.ID != cafe.ID {
				t.Fatalf("the download %s", r.Body)
			}
			if x := doc.Businesses[0].Transactions; len(x) != 1 || x[0].Points != 100 {
				t.Errorf("the download's entries %+v, want ann's one of 100 points", x)
			}
			for _, word := range []string{bo.ID, "bo@example.com", `"points": 37`} {
				if strings.Contains(string(r.Body), word) {
					t.Errorf("ann's download holds %q of another member", word)
				}
			}
		})

		staff := e.web(t)
		staff.signIn(t, "/business", cafe.Email, cafe.Password)
		code := w.memberCode(t, cafe.ID)
		if got := staff.counterFinds(t, code); got != ann.ID {
			t.Fatalf("before the deletion the counter found %q for ann's code", got)
		}
		points := func() int64 {
			t.Helper()
			var sum int64
			if err := e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COALESCE(SUM(points), 0) FROM transactions
				WHERE business_id = $1 AND customer_id = $2`, cafe.ID, ann.ID).Scan(&sum); err != nil {
				t.Fatal(err)
			}
			return sum
		}

		t.Run("refused", func(t *testing.T) {
			w.get(t, base+"/delete").want(t, http.StatusOK).
				has(t, "Delete your account?", "cannot be undone", "100 points", "without your name or contact details", `name="pin"`)
			w.post(t, base+"/delete", url.Values{"pin": {""}}).want(t, http.StatusUnprocessableEntity).has(t, "Enter your PIN")
			w.post(t, base+"/delete", url.Values{"pin": {"1111"}}).want(t, http.StatusUnauthorized).has(t, "The PIN is incorrect")
			// Bo's PIN is not ann's.
			w.post(t, base+"/delete", url.Values{"pin": {"1357"}}).want(t, http.StatusUnauthorized)

			owner.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "purchase_giftcard_prepaid", "amount": 5,
				"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK)
			w.get(t, base+"/delete").want(t, http.StatusOK).has(t, "gift-card balance of")
			w.post(t, base+"/delete", url.Values{"pin": {"2468"}}).want(t, http.StatusUnprocessableEntity).
				has(t, "Your account was not deleted", `id="giftcard-error"`, "must be spent or refunded")
			owner.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "giftcard_payment", "amount": 5,
				"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK)

			w.get(t, base).want(t, http.StatusOK).has(t, "member-code")
			if got := points(); got != 100 {
				t.Errorf("ann's entries sum to %d after refused deletions, want 100", got)
			}
		})

		t.Run("deleted", func(t *testing.T) {
			cookie := w.walletCookie(t, cafe.ID)
			fresh := w.memberCode(t, cafe.ID)
			w.get(t, base+"/delete").want(t, http.StatusOK)
			r := w.post(t, base+"/delete", url.Values{"pin": {"2468"}}).want(t, http.StatusSeeOther)
			if loc := r.Header.Get("Location"); loc != base+"?notice=erased" {
				t.Fatalf("after deleting: %s", loc)
			}
			if w.walletCookieOr(cafe.ID) != "" {
				t.Error("the session cookie is still held after deleting")
			}
			w.get(t, base+"?notice=erased").want(t, http.StatusOK).has(t, "Your account is deleted", "Sign in with another account")
			old := e.web(t)
			old.setCookie(t, base, cookie)
			old.get(t, base+"/settings").want(t, http.StatusSeeOther)
			old.get(t, base+"/export").want(t, http.StatusSeeOther)
			if got := points(); got != 0 {
				t.Errorf("ann's entries sum to %d after the deletion, want 0", got)
			}
			if n := photos(); n != 0 {
				t.Errorf("%d profile photos left after the deletion, want ann's gone", n)
			}
			annAPI.get(t, "/users/me").want(t, http.StatusUnauthorized)
			for _, q := range []string{fresh, "ann@example.com", ann.ID} {
				if got := staff.counterFinds(t, q); got != "" {
					t.Errorf("the counter found %q for %q after the deletion", got, q)
				}
			}
			again := e.web(t)
			again.get(t, base).want(t, http.StatusOK)
			r = again.post(t, base+"/signin", url.Values{"username": {"ann@example.com"}, "pin": {"2468"}})
			if r.Status != http.StatusUnauthorized {
				t.Errorf("signing in after the deletion: %d", r.Status)
			}
			// Bo is untouched.
			if got := owner.pointsBalance(t, bo.ID)["points"]; got != float64(37) {
				t.Errorf("bo's points %v, want 37", got)
			}
		})
	})
}
