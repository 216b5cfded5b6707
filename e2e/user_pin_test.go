package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestUserPINReset covers the PIN reset by token and by code: the same 202
// for unknown accounts, single use, expiry, the 5 tries of a code, and
// signing in with the new PIN but not the old one.
func TestUserPINReset(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.userApp(t)
		key := e.biz.Key
		open := e.keyOnly(key)
		e.register(t, key, map[string]any{"email": "bea@example.com", "phone": "+33612345678", "pin_code": 1111})
		e.waitMessage(t, "bea@example.com", 1)
		e.waitMessage(t, "+33612345678", 1)
		accepted := func(body map[string]any) {
			t.Helper()
			var out map[string]any
			open.do(t, http.MethodPost, "/users/pincode/reset-request", body).want(t, http.StatusAccepted).decode(t, &out)
			if out["status_code"] != float64(202) || out["message"] == "" || out["description"] == "" {
				t.Errorf("202 body %v", out)
			}
		}
		reset := func(body map[string]any) *result {
			t.Helper()
			return open.do(t, http.MethodPost, "/users/pincode/reset", body)
		}

		t.Run("unknown accounts get the same 202 and no message", func(t *testing.T) {
			before := len(e.messages(t))
			accepted(map[string]any{"mode": "token", "email": "nobody@example.com"})
			accepted(map[string]any{"mode": "verification_code", "phone": "+15145550000"})
			// A person of another business is unknown to this key.
			other := e.newBusiness(t, "Elsewhere")
			e.register(t, other.Key, map[string]any{"email": "elsewhere@example.com", "pin_code": 2222})
			e.waitMessage(t, "elsewhere@example.com", 1)
			accepted(map[string]any{"mode": "token", "email": "elsewhere@example.com"})
			e.settle(t)
			if n := len(e.messages(t)); n != before+1 {
				t.Errorf("outbox grew by %d messages, want only the other business's welcome", n-before)
			}
		})

		t.Run("by token", func(t *testing.T) {
			before := e.asUser(t, app, key, "bea@example.com", "1111")
			before.get(t, "/users/me").want(t, http.StatusOK)
			accepted(map[string]any{"mode": "token", "email": "Bea@Example.com"})
			m := e.waitMessage(t, "bea@example.com", 2)
			token := m.line(t, "Token")
			reset(map[string]any{"token": token + "x", "pin_code": 3333}).wantFields(t, "token")
			reset(map[string]any{"token": token, "pin_code": 3333}).want(t, http.StatusNoContent)
			// Tokens got with the old PIN stop working with the reset.
			before.get(t, "/users/me").want(t, http.StatusUnauthorized)
			e.userLogin(t, app, key, "bea@example.com", "1111").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			e.asUser(t, app, key, "bea@example.com", "3333")
			reset(map[string]any{"token": token, "pin_code": 4444}).wantFields(t, "token")
			e.asUser(t, app, key, "bea@example.com", "3333")

			// A newer request voids the older token; a token lives one hour.
			accepted(map[string]any{"mode": "token", "email": "bea@example.com"})
			older := e.waitMessage(t, "bea@example.com", 3).line(t, "Token")
			accepted(map[string]any{"mode": "token", "email": "bea@example.com"})
			newer := e.waitMessage(t, "bea@example.com", 4).line(t, "Token")
			reset(map[string]any{"token": older, "pin_code": 4444}).wantFields(t, "token")
			e.db.Advance(61 * time.Minute)
			reset(map[string]any{"token": newer, "pin_code": 4444}).wantFields(t, "token")
			e.asUser(t, app, key, "bea@example.com", "3333")
		})

		t.Run("by code, with five tries", func(t *testing.T) {
			accepted(map[string]any{"mode": "verification_code", "phone": "06 12 34 56 78", "country_code": "FR"})
			m := e.waitMessage(t, "+33612345678", 2)
			code := m.line(t, "Code")
			if !digitsOnly.MatchString(code) || strings.Contains(m.Body, "Token:") {
				t.Fatalf("code message:\n%s", m.Body)
			}
			wrong := "000000"
			if code == wrong {
				wrong = "111111"
			}
			body := func(c string) map[string]any {
				return map[string]any{"verification_code": c, "phone": "+33612345678", "pin_code": "55555"}
			}
			for range 4 {
				reset(body(wrong)).wantFields(t, "verification_code")
			}
			reset(map[string]any{"verification_code": code, "email": "bea@example.com", "pin_code": 55555}).wantFields(t, "verification_code")
			reset(body(code)).want(t, http.StatusNoContent)
			e.asUser(t, app, key, "+33 6 12 34 56 78", "55555")
			reset(body(code)).wantFields(t, "verification_code")

			// The fifth wrong try voids the code.
			accepted(map[string]any{"mode": "verification_code", "email": "bea@example.com"})
			code = e.waitMessage(t, "bea@example.com", 5).line(t, "Code")
			wrong = "000000"
			if code == wrong {
				wrong = "111111"
			}
			for range 5 {
				reset(map[string]any{"verification_code": wrong, "email": "bea@example.com", "pin_code": 6666}).wantFields(t, "verification_code")
			}
			reset(map[string]any{"verification_code": code, "email": "bea@example.com", "pin_code": 6666}).wantFields(t, "verification_code")
			e.asUser(t, app, key, "bea@example.com", "55555")
		})

		t.Run("a reset lifts the sign-in lock", func(t *testing.T) {
			for range 5 {
				e.userLogin(t, app, key, "bea@example.com", "9999")
			}
			e.userLogin(t, app, key, "bea@example.com", "55555").want(t, http.StatusTooManyRequests)
			accepted(map[string]any{"mode": "token", "email": "bea@example.com"})
			token := e.waitMessage(t, "bea@example.com", 6).line(t, "Token")
			reset(map[string]any{"token": token, "pin_code": 7777}).want(t, http.StatusNoContent)
			e.asUser(t, app, key, "bea@example.com", "7777")
		})

		t.Run("a person gets at most five reset messages an hour", func(t *testing.T) {
			e.register(t, key, map[string]any{"email": "spam@example.com", "pin_code": 1212})
			e.waitMessage(t, "spam@example.com", 1)
			for range 7 {
				accepted(map[string]any{"mode": "token", "email": "spam@example.com"})
			}
			e.waitMessage(t, "spam@example.com", 6)
			e.settle(t)
			if n := len(e.messagesTo(t, "spam@example.com")); n != 6 {
				t.Fatalf("%d messages (welcome + resets), want the welcome and five resets", n)
			}
			e.db.Advance(61 * time.Minute)
			accepted(map[string]any{"mode": "token", "email": "spam@example.com"})
			e.waitMessage(t, "spam@example.com", 7)
		})

		t.Run("a customer the business created claims the account by reset", func(t *testing.T) {
			e.owner(t, e.biz).createCustomer(t, map[string]any{"email": "walkin@example.com"})
			// The business's enrolment sends a welcome with a verification
			// token and the way to a PIN, but no PIN.
			welcome := e.waitMessage(t, "walkin@example.com", 1)
			if welcome.line(t, "Token") == "" || !strings.Contains(welcome.Body, "PIN reset") || strings.Contains(welcome.Body, "PIN: ") {
				t.Fatalf("welcome of a business-created customer:\n%s", welcome.Body)
			}
			e.userLogin(t, app, key, "walkin@example.com", "1234").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			accepted(map[string]any{"mode": "token", "email": "walkin@example.com"})
			token := e.waitMessage(t, "walkin@example.com", 2).line(t, "Token")
			reset(map[string]any{"token": token, "pin_code": 1234}).want(t, http.StatusNoContent)
			e.asUser(t, app, key, "walkin@example.com", "1234")
		})
	})
}
