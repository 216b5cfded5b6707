package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// voucherView is a voucher as the APIs show it.
type voucherView struct {
	ID     string `json:"id"`
	Code   string `json:"code"`
	QRCode string `json:"qrcode"`
	State  string `json:"state"`
	Reward struct {
		ID     int64  `json:"id"`
		Title  string `json:"title"`
		Points int64  `json:"points"`
	} `json:"reward"`
	Quantity      int64   `json:"quantity"`
	Points        int64   `json:"points"`
	TransactionID int64   `json:"transaction_id"`
	ExpiresAt     string  `json:"expires_at"`
	HandedOverAt  *string `json:"handed_over_at"`
	HandedOverBy  *string `json:"handed_over_by"`
	ReturnedAt    *string `json:"returned_at"`
	Balance       *struct {
		Points int64 `json:"points"`
	} `json:"balance"`
	HandedOverNow *bool `json:"handed_over_now"`
}

// voucher decodes a `{data: voucher}` body.
func (r *result) voucher(t *testing.T) voucherView {
	t.Helper()
	var out struct{ Data voucherView }
	r.decode(t, &out)
	if out.Data.ID == "" {
		t.Fatalf("%s: no voucher in %s", r.what, r.Body)
	}
	return out.Data
}

// TestMemberRedemptions: a member redeems a catalog item from the phone
// and gets a voucher; the counter hands it over once, a second scan says
// when and by whom; beyond the balance nothing changes; a voucher left
// until it expires (on the sandbox clock) gives its points back by an
// entry, and so does a cancelled redemption; another business cannot
// find the voucher. A member also claims a coupon of an offer.
func TestMemberRedemptions(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		owner := e.owner(t, sb)
		app := e.userApp(t)
		u := e.register(t, sb.Key, map[string]any{"email": "member@example.com", "pin_code": 2468})
		member := e.asUser(t, app, sb.Key, "member@example.com", "2468")
		owner.reward(t, u.ID, 100)
		mug := owner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 30})
		cake := owner.made(t, "/rewards", map[string]any{"kind": "custom_reward", "title": "Cake", "points": 1})

		v := member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug), "quantity": 2}).
			want(t, http.StatusOK).voucher(t)
		if v.State != "issued" || v.Points != 60 || v.Quantity != 2 || v.Reward.Title != "Mug" || v.Balance == nil || v.Balance.Points != 40 {
			t.Fatalf("voucher %+v, want 2 mugs for 60 points leaving 40", v)
		}
		if !regexp.MustCompile(`^[0-9A-Z]{6}-[0-9A-Z]{6}$`).MatchString(v.Code) || v.QRCode != v.Code {
			t.Errorf("code %q qrcode %q", v.Code, v.QRCode)
		}
		if d := parseTime(t, v.ExpiresAt).Sub(owner.clockNow(t)); d < 29*24*time.Hour || d > 31*24*time.Hour {
			t.Errorf("expires in %v, want 30 days", d)
		}
		if bal := owner.pointsBalance(t, u.ID); bal["points"] != float64(40) {
			t.Errorf("balance after redeeming %v, want 40", bal)
		}

		t.Run("refusals change nothing", func(t *testing.T) {
			member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug), "quantity": 2}).
				wantFields(t, "quantity")
			member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, cake)}).wantFields(t, "reward_id")
			member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": 999999}).wantFields(t, "reward_id")
			member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug), "quantity": 0}).
				wantFields(t, "quantity")
			member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug), "note": "x"}).
				wantFields(t, "note")
			member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug), "business_id": "nope"}).
				wantFields(t, "business_id")
			if bal := owner.pointsBalance(t, u.ID); bal["points"] != float64(40) {
				t.Errorf("balance after refusals %v, want 40", bal)
			}
		})

		t.Run("the counter hands it over once", func(t *testing.T) {
			var list []voucherView
			member.get(t, "/users/me/redemptions").want(t, http.StatusOK).data(t, &list)
			if len(list) != 1 || list[0].ID != v.ID || list[0].State != "issued" {
				t.Fatalf("member's vouchers %+v", list)
			}
			other := e.owner(t, e.newBusiness(t, "Other Cafe"))
			other.do(t, http.MethodPost, "/vouchers/"+v.Code+"/handover", nil).wantError(t, http.StatusNotFound)
			other.get(t, "/vouchers/"+v.Code).wantError(t, http.StatusNotFound)

			typed := strings.ToLower(strings.ReplaceAll(v.Code, "-", ""))
			first := owner.do(t, http.MethodPost, "/vouchers/"+typed+"/handover", nil).want(t, http.StatusOK).voucher(t)
			if first.HandedOverNow == nil || !*first.HandedOverNow || first.State != "handed_over" || first.HandedOverAt == nil ||
				first.HandedOverBy == nil || *first.HandedOverBy != "POS" {
				t.Fatalf("first scan %+v", first)
			}
			again := owner.do(t, http.MethodPost, "/vouchers/"+v.Code+"/handover", nil).want(t, http.StatusOK).voucher(t)
			if *again.HandedOverNow || *again.HandedOverAt != *first.HandedOverAt || *again.HandedOverBy != *first.HandedOverBy {
				t.Errorf("second scan %+v, want the first's time and person", again)
			}
			owner.do(t, http.MethodPost, "/vouchers/ABC/handover", nil).wantError(t, http.StatusNotFound)
		})

		t.Run("a voucher left until it expires gives its points back", func(t *testing.T) {
			w := member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug)}).
				want(t, http.StatusOK).voucher(t)
			if w.Balance.Points != 10 {
				t.Fatalf("balance %d after a second mug, want 10", w.Balance.Points)
			}
			owner.moveClock(t, map[string]any{"advance": "P31D"})
			if bal := owner.pointsBalance(t, u.ID); bal["points"] != float64(40) {
				t.Errorf("balance after the voucher expired %v, want 40", bal)
			}
			got := owner.get(t, "/vouchers/"+w.Code).want(t, http.StatusOK).voucher(t)
			if got.State != "returned" || got.ReturnedAt == nil || parseTime(t, *got.ReturnedAt) != parseTime(t, w.ExpiresAt) {
				t.Errorf("expired voucher %+v, want returned when it expired", got)
			}
			owner.do(t, http.MethodPost, "/vouchers/"+w.Code+"/handover", nil).wantFields(t, "code")
			var hist struct {
				Data []struct {
					ID     int64  `json:"id"`
					Points int64  `json:"points"`
					Name   string `json:"name"`
				}
			}
			owner.get(t, "/customers/"+u.ID+"/transactions").want(t, http.StatusOK).decode(t, &hist)
			if len(hist.Data) == 0 || hist.Data[0].Points != 30 {
				t.Errorf("ledger %+v, want an entry giving back 30 first", hist.Data)
			}
			// The scheduler finds nothing more to give back.
			if n := owner.moveClock(t, map[string]any{"advance": "P1D"}); n != 0 {
				t.Errorf("a later move settled %d, want 0", n)
			}
		})

		t.Run("a cancelled redemption takes its voucher", func(t *testing.T) {
			w := member.do(t, http.MethodPost, "/users/me/redemptions", map[string]any{"reward_id": atoi(t, mug)}).
				want(t, http.StatusOK).voucher(t)
			owner.do(t, http.MethodDelete, "/transactions/"+itoa64(w.TransactionID), nil).want(t, http.StatusNoContent)
			got := owner.get(t, "/vouchers/"+w.Code).want(t, http.StatusOK).voucher(t)
			if got.State != "returned" {
				t.Errorf("voucher of a cancelled redemption %+v", got)
			}
			owner.do(t, http.MethodPost, "/vouchers/"+w.Code+"/handover", nil).wantFields(t, "code")
			owner.moveClock(t, map[string]any{"advance": "P31D"})
			if bal := owner.pointsBalance(t, u.ID); bal["points"] != float64(40) {
				t.Errorf("balance %v, want 40: the cancellation gave the points back once", bal)
			}
		})

		t.Run("a member claims a coupon of an offer", func(t *testing.T) {
			offer := owner.made(t, "/offers", map[string]any{"type_id": 8, "title": "Free pastry", "points": 15, "offer_frequency_id": 4})
			var out struct {
				Data struct {
					Coupon struct {
						ID           int64 `json:"id"`
						CouponTypeID int   `json:"coupon_type_id"`
					} `json:"coupon"`
					Balance struct {
						Points int64 `json:"points"`
					} `json:"balance"`
				}
			}
			member.do(t, http.MethodPost, "/users/me/offers/"+offer+"/claim", nil).want(t, http.StatusOK).decode(t, &out)
			if out.Data.Coupon.ID == 0 || out.Data.Coupon.CouponTypeID != 74 || out.Data.Balance.Points != 25 {
				t.Errorf("claim %+v, want a coupon (74) for 15 points leaving 25", out.Data)
			}
			member.do(t, http.MethodPost, "/users/me/offers/"+offer+"/claim", nil).wantFields(t, "offer_id")
			member.do(t, http.MethodPost, "/users/me/offers/999999/claim", nil).want(t, http.StatusNotFound)
		})
	})
}
