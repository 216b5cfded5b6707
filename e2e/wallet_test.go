package e2e

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/oauth"
)

// Tests of the member wallet (/wallet/{business}, issue 31 items 5 and 7)
// over HTTP: sign-in, the rotating code the counter finds, redeeming,
// choices, and what one member may never reach of another's or of
// another business's. The browser flow is e2e/browser's TestWallet.

var memberCodeText = regexp.MustCompile(`id="member-code">([A-Z2-7]+)<`)

// walletSignIn signs w in to the wallet of business with a PIN; it must
// succeed.
func (w *webClient) walletSignIn(t *testing.T, business, username, pin string) {
	t.Helper()
	w.get(t, "/wallet/"+business).want(t, http.StatusOK).has(t, "PIN")
	r := w.post(t, "/wallet/"+business+"/signin", url.Values{"username": {username}, "pin": {pin}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/wallet/"+business {
		t.Fatalf("wallet sign-in as %s: %d %s: %s", username, r.Status, r.Header.Get("Location"), r.Body)
	}
}

// memberCode reads the member's current code off the wallet's card.
func (w *webClient) memberCode(t *testing.T, business string) string {
	t.Helper()
	r := w.get(t, "/wallet/"+business).want(t, http.StatusOK)
	m := memberCodeText.FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("the wallet's card shows no member code:\n%s", r.Body)
	}
	return string(m[1])
}

// counterFinds reports whom the console's counter finds for code: the
// customer id it opens, or "" when it finds no one.
func (w *webClient) counterFinds(t *testing.T, code string) string {
	t.Helper()
	r := w.get(t, "/business/counter?code="+url.QueryEscape(code))
	if r.Status == http.StatusSeeOther {
		return strings.TrimPrefix(r.Header.Get("Location"), "/business/counter/")
	}
	r.want(t, http.StatusOK)
	return ""
}

