package e2e

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestConsoleOnSandboxClock: what the console does for a sandbox business
// is dated by its clock, as through the API — an adjustment made at the
// console after the clock moved a year ahead is an entry of that year.
func TestConsoleOnSandboxClock(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		ahead := time.Date(2032, 6, 1, 12, 0, 0, 0, time.UTC)
		a.moveClock(t, map[string]any{"to": ahead.Format(time.RFC3339)})
		cu := a.createCustomer(t, map[string]any{"email": "clock@sandbox.example"})

		owner := e.web(t)
		owner.signIn(t, "/business", sb.Email, sb.Password)
		owner.post(t, "/business/customers/"+cu.ID+"/points", url.Values{"points": {"25"}, "reason": {"Welcome gift"}}).
			want(t, http.StatusSeeOther)

		var hist struct {
			Data []struct {
				Points    float64 `json:"points"`
				CreatedAt string  `json:"created_at"`
			}
		}
		a.get(t, "/customers/"+cu.ID+"/transactions").want(t, http.StatusOK).decode(t, &hist)
		if len(hist.Data) != 1 || hist.Data[0].Points != 25 {
			t.Fatalf("ledger %+v, want the console's adjustment", hist.Data)
		}
		if at := parseTime(t, hist.Data[0].CreatedAt); at.Sub(ahead) < 0 || at.Sub(ahead) > time.Hour {
			t.Errorf("the console's entry is dated %v, want the sandbox clock's %v", at, ahead)
		}
	})
}

// TestUserSignUpOnSandboxClock: a customer who signs up through the user
// API (Application Key only, no token yet) joins a sandbox business at
// its clock's time.
func TestUserSignUpOnSandboxClock(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		ahead := time.Date(2033, 3, 1, 9, 0, 0, 0, time.UTC)
		a.moveClock(t, map[string]any{"to": ahead.Format(time.RFC3339)})
		var u struct{ Data struct{ ID string } }
		e.keyOnly(sb.Key).do(t, http.MethodPost, "/users", map[string]any{"email": "early@sandbox.example"}).
			want(t, http.StatusOK).decode(t, &u)
		var c struct {
			Data struct {
				CreatedAt string `json:"created_at"`
			}
		}
		a.get(t, "/customers/"+u.Data.ID).want(t, http.StatusOK).decode(t, &c)
		if at := parseTime(t, c.Data.CreatedAt); at.Sub(ahead) < 0 || at.Sub(ahead) > time.Hour {
			t.Errorf("the customer joined at %v, want the sandbox clock's %v", at, ahead)
		}
	})
}
