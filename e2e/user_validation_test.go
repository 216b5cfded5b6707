package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestUserValidation sends bad input for every body field of the user API
// and checks the spec's error, and that nothing was written or sent.
func TestUserValidation(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.userApp(t)
		key := e.biz.Key
		open := e.keyOnly(key)
		owner := e.owner(t, e.biz)
		e.register(t, key, map[string]any{"email": "valid@example.com", "pin_code": 2468})
		e.waitMessage(t, "valid@example.com", 1)
		c := e.asUser(t, app, key, "valid@example.com", "2468")
		before := len(e.messages(t))

		t.Run("POST /users", func(t *testing.T) {
			post := func(body any) *result {
				t.Helper()
				return open.do(t, http.MethodPost, "/users", body)
			}
			future := time.Now().AddDate(0, 0, 3).Format(time.DateOnly)
			for _, c := range []struct {
				body   map[string]any
				fields []string
			}{
				{map[string]any{}, []string{"email", "phone"}},
				{map[string]any{"first_name": "Nobody"}, []string{"email", "phone"}},
				{map[string]any{"email": true}, []string{"email"}},
				{map[string]any{"email": "not-an-email"}, []string{"email"}},
				{map[string]any{"email": "a@b"}, []string{"email"}},
				{map[string]any{"phone": "514 555 0124"}, []string{"country_code"}},
				{map[string]any{"phone": "12", "country_code": "CA"}, []string{"phone"}},
				{map[string]any{"phone": 5145550124, "country_code": "CA"}, []string{"phone"}},
				{map[string]any{"phone": "514 555 0124", "country_code": "XX"}, []string{"country_code"}},
				{map[string]any{"phone": "514 555 0124", "country_code": 1}, []string{"country_code"}},
				{map[string]any{"email": "v1@x.example", "first_name": 5}, []string{"first_name"}},
				{map[string]any{"email": "v1@x.example", "first_name": strings.Repeat("a", 101)}, []string{"first_name"}},
				{map[string]any{"email": "v1@x.example", "last_name": []string{"x"}}, []string{"last_name"}},
				{map[string]any{"email": "v1@x.example", "birth_date": "10/12/1990"}, []string{"birth_date"}},
				{map[string]any{"email": "v1@x.example", "birth_date": future}, []string{"birth_date"}},
				{map[string]any{"email": "v1@x.example", "birth_date": 19900101}, []string{"birth_date"}},
				{map[string]any{"email": "v1@x.example", "language": "de"}, []string{"language"}},
				{map[string]any{"email": "v1@x.example", "gender": "other"}, []string{"gender"}},
				{map[string]any{"email": "v1@x.example", "pin_code": "abcd"}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "pin_code": "12 34"}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "pin_code": 12}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "pin_code": 1234567}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "pin_code": 12.5}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "pin_code": -1234}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "pin_code": true}, []string{"pin_code"}},
				{map[string]any{"email": "v1@x.example", "profile_photo": "/images/x.png"}, []string{"profile_photo"}},
				{map[string]any{"email": "not-an-email", "phone": "1", "country_code": "CA", "language": "de", "pin_code": "x"},
					[]string{"email", "phone", "language", "pin_code"}},
			} {
				post(c.body).wantFields(t, c.fields...)
			}
			post("email=v2@x.example").wantUserError(t)
			post(`{"email": "v2@x.example"`).wantUserError(t)
			post(`{"email": "v2@x.example"} {}`).wantUserError(t)
			post("[1, 2]").wantUserError(t)
			post("").wantUserError(t)
			// None of them created anyone.
			if l := owner.list(t, "email=in|v1@x.example,v2@x.example"); l.Meta.Total != 0 {
				t.Errorf("invalid creates stored %v", l.ids())
			}
		})

		t.Run("PATCH /users/{id}", func(t *testing.T) {
			patch := func(body any) *result {
				t.Helper()
				return c.do(t, http.MethodPatch, "/users/me", body)
			}
			patch(map[string]any{"email": "bad"}).wantFields(t, "email")
			patch(map[string]any{"email": nil}).wantFields(t, "email", "phone")
			patch(map[string]any{"phone": "514 555 0124"}).wantFields(t, "country_code")
			patch(map[string]any{"pin_code": "abcd"}).wantFields(t, "pin_code")
			patch(map[string]any{"pin_code": nil}).wantFields(t, "pin_code")
			patch(map[string]any{"language": "klingon", "first_name": "Changed"}).wantFields(t, "language")
			patch(map[string]any{"first_name": 1}).wantFields(t, "first_name")
			patch(map[string]any{"gender": 3}).wantFields(t, "gender")
			patch("not json").wantUserError(t)
			me := c.get(t, "/users/me").want(t, http.StatusOK).user(t)
			if deref(me.Email) != "valid@example.com" || me.FirstName != nil || me.Phone != nil || me.Language != nil {
				t.Errorf("a refused update changed the user: %+v", me)
			}
			e.asUser(t, app, key, "valid@example.com", "2468")
		})

		t.Run("verification, reset request and reset", func(t *testing.T) {
			verify := func(body any) *result {
				t.Helper()
				return open.do(t, http.MethodPost, "/users/credentials/verification", body)
			}
			verify(map[string]any{}).wantFields(t, "token", "email", "phone")
			verify(map[string]any{"token": 5, "email": "valid@example.com"}).wantFields(t, "token")
			verify(map[string]any{"token": "abc", "email": "nope"}).wantFields(t, "email")
			verify(map[string]any{"token": "abc", "phone": "514 555 0124"}).wantFields(t, "country_code")
			verify(map[string]any{"token": "abc", "email": "valid@example.com"}).wantFields(t, "token")
			verify("{").wantUserError(t)

			request := func(body any) *result {
				t.Helper()
				return open.do(t, http.MethodPost, "/users/pincode/reset-request", body)
			}
			request(map[string]any{}).wantFields(t, "mode", "email", "phone")
			request(map[string]any{"mode": "sms", "email": "valid@example.com"}).wantFields(t, "mode")
			request(map[string]any{"mode": 1, "email": "valid@example.com"}).wantFields(t, "mode")
			request(map[string]any{"mode": "token", "email": "bad"}).wantFields(t, "email")
			request(map[string]any{"mode": "token", "phone": "514 555 0124"}).wantFields(t, "country_code")
			request("mode=token").wantUserError(t)

			reset := func(body any) *result {
				t.Helper()
				return open.do(t, http.MethodPost, "/users/pincode/reset", body)
			}
			reset(map[string]any{}).wantFields(t, "pin_code", "token", "verification_code")
			reset(map[string]any{"token": "abc", "pin_code": "ab12"}).wantFields(t, "pin_code")
			reset(map[string]any{"token": 7, "pin_code": 1234}).wantFields(t, "token")
			reset(map[string]any{"verification_code": "12ab34", "pin_code": 1234, "email": "valid@example.com"}).wantFields(t, "verification_code")
			reset(map[string]any{"verification_code": 123, "pin_code": 1234, "email": "valid@example.com"}).wantFields(t, "verification_code")
			reset(map[string]any{"verification_code": 123456, "pin_code": 1234}).wantFields(t, "email", "phone")
			reset(map[string]any{"verification_code": 123456, "pin_code": 1234, "email": "valid@example.com"}).wantFields(t, "verification_code")
			reset(map[string]any{"token": "abc", "pin_code": 1234}).wantFields(t, "token")
			reset("[]").wantUserError(t)
			e.asUser(t, app, key, "valid@example.com", "2468")
		})

		t.Run("version and headers", func(t *testing.T) {
			c.accept = "application/vnd.loyalty.api.v2+json"
			c.get(t, "/users/me").wantError(t, http.StatusNotAcceptable)
			c.accept = ""
			open.do(t, http.MethodPost, "/users", map[string]any{"email": "nokey@x.example"}).want(t, http.StatusOK)
			(&client{e: e}).do(t, http.MethodPost, "/users", map[string]any{"email": "nokey@x.example"}).wantError(t, http.StatusUnauthorized)
		})

		e.waitMessage(t, "nokey@x.example", 1)
		e.settle(t)
		// Only the one create of the last subtest sent anything.
		if got := e.messages(t); len(got) != before+1 || got[len(got)-1].To != "nokey@x.example" {
			t.Errorf("bad input sent messages: %d new", len(got)-before)
		}
	})
}