// TestWalletMember: a member signs in to the wallet with e-mail and PIN
// (a session cookie of their own, on the wallet's path, HttpOnly and
// SameSite=Lax), sees the balance and a code the counter finds (and
// finds no more two minutes later, or at another business), redeems a
// reward after seeing what it takes (beyond the balance nothing
// changes), finds its voucher with a QR code, and chooses what they hear
// (recorded as the member's, from the app). The wallet installs: its
// manifest and icons.
func TestWalletMember(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		cafe := e.sandboxBusiness(t)
		owner := e.owner(t, cafe)
		ann := e.register(t, cafe.Key, map[string]any{"email": "ann@example.com", "pin_code": 2468, "first_name": "Ann"})
		owner.reward(t, ann.ID, 100)
		mug := owner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 30})
		bike := owner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Bike", "points": 1000})
		base := "/wallet/" + cafe.ID

		w := e.web(t)
		w.get(t, base).want(t, http.StatusOK).has(t, "Sign in", "Forgot your PIN")
		r := w.post(t, base+"/signin", url.Values{"username": {" ANN@example.com "}, "pin": {"2468"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != base {
			t.Fatalf("sign in: %d %s", r.Status, r.Header.Get("Location"))
		}
		set := strings.Join(r.Header.Values("Set-Cookie"), "\n")
		if !strings.Contains(set, "loyalty_member=") || !strings.Contains(set, "Path="+base) || !strings.Contains(set, "HttpOnly") ||
			!strings.Contains(set, "SameSite=Lax") || strings.Contains(set, "Secure") {
			t.Errorf("the session cookie is set as %q, want loyalty_member on %s, HttpOnly, SameSite=Lax (no Secure over plain HTTP)", set, base)
		}
		card := w.get(t, base).want(t, http.StatusOK).has(t, "Hi Ann!", "100", "Show this at the counter", "data:image/svg+xml;base64,")
		if csp := card.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "manifest-src 'self'") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("the card's CSP %q lacks the manifest or its script", csp)
		}
		code := w.memberCode(t, cafe.ID)

		// The code as JSON, for the card's script.
		var next struct {
			Code  string
			QR    string
			Until int64
		}
		w.get(t, base+"/code").want(t, http.StatusOK).decode(t, &next)
		if next.Code == "" || !strings.HasPrefix(next.QR, "data:image/svg+xml;base64,") || next.Until <= time.Now().Unix()-60 {
			t.Errorf("code JSON %+v", next)
		}

		t.Run("the counter finds the member by the current code only", func(t *testing.T) {
			staff := e.web(t)
			staff.signIn(t, "/business", cafe.Email, cafe.Password)
			if got := staff.counterFinds(t, code); got != ann.ID {
				t.Errorf("the counter found %q for the member's code, want %s", got, ann.ID)
			}
			if got := staff.counterFinds(t, strings.ToLower(code)); got != ann.ID {
				t.Errorf("the counter found %q for the code typed in lower case", got)
			}
			bakery := e.newBusiness(t, "Bakery")
			other := e.web(t)
			other.signIn(t, "/business", bakery.Email, bakery.Password)
			if got := other.counterFinds(t, code); got != "" {
				t.Errorf("another business's counter found %q for the member's code", got)
			}
			owner.moveClock(t, map[string]any{"advance": "PT2M"})
			if got := staff.counterFinds(t, code); got != "" {
				t.Errorf("a code two minutes old (a screenshot) found %q", got)
			}
			fresh := w.memberCode(t, cafe.ID)
			if fresh == code {
				t.Error("the card shows the same code two minutes later")
			}
			if got := staff.counterFinds(t, fresh); got != ann.ID {
				t.Errorf("the counter found %q for the new code", got)
			}
		})

		t.Run("redeem", func(t *testing.T) {
			w.get(t, base+"/rewards").want(t, http.StatusOK).has(t, "Mug", "Bike", "900 more points to go")
			w.get(t, base+"/rewards/"+mug).want(t, http.StatusOK).has(t, "30 points", "70 points", "Redeem for 30 points")
			r := w.post(t, base+"/rewards/"+mug+"/redeem", url.Values{})
			loc := r.want(t, http.StatusSeeOther).Header.Get("Location")
			if !strings.HasPrefix(loc, base+"/vouchers?notice=redeemed#voucher-") {
				t.Fatalf("after redeeming: %s", loc)
			}
			vouchers := w.get(t, strings.Split(loc, "#")[0]).want(t, http.StatusOK).has(t, "Redeemed!", "Mug", "QR code of voucher")
			var list struct{ Data []voucherView }
			e.asUser(t, e.userApp(t), cafe.Key, "ann@example.com", "2468").get(t, "/users/me/redemptions").
				want(t, http.StatusOK).decode(t, &list)
			if len(list.Data) != 1 || !strings.Contains(string(vouchers.Body), list.Data[0].Code) {
				t.Errorf("the vouchers page does not show the voucher's code %+v", list.Data)
			}
			if bal := owner.pointsBalance(t, ann.ID); bal["points"] != float64(70) {
				t.Errorf("balance after redeeming %v, want 70", bal)
			}
			// Beyond the balance: the page says so, and a post spends nothing.
			w.get(t, base+"/rewards/"+bike).want(t, http.StatusOK).has(t, "930 more points")
			w.post(t, base+"/rewards/"+bike+"/redeem", url.Values{}).want(t, http.StatusUnprocessableEntity)
			if bal := owner.pointsBalance(t, ann.ID); bal["points"] != float64(70) {
				t.Errorf("balance after redeeming beyond it %v, want 70", bal)
			}
			w.get(t, base+"/history").want(t, http.StatusOK).has(t, "Redemption", "−30", "+100")
		})

		t.Run("choices", func(t *testing.T) {
			w.get(t, base+"/settings").want(t, http.StatusOK).has(t, "Offers and news", "Messages about your account")
			w.post(t, base+"/settings", url.Values{"kind": {"marketing"}, "email": {"on"}}).want(t, http.StatusSeeOther)
			w.post(t, base+"/settings", url.Values{"kind": {"notifications"}, "email": {"on"}, "push": {"on"}}).want(t, http.StatusSeeOther)
			var out struct {
				Data []struct {
					AllowEmail bool   `json:"allow_email"`
					AllowSMS   bool   `json:"allow_sms"`
					Source     string `json:"source"`
				}
			}
			owner.get(t, "/customers/"+ann.ID+"/consents").want(t, http.StatusOK).decode(t, &out)
			if len(out.Data) != 1 || !out.Data[0].AllowEmail || out.Data[0].AllowSMS || out.Data[0].Source != "app" {
				t.Errorf("consents after the wallet's choice: %+v", out.Data)
			}
			var prefs struct {
				Data []struct {
					AllowEmail bool `json:"allow_email"`
					AllowSMS   bool `json:"allow_sms"`
					AllowPush  bool `json:"allow_push"`
				}
			}
			member := e.asUser(t, e.userApp(t), cafe.Key, "ann@example.com", "2468")
			member.get(t, "/users/me/notification-preferences").want(t, http.StatusOK).decode(t, &prefs)
			if len(prefs.Data) != 1 || !prefs.Data[0].AllowEmail || prefs.Data[0].AllowSMS || !prefs.Data[0].AllowPush {
				t.Errorf("notification preferences after the wallet's choice: %+v", prefs.Data)
			}
		})

		t.Run("installable", func(t *testing.T) {
			var m struct {
				Name, StartURL, Scope, Display string
				Icons                          []struct{ Src, Sizes, Type string }
			}
			r := w.get(t, base+"/manifest.webmanifest").want(t, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); ct != "application/manifest+json" {
				t.Errorf("manifest Content-Type %q", ct)
			}
			r.decode(t, &m)
			if m.Name != "Sandbox Cafe rewards" || m.Display != "standalone" || len(m.Icons) != 2 {
				t.Errorf("manifest %+v", m)
			}
			for _, ic := range m.Icons {
				r := w.get(t, ic.Src).want(t, http.StatusOK)
				if r.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(r.Body), "\x89PNG") {
					t.Errorf("icon %s: %s", ic.Src, r.Header.Get("Content-Type"))
				}
			}
			w.get(t, base+"/icons/17.png").want(t, http.StatusNotFound)
		})

		t.Run("sign out", func(t *testing.T) {
			cookie := w.walletCookie(t, cafe.ID)
			w.post(t, base+"/signout", url.Values{}).want(t, http.StatusSeeOther)
			w.get(t, base+"/rewards").want(t, http.StatusSeeOther)
			// The old cookie opens nothing: the session is gone.
			old := e.web(t)
			old.setCookie(t, base, cookie)
			old.get(t, base+"/rewards").want(t, http.StatusSeeOther)
		})
	})
}

