package e2e

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemberExportAndErasure: a member's export holds their record and,
// in each business of the key, the profile, consents, every entry,
// coupons, vouchers and the messages sent to them; erasing the account
// forfeits the balance by an entry (a waiting voucher's points first),
// leaves the business's ledger summing to its balance, writes
// customer.erased with the id only, blanks the person and the messages,
// deletes the profile photo's file, and the member's token stops
// working. A gift-card balance refuses the erasure until spent. The
// business erases a customer of its own the same way.
func TestMemberExportAndErasure(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.owner(t, e.biz)
		app := e.userApp(t)
		u := e.register(t, e.biz.Key, map[string]any{"email": "leaving@example.com", "first_name": "Lea", "pin_code": 8642})
		member := e.asUser(t, app, e.biz.Key, "leaving@example.com", "8642")
		owner.reward(t, u.ID, 100)
		mug := owner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 30})
		v := member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug)}).
			want(t, http.StatusOK).voucher(t)
		member.do(t, http.MethodPatch, "/users/me/consents", map[string]any{"allow_email": true}).want(t, http.StatusOK)

		var exp struct {
			Data struct {
				Person struct {
					Email     string `json:"email"`
					FirstName string `json:"first_name"`
				} `json:"person"`
				Businesses []struct {
					Business     struct{ ID string }
					Customer     map[string]any   `json:"customer"`
					Consents     []consentView    `json:"consents"`
					Transactions []map[string]any `json:"transactions"`
					Vouchers     []voucherView    `json:"vouchers"`
				} `json:"businesses"`
				Messages []struct {
					To      string `json:"to"`
					Subject string `json:"subject"`
				} `json:"messages"`
			}
		}
		member.get(t, "/users/me/export").want(t, http.StatusOK).decode(t, &exp)
		d := exp.Data
		if d.Person.Email != "leaving@example.com" || d.Person.FirstName != "Lea" || len(d.Businesses) != 1 {
			t.Fatalf("export %+v", d)
		}
		x := d.Businesses[0]
		if x.Business.ID != e.biz.ID || len(x.Transactions) != 2 || len(x.Vouchers) != 1 || x.Vouchers[0].Code != v.Code ||
			len(x.Consents) != 1 || !x.Consents[0].Email {
			t.Errorf("the business's part of the export %+v", x)
		}
		if len(d.Messages) == 0 || d.Messages[0].To != "leaving@example.com" {
			t.Errorf("messages %+v, want the welcome e-mail", d.Messages)
		}
		if b, _ := x.Customer["balance"].(map[string]any); b["points"] != float64(70) {
			t.Errorf("the profile's balance %v, want 70", x.Customer["balance"])
		}

		t.Run("a gift-card balance is spent first", func(t *testing.T) {
			owner.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "purchase_giftcard_prepaid", "amount": 5,
				"customer": map[string]any{"id": u.ID}}).want(t, http.StatusOK)
			member.do(t, http.MethodDelete, "/users/me", nil).wantFields(t, "giftcard")
			owner.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "giftcard_payment", "amount": 5,
				"customer": map[string]any{"id": u.ID}}).want(t, http.StatusOK)
		})

		member.upload(t, "me", "image", "lea.png", "image/png", testImage(t, "png")).want(t, http.StatusOK)
		member.do(t, http.MethodDelete, "/users/me", nil).want(t, http.StatusNoContent)
		member.get(t, "/users/me").want(t, http.StatusUnauthorized)
		if names, _ := filepath.Glob(filepath.Join(e.app.Config.DataDir, "images", "*")); len(names) != 0 {
			t.Errorf("the profile photo's file is left after erasure: %v", names)
		}
		// The erased customer is no longer listed; the ledger is read as it is stored.
		rows, err := e.app.DB.SQL().QueryContext(context.Background(), `SELECT points FROM transactions
			WHERE business_id = $1 AND customer_id = $2 ORDER BY id`, e.biz.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var points []int64
		sum := int64(0)
		for rows.Next() {
			var p int64
			rows.Scan(&p)
			points, sum = append(points, p), sum+p
		}
		rows.Close()
		if n := len(points); sum != 0 || n < 4 || points[n-2] != 30 || points[n-1] != -100 {
			t.Errorf("ledger after erasure %v (sum %d), want the voucher's 30 back then 100 forfeited, summing to 0", points, sum)
		}
		owner.get(t, "/customers/"+u.ID).want(t, http.StatusNotFound)
		owner.get(t, "/vouchers/"+v.Code).want(t, http.StatusOK)
		var events struct{ Data []map[string]any }
		owner.get(t, "/events?type=customer.erased").want(t, http.StatusOK).decode(t, &events)
		if len(events.Data) != 1 || strings.Contains(string(mustJSON(events.Data[0]["data"])), "leaving") {
			t.Errorf("customer.erased events %v, want one naming the id only", events.Data)
		}
		var email, first string
		if err := e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT email, first_name FROM users WHERE id = $1`, u.ID).
			Scan(&email, &first); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(email, "@erased.invalid") || first != "" {
			t.Errorf("the person after erasure: %q %q", email, first)
		}
		if n := e.mailCount(t, "leaving@example.com"); n != 0 {
			t.Errorf("%d messages still name the address", n)
		}
		e.userLogin(t, app, e.biz.Key, "leaving@example.com", "8642").want(t, http.StatusBadRequest)

		t.Run("the business erases a customer", func(t *testing.T) {
			c := owner.createCustomer(t, map[string]any{"email": "gone@example.com", "first_name": "Gus"})
			owner.reward(t, c.ID, 40)
			owner.do(t, http.MethodDelete, "/customers/"+c.ID+"?erase=maybe", nil).wantError(t, http.StatusBadRequest)
			owner.do(t, http.MethodDelete, "/customers/"+c.ID+"?erase=true", nil).want(t, http.StatusNoContent)
			owner.do(t, http.MethodDelete, "/customers/"+c.ID+"?erase=true", nil).wantError(t, http.StatusNotFound)
			other := e.owner(t, e.newBusiness(t, "Unrelated"))
			other.do(t, http.MethodDelete, "/customers/"+u.ID+"?erase=true", nil).wantError(t, http.StatusNotFound)
			var s struct{ Points, Pending int64 }
			if err := e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COALESCE(SUM(points), 0), 0 FROM transactions
				WHERE business_id = $1 AND customer_id = $2`, e.biz.ID, c.ID).Scan(&s.Points, &s.Pending); err != nil {
				t.Fatal(err)
			}
			if s.Points != 0 {
				t.Errorf("the erased customer's entries sum to %d, want 0", s.Points)
			}
			personEmail := func(id string) string {
				var email string
				if err := e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT email FROM users WHERE id = $1`, id).Scan(&email); err != nil {
					t.Fatal(err)
				}
				return email
			}
			// Known to this business alone, never claimed: the person's record goes too.
			if got := personEmail(c.ID); !strings.HasSuffix(got, "@erased.invalid") {
				t.Errorf("an unclaimed person known to one business alone keeps %q after the business erased them", got)
			}
			// A person who claimed the account with a PIN keeps it: the business erases its profile only.
			claimed := e.register(t, e.biz.Key, map[string]any{"email": "keeps@example.com", "pin_code": 1357})
			owner.do(t, http.MethodDelete, "/customers/"+claimed.ID+"?erase=true", nil).want(t, http.StatusNoContent)
			if got := personEmail(claimed.ID); got != "keeps@example.com" {
				t.Errorf("a claimed person's record after the business erased its profile: %q, want it kept", got)
			}
			owner.get(t, "/customers/"+claimed.ID).want(t, http.StatusNotFound)
		})
	})
}
