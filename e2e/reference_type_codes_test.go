package e2e

import (
	"strconv"
	"testing"
)

// referenceTypes are the rows of the reference platform's table of
// transaction types (rest_transactions.apib, "Transaction Types": name and
// id) that this service writes, with the table's names, and the service's
// own kinds, which the table has no row for, above 1000.
var referenceTypes = map[float64]string{
	4:    "Reward",
	5:    "Redemption",
	33:   "Signup Bonus",
	43:   "Redemption - Catalog",
	44:   "Transaction Canceled - Clerk",
	64:   "Refund - Points",
	74:   "Coupon Tagged",
	75:   "Coupon claimed",
	76:   "Referred rewarded",
	77:   "Referrer rewarded",
	80:   "Adjust Increase Points",
	82:   "Adjust Decrease Points",
	85:   "Giftcard Purchase - At Store",
	88:   "Giftcard Payment",
	91:   "Convertible Coupon created",
	92:   "Convertible Coupon redeemed",
	107:  "Refund - Redeemed Points",
	1012: "Store Credit",
	1017: "Points Activated",
	1018: "Points Expired",
}

// wantType fails unless a ledger entry has the type code, and the name the
// table gives it.
func wantType(t *testing.T, d map[string]any, code float64) {
	t.Helper()
	name, ok := referenceTypes[code]
	if !ok {
		t.Fatalf("type %v is not in the table", code)
	}
	if d["transaction_type"] != code || d["name"] != name {
		t.Errorf("entry %v is type %v %q, want %v %q", d["id"], d["transaction_type"], d["name"], code, name)
	}
}

// wantTypesListed checks transaction_type=eq|N for each code and in| of
// them all on a customer's ledger: each lists entries of its code only,
// named as the table names it, at least one.
func (c *client) wantTypesListed(t *testing.T, customerID string, codes ...float64) {
	t.Helper()
	in := ""
	for _, code := range codes {
		n := strconv.Itoa(int(code))
		in += "," + n
		h := c.history(t, customerID, "transaction_type=eq|"+n)
		if len(h) == 0 {
			t.Errorf("transaction_type=eq|%s lists nothing", n)
		}
		for _, x := range h {
			wantType(t, x, code)
		}
	}
	seen := map[float64]bool{}
	for _, x := range c.history(t, customerID, "transaction_type=in|"+in[1:]) {
		code, _ := x["transaction_type"].(float64)
		seen[code] = true
		wantType(t, x, code)
	}
	for _, code := range codes {
		if !seen[code] {
			t.Errorf("transaction_type=in|%s lists no entry of %v", in[1:], code)
		}
	}
}

// replayTypeCodes writes, through the API, the kinds of entry the docs'
// examples leave out (a convertible coupon issued and claimed, a welcome
// bonus) and checks that every kind the replay wrote is listed under its
// code: ann's ledger holds all but the referee's payout and the welcome
// bonus. The scheduler's activation and expiry are TestSandboxPointsLife's.
func replayTypeCodes(t *testing.T, a *client, ann, referee string) {
	t.Helper()
	conv := a.catOffer(t, map[string]any{"type_id": 10, "title": "$5 off", "discount_value": 5, "convertible": true, "points": 5})
	d := a.catTransact(t, ann, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(conv)}})
	wantType(t, d, 91)
	coupon := d["coupon"].(map[string]any)["id"]
	wantType(t, a.catTransact(t, ann, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": coupon}}), 92)

	// The rules' example set 100 welcome points: a new customer's first entry.
	newcomer := a.createCustomer(t, map[string]any{"email": "newcomer@replay.example"})
	if h := a.history(t, newcomer.ID, ""); len(h) != 1 || h[0]["points"] != 100.0 {
		t.Errorf("the newcomer's ledger %v, want the welcome bonus", h)
	} else {
		wantType(t, h[0], 33)
	}

	a.wantTypesListed(t, ann, 4, 5, 43, 44, 64, 74, 75, 77, 80, 82, 85, 88, 91, 92, 107, 1012)
	a.wantTypesListed(t, referee, 76)
	a.wantTypesListed(t, newcomer.ID, 33)
	if h := a.history(t, ann, "transaction_type=in|6,7,8,9,10,11,12,13,14,15,16,17,18"); len(h) != 0 {
		t.Errorf("old type codes still list %v", h)
	}
}