// walletCookie returns the wallet session cookie w holds for business.
func (w *webClient) walletCookie(t *testing.T, business string) string {
	t.Helper()
	u, _ := url.Parse(w.base + "/wallet/" + business + "/")
	for _, c := range w.c.Jar.Cookies(u) {
		if c.Name == "loyalty_member" {
			return c.Value
		}
	}
	t.Fatalf("no wallet cookie for %s", business)
	return ""
}

// setCookie gives w the member cookie value on path, as a browser that
// copied it would send it.
func (w *webClient) setCookie(t *testing.T, path, value string) {
	t.Helper()
	u, _ := url.Parse(w.base + path)
	w.c.Jar.SetCookies(u, []*http.Cookie{{Name: "loyalty_member", Value: value, Path: path}})
}

// TestWalletSignInCode: a member who forgot the PIN asks for a code by
// e-mail (an address of no member gets the same answer and no message),
// a wrong code is refused, the right one signs in once, and a new PIN
// chosen in the settings signs in from then on.
func TestWalletSignInCode(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		e.register(t, e.biz.Key, map[string]any{"email": "cy@example.com", "pin_code": 1111})
		base := "/wallet/" + e.biz.ID
		w := e.web(t)
		w.get(t, base+"/signin/code").want(t, http.StatusOK)
		w.post(t, base+"/signin/code", url.Values{"username": {"nobody@example.com"}}).want(t, http.StatusOK).has(t, "Enter your code")
		w.post(t, base+"/signin/code", url.Values{"username": {"cy@example.com"}}).want(t, http.StatusOK).has(t, "Enter your code")
		msg := e.waitMessage(t, "cy@example.com", 2) // the welcome, then the code
		code := msg.line(t, "Code")
		if len(code) != 6 || msg.Subject != "Your sign-in code" {
			t.Fatalf("sign-in code message %q: %q", msg.Subject, code)
		}
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		w.post(t, base+"/signin/code/check", url.Values{"username": {"cy@example.com"}, "code": {wrong}}).
			want(t, http.StatusUnprocessableEntity).has(t, "The code is wrong or has expired")
		r := w.post(t, base+"/signin/code/check", url.Values{"username": {"cy@example.com"}, "code": {code}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != base {
			t.Fatalf("sign in with the code: %d %s", r.Status, r.Body)
		}
		w.get(t, base+"/settings").want(t, http.StatusOK)
		w.post(t, base+"/pin", url.Values{"pin": {"9876"}, "pin_again": {"9875"}}).want(t, http.StatusUnprocessableEntity).has(t, "The two PINs differ")
		w.post(t, base+"/pin", url.Values{"pin": {"9876"}, "pin_again": {"9876"}}).want(t, http.StatusSeeOther)
		// The code works once.
		again := e.web(t)
		again.get(t, base).want(t, http.StatusOK)
		again.post(t, base+"/signin/code/check", url.Values{"username": {"cy@example.com"}, "code": {code}}).want(t, http.StatusUnprocessableEntity)
		again.walletSignIn(t, e.biz.ID, "cy@example.com", "9876")
		if len(e.messagesTo(t, "nobody@example.com")) != 0 {
			t.Error("a code went to an address of no member")
		}
	})
}

