package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var digitsOnly = regexp.MustCompile(`^[0-9]{6}$`)

// TestUserAccount covers creating a user with the Application Key alone,
// the welcome message, verification, signing in with the PIN, reading and
// updating the user, and the walls between users, keys and APIs.
func TestUserAccount(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.userApp(t)
		key := e.biz.Key
		owner := e.owner(t, e.biz)
		owner.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"welcome_points": 25}}).want(t, http.StatusOK)

		// Created without a PIN: one is generated and sent with the token.
		ada := e.register(t, key, map[string]any{"email": "Ada@Example.com", "first_name": "Ada", "language": "en"})
		if deref(ada.Email) != "ada@example.com" || deref(ada.Username) != "ada@example.com" || deref(ada.FirstName) != "Ada" || ada.Phone != nil {
			t.Errorf("created %+v", ada)
		}
		welcome := e.waitMessage(t, "ada@example.com", 1)
		pin, token := welcome.line(t, "PIN"), welcome.line(t, "Token")
		if !digitsOnly.MatchString(pin) || len(token) < 40 || !strings.Contains(welcome.Subject, "Corner Cafe") {
			t.Errorf("welcome message: subject %q, PIN %q, token %q", welcome.Subject, pin, token)
		}

		t.Run("the person is a customer with the welcome points", func(t *testing.T) {
			c := owner.get(t, "/customers/"+ada.ID+"?include=balance").want(t, http.StatusOK).customer(t)
			if c.Balance["points"] != float64(25) || deref(c.FirstName) != "Ada" {
				t.Errorf("customer %+v", c)
			}
		})

		ann := e.asUser(t, app, key, "ada@example.com", pin)

		t.Run("read me and own id; another id is 403", func(t *testing.T) {
			me := ann.get(t, "/users/me").want(t, http.StatusOK).user(t)
			byID := ann.get(t, "/users/"+ada.ID).want(t, http.StatusOK).user(t)
			if me.ID != ada.ID || byID.ID != ada.ID || deref(me.Language) != "en" {
				t.Errorf("me %+v, by id %+v", me, byID)
			}
			other := e.register(t, key, map[string]any{"email": "other@example.com", "pin_code": 4321})
			ann.get(t, "/users/"+other.ID).wantError(t, http.StatusForbidden)
			ann.get(t, "/users/"+other.ID+"/offers").wantError(t, http.StatusForbidden)
			ann.get(t, "/users/not-an-id").wantUserError(t)
			ann.get(t, "/users/me?include=nonsense").wantUserError(t)
			var list struct{ Data []any }
			ann.get(t, "/users").want(t, http.StatusOK).decode(t, &list)
			if list.Data == nil || len(list.Data) != 0 {
				t.Errorf("GET /users: %+v", list)
			}
		})

		t.Run("verify the e-mail with the token", func(t *testing.T) {
			emails := func() []map[string]any {
				var out struct {
					Included struct {
						UserEmails []map[string]any `json:"user_emails"`
					}
				}
				ann.get(t, "/users/me?include=user_emails").want(t, http.StatusOK).decode(t, &out)
				return out.Included.UserEmails
			}
			if got := emails(); len(got) != 1 || got[0]["status_code"] != float64(32) || got[0]["status_text"] != "EMAIL_NOT_VERIFIED" {
				t.Errorf("before: %v", got)
			}
			open := e.keyOnly(key)
			open.do(t, http.MethodPost, "/users/credentials/verification", map[string]any{"token": token, "email": "other@example.com"}).wantFields(t, "token")
			open.do(t, http.MethodPost, "/users/credentials/verification", map[string]any{"token": token + "x", "email": "ada@example.com"}).wantFields(t, "token")
			got := open.do(t, http.MethodPost, "/users/credentials/verification", map[string]any{"token": token, "email": "ADA@example.com"}).want(t, http.StatusOK).user(t)
			if got.ID != ada.ID {
				t.Errorf("verified %+v", got)
			}
			if got := emails(); len(got) != 1 || got[0]["status_code"] != float64(33) || got[0]["status_text"] != "EMAIL_VERIFIED" {
				t.Errorf("after: %v", got)
			}
			open.do(t, http.MethodPost, "/users/credentials/verification", map[string]any{"token": token, "email": "ada@example.com"}).wantFields(t, "token")
		})

		t.Run("register by phone with a PIN; verify the phone", func(t *testing.T) {
			u := e.register(t, key, map[string]any{"phone": "514 555 0199", "country_code": "CA", "pin_code": "0420"})
			if deref(u.Phone) != "+15145550199" || deref(u.CountryCode) != "CA" || u.Email != nil {
				t.Errorf("created %+v", u)
			}
			sms := e.waitMessage(t, "+15145550199", 1)
			if strings.Contains(sms.Body, "PIN:") || !strings.HasSuffix(sms.File, ".txt") {
				t.Errorf("welcome SMS %s carries a PIN the user chose:\n%s", sms.File, sms.Body)
			}
			e.keyOnly(key).do(t, http.MethodPost, "/users/credentials/verification",
				map[string]any{"token": sms.line(t, "Token"), "phone": "(514) 555-0199", "country_code": "CA"}).want(t, http.StatusOK)
			c := e.asUser(t, app, key, "+1 514 555 0199", "0420")
			var out struct {
				Included struct {
					Phones []map[string]any `json:"user_phone_numbers"`
				}
			}
			c.get(t, "/users/me?include=user_phone_numbers").want(t, http.StatusOK).decode(t, &out)
			if p := out.Included.Phones; len(p) != 1 || p[0]["phone"] != "+15145550199" || p[0]["status_code"] != float64(33) {
				t.Errorf("phones %v", p)
			}
		})

		t.Run("an e-mail or phone already taken is 422", func(t *testing.T) {
			e.keyOnly(key).do(t, http.MethodPost, "/users", map[string]any{"email": "ada@EXAMPLE.com"}).wantFields(t, "email")
			e.keyOnly(key).do(t, http.MethodPost, "/users", map[string]any{"phone": "+15145550199"}).wantFields(t, "phone")
			// A customer the business created is a person too: they claim the
			// account through a PIN reset, not by registering again.
			owner.createCustomer(t, map[string]any{"email": "walkin@example.com"})
			e.keyOnly(key).do(t, http.MethodPost, "/users", map[string]any{"email": "walkin@example.com"}).wantFields(t, "email")
		})

		t.Run("update the profile, the e-mail and the PIN", func(t *testing.T) {
			u := ann.do(t, http.MethodPatch, "/users/me", map[string]any{"first_name": "Ada L.", "gender": "female", "language": "fr"}).
				want(t, http.StatusOK).user(t)
			if deref(u.FirstName) != "Ada L." || deref(u.Language) != "fr" || deref(u.Email) != "ada@example.com" {
				t.Errorf("updated %+v", u)
			}
			ann.do(t, http.MethodPatch, "/users/me", map[string]any{"email": "other@example.com"}).wantFields(t, "email")
			var out struct {
				Data     userView
				Included struct {
					UserEmails []map[string]any `json:"user_emails"`
				}
			}
			ann.do(t, http.MethodPatch, "/users/"+ada.ID+"?include=user_emails", map[string]any{"email": "ada.new@example.com"}).
				want(t, http.StatusOK).decode(t, &out)
			if deref(out.Data.Email) != "ada.new@example.com" || out.Included.UserEmails[0]["status_code"] != float64(32) {
				t.Errorf("new e-mail: %+v %v", out.Data, out.Included.UserEmails)
			}
			confirm := e.waitMessage(t, "ada.new@example.com", 1)
			e.keyOnly(key).do(t, http.MethodPost, "/users/credentials/verification",
				map[string]any{"token": confirm.line(t, "Token"), "email": "ada.new@example.com"}).want(t, http.StatusOK)

			ann.do(t, http.MethodPatch, "/users/me", map[string]any{"pin_code": 97531}).want(t, http.StatusOK)
			e.userLogin(t, app, key, "ada.new@example.com", pin).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			e.asUser(t, app, key, "ada.new@example.com", "97531")
			// The business keeps its own profile of the person.
			if c := owner.get(t, "/customers/"+ada.ID).want(t, http.StatusOK).customer(t); deref(c.FirstName) != "Ada" {
				t.Errorf("the business's profile changed: %+v", c)
			}
		})

		t.Run("tokens stay in their lane", func(t *testing.T) {
			// A business token on the user API, a user token on the business API.
			owner.get(t, "/users/me").wantError(t, http.StatusForbidden)
			ann.get(t, "/customers").wantError(t, http.StatusForbidden)
			// A user token with another business's key.
			other := e.newBusiness(t, "Other Shop")
			(&client{e: e, key: other.Key, token: ann.token}).get(t, "/users/me").wantError(t, http.StatusForbidden)
			// No token, a bad token, no key.
			e.keyOnly(key).get(t, "/users/me").wantError(t, http.StatusUnauthorized)
			(&client{e: e, key: key, token: "made-up"}).get(t, "/users/me").wantError(t, http.StatusUnauthorized)
			(&client{e: e, token: ann.token}).get(t, "/users/me").wantError(t, http.StatusUnauthorized)
			e.keyOnly("no-such-key").do(t, http.MethodPost, "/users", map[string]any{"email": "k@example.com"}).wantError(t, http.StatusUnauthorized)
			// The person is not a customer of the other business: no sign-in there.
			e.userLogin(t, app, other.Key, "ada.new@example.com", "97531").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		})

		t.Run("a verification token lives 24 hours", func(t *testing.T) {
			e.register(t, key, map[string]any{"email": "late@example.com", "pin_code": 1357})
			token := e.waitMessage(t, "late@example.com", 1).line(t, "Token")
			e.db.Advance(25 * time.Hour)
			e.keyOnly(key).do(t, http.MethodPost, "/users/credentials/verification",
				map[string]any{"token": token, "email": "late@example.com"}).wantFields(t, "token")
		})
	})
}