// TestWalletGuessBudget: wrong PINs on the wallet spend the address's
// guess budget on accounts it never signed in to: once spent, even the
// right PIN on a fresh account is refused (429 with Retry-After); a code
// sign-in is held to the same budget. The user API's password grant
// through a confidential client has a budget of its own. Confirming an
// account's deletion checks the PIN as signing in does: the member,
// signed in before the spraying, is not refused for the address's
// failures elsewhere, but wrong PINs lock the account, and then even the
// right one is refused.
func TestWalletGuessBudget(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		const budget = 4
		e := start(t, engine, httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute, Guesses: budget})
		app := e.userApp(t)
		for i := range budget + 1 {
			e.register(t, e.biz.Key, map[string]any{"email": "m" + strconv.Itoa(i) + "@example.com", "pin_code": 2468})
		}
		e.register(t, e.biz.Key, map[string]any{"email": "leaving@example.com", "pin_code": 8642})
		base := "/wallet/" + e.biz.ID
		leaving := e.web(t)
		leaving.walletSignIn(t, e.biz.ID, "leaving@example.com", "8642")
		w := e.web(t)
		w.get(t, base).want(t, http.StatusOK)
		for i := range budget {
			w.post(t, base+"/signin", url.Values{"username": {"m" + strconv.Itoa(i) + "@example.com"}, "pin": {"1111"}}).
				want(t, http.StatusUnauthorized).has(t, "incorrect")
		}
		// The member's sign-in above earned the address one more.
		w.post(t, base+"/signin", url.Values{"username": {"nobody@example.com"}, "pin": {"1111"}}).want(t, http.StatusUnauthorized)
		r := w.post(t, base+"/signin", url.Values{"username": {"m" + strconv.Itoa(budget) + "@example.com"}, "pin": {"2468"}})
		if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); r.Status != http.StatusTooManyRequests || s < 1 {
			t.Errorf("the right PIN after the budget: %d (Retry-After %q), want 429", r.Status, r.Header.Get("Retry-After"))
		}
		if w.get(t, base).Status != http.StatusOK || strings.Contains(string(w.get(t, base).Body), "member-code") {
			t.Error("a refused sign-in opened the wallet")
		}
		w.post(t, base+"/signin/code/check", url.Values{"username": {"m0@example.com"}, "code": {"123456"}}).want(t, http.StatusTooManyRequests)
		e.userLogin(t, app, e.biz.Key, "m"+strconv.Itoa(budget)+"@example.com", "2468").want(t, http.StatusOK)

		leaving.get(t, base+"/delete").want(t, http.StatusOK)
		for range oauth.MaxFailures {
			leaving.post(t, base+"/delete", url.Values{"pin": {"1111"}}).want(t, http.StatusUnauthorized).has(t, "The PIN is incorrect")
		}
		r = leaving.post(t, base+"/delete", url.Values{"pin": {"8642"}})
		if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); r.Status != http.StatusTooManyRequests || s < 1 {
			t.Errorf("deleting with the right PIN after %d wrong ones: %d (Retry-After %q), want 429", oauth.MaxFailures, r.Status, r.Header.Get("Retry-After"))
		}
		leaving.get(t, base).want(t, http.StatusOK).has(t, "member-code") // not deleted, still signed in
	})
}

// TestWalletIsolation (issue 31 item 7): two members of two businesses.
// Every wallet page and action of one business, asked with the session
// of the other business's member, opens nothing and changes nothing; a
// member's PIN does not open another business's wallet; a reward of the
// other business cannot be redeemed through one's own wallet; a staff
// session is no member session and a member session no staff session;
// every post without the CSRF token is refused; neither member's pages
// (their data's download among them) show anything of the other, and
// neither can erase the other.
func TestWalletIsolation(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		cafe, bakery := e.biz, e.newBusiness(t, "Bakery")
		ann := e.register(t, cafe.Key, map[string]any{"email": "ann@example.com", "pin_code": 2468, "first_name": "Ann"})
		bo := e.register(t, bakery.Key, map[string]any{"email": "bo@example.com", "pin_code": 1357, "first_name": "Bo"})
		cafeOwner, bakeryOwner := e.owner(t, cafe), e.owner(t, bakery)
		cafeOwner.reward(t, ann.ID, 100)
		bakeryOwner.reward(t, bo.ID, 50)
		mug := cafeOwner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 30})
		bread := bakeryOwner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Bread", "points": 10})
		cafeBase, bakeryBase := "/wallet/"+cafe.ID, "/wallet/"+bakery.ID

		annW, boW := e.web(t), e.web(t)
		annW.walletSignIn(t, cafe.ID, "ann@example.com", "2468")
		boW.walletSignIn(t, bakery.ID, "bo@example.com", "1357")
		boW.post(t, bakeryBase+"/rewards/"+bread+"/redeem", url.Values{}).want(t, http.StatusSeeOther)

		t.Run("a PIN opens its own business's wallet only", func(t *testing.T) {
			w := e.web(t)
			w.get(t, bakeryBase).want(t, http.StatusOK)
			w.post(t, bakeryBase+"/signin", url.Values{"username": {"ann@example.com"}, "pin": {"2468"}}).want(t, http.StatusUnauthorized)
			if w.walletCookieOr(cafe.ID)+w.walletCookieOr(bakery.ID) != "" {
				t.Error("a refused sign-in set a session cookie")
			}
		})

		pages := []string{"", "/rewards", "/rewards/" + bread, "/vouchers", "/history", "/settings", "/code", "/export", "/delete"}
		posts := map[string]url.Values{
			"/rewards/" + bread + "/redeem": {},
			"/settings":                     {"kind": {"marketing"}, "email": {"on"}, "sms": {"on"}},
			"/pin":                          {"pin": {"0000"}, "pin_again": {"0000"}},
			// Bo's own PIN, with Ann's session: nothing is erased.
			"/delete": {"pin": {"1357"}},
		}
		boPoints := func() any { return bakeryOwner.pointsBalance(t, bo.ID)["points"] }
		boBefore := boPoints()

		t.Run("another business's member session opens nothing", func(t *testing.T) {
			// Ann's cafe session, sent (by a tampering browser) to the bakery's wallet.
			w := e.web(t)
			w.setCookie(t, bakeryBase, annW.walletCookie(t, cafe.ID))
			for _, p := range pages {
				r := w.get(t, bakeryBase+p)
				switch {
				case p == "":
					r.want(t, http.StatusOK).has(t, "Sign in")
				case p == "/code":
					r.want(t, http.StatusUnauthorized)
				default:
					if r.Status != http.StatusSeeOther || r.Header.Get("Location") != bakeryBase {
						t.Errorf("GET %s with the other business's session: %d %s", p, r.Status, r.Header.Get("Location"))
					}
				}
				for _, word := range []string{"ann@example.com", "Ann", "bo@example.com", "Bread", "member-code"} {
					if strings.Contains(string(r.Body), word) && !(p == "" && word == "Bread") {
						t.Errorf("GET %s with the other business's session shows %q", p, word)
					}
				}
			}
			w.get(t, bakeryBase).want(t, http.StatusOK) // a CSRF token for the posts
			for p, form := range posts {
				r := w.post(t, bakeryBase+p, form)
				if r.Status != http.StatusSeeOther || r.Header.Get("Location") != bakeryBase {
					t.Errorf("POST %s with the other business's session: %d %s", p, r.Status, r.Header.Get("Location"))
				}
			}
			if got := boPoints(); got != boBefore {
				t.Errorf("bo's points moved from %v to %v", boBefore, got)
			}
			boW.get(t, bakeryBase+"/settings").want(t, http.StatusOK)
			e.web(t).walletSignIn(t, bakery.ID, "bo@example.com", "1357") // the PIN is unchanged
		})

		t.Run("another business's reward cannot be redeemed", func(t *testing.T) {
			annW.get(t, cafeBase+"/rewards/"+bread).want(t, http.StatusNotFound)
			annW.post(t, cafeBase+"/rewards/"+bread+"/redeem", url.Values{}).want(t, http.StatusNotFound)
			annW.get(t, cafeBase+"/rewards/not-a-number").want(t, http.StatusNotFound)
			if got := cafeOwner.pointsBalance(t, ann.ID)["points"]; got != float64(100) {
				t.Errorf("ann's points %v, want 100", got)
			}
		})

		t.Run("each member sees their own only", func(t *testing.T) {
			for _, p := range pages {
				if p == "/rewards/"+bread {
					p = "/rewards/" + mug
				}
				body := string(annW.get(t, cafeBase+p).want(t, http.StatusOK).Body)
				for _, word := range []string{"bo@example.com", "Bo!", "Bread", "Bakery", bo.ID} {
					if strings.Contains(body, word) {
						t.Errorf("ann's %s shows %q", p, word)
					}
				}
			}
			for _, p := range pages {
				body := string(boW.get(t, bakeryBase+p).want(t, http.StatusOK).Body)
				for _, word := range []string{"ann@example.com", "Ann", "Mug", ann.ID} {
					if strings.Contains(body, word) {
						t.Errorf("bo's %s shows %q", p, word)
					}
				}
			}
		})

		t.Run("staff and member sessions do not mix", func(t *testing.T) {
			staff := e.web(t)
			staff.signIn(t, "/business", cafe.Email, cafe.Password)
			w := e.web(t)
			w.setCookie(t, cafeBase, staff.cookie("loyalty_owner"))
			w.get(t, cafeBase+"/rewards").want(t, http.StatusSeeOther)
			w.get(t, cafeBase).want(t, http.StatusOK).has(t, "Sign in")
			member := e.web(t)
			u, _ := url.Parse(e.url + "/business")
			member.c.Jar.SetCookies(u, []*http.Cookie{{Name: "loyalty_owner", Value: annW.walletCookie(t, cafe.ID), Path: "/"}})
			if r := member.get(t, "/business/counter"); r.Status != http.StatusSeeOther {
				t.Errorf("a member session opened the console's counter: %d", r.Status)
			}
		})

		t.Run("every post needs the CSRF token", func(t *testing.T) {
			all := map[string]url.Values{"/signin": {"username": {"ann@example.com"}, "pin": {"2468"}},
				"/signin/code": {"username": {"ann@example.com"}}, "/signin/code/check": {"username": {"ann@example.com"}, "code": {"123456"}},
				"/signout": {}, "/rewards/" + mug + "/redeem": {}, "/settings": {"kind": {"marketing"}, "email": {"on"}},
				"/pin": {"pin": {"0000"}, "pin_again": {"0000"}}, "/delete": {"pin": {"2468"}}}
			for p, form := range all {
				f := url.Values{"csrf_token": {""}}
				for k, v := range form {
					f[k] = v
				}
				annW.post(t, cafeBase+p, f).want(t, http.StatusForbidden)
			}
			annW.get(t, cafeBase).want(t, http.StatusOK).has(t, "member-code") // still signed in
			if got := cafeOwner.pointsBalance(t, ann.ID)["points"]; got != float64(100) {
				t.Errorf("ann's points %v after refused posts, want 100", got)
			}
		})

		t.Run("unknown wallets", func(t *testing.T) {
			w := e.web(t)
			w.get(t, "/wallet/0123456789abcdef0123456789abcdef").want(t, http.StatusNotFound)
			w.get(t, "/wallet/nope").want(t, http.StatusNotFound)
			w.get(t, "/wallet/nope/manifest.webmanifest").want(t, http.StatusNotFound)
		})
	})
}

// walletCookieOr is walletCookie, or "" when w holds none.
func (w *webClient) walletCookieOr(business string) string {
	u, _ := url.Parse(w.base + "/wallet/" + business + "/")
	for _, c := range w.c.Jar.Cookies(u) {
		if c.Name == "loyalty_member" {
			return c.Value
		}
	}
	return ""
}
