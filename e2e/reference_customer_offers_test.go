package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
)

// TestReferenceCustomerOffers replays rest_customer_targeted_offers.apib and
// rest_customer_claimable_offers.apib: which of a customer's offers each
// lists, their filters and paging, and that another business sees none.
func TestReferenceCustomerOffers(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@targets.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@targets.example"})
		var branches struct{ Data []map[string]any }
		a.get(t, "/branches").want(t, http.StatusOK).decode(t, &branches)
		main := str(branches.Data[0]["id"])
		uptown := str(a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Uptown"})["id"])

		everyone := a.catOffer(t, map[string]any{"type_id": 9, "title": "10% off", "discount_value": 10})
		forAnn := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free muffin", "targeted": true, "customers": []string{ann.ID}})
		forBob := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free tea", "targeted": true, "customers": []string{bob.ID}})
		big := a.catOffer(t, map[string]any{"type_id": 3, "title": "Big spenders", "points": 50, "min_purchase": 100, "max_purchase": 200})
		atUptown := a.catOffer(t, map[string]any{"type_id": 10, "title": "5 off uptown", "discount_value": 5, "branches": []string{uptown}})
		claimed := a.catOffer(t, map[string]any{"type_id": 9, "title": "5% off", "discount_value": 5})
		claimedID, _ := strconv.Atoi(claimed)
		got := a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "get_coupon", "customer": map[string]any{"id": ann.ID},
			"offer": map[string]any{"id": claimedID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "claim_coupon", "customer": map[string]any{"id": ann.ID},
			"offer": map[string]any{"id": claimedID}, "coupon": map[string]any{"id": at(got, "coupon.id")}}).want(t, http.StatusOK)

		ids := func(r *result) ([]string, []any) {
			t.Helper()
			var page struct{ Data []map[string]any }
			r.want(t, http.StatusOK).decode(t, &page)
			var out []string
			var prio []any
			for _, o := range page.Data {
				out = append(out, catID(o))
				prio = append(prio, o["priority"])
			}
			return out, prio
		}
		want := func(what string, got []string, want ...string) {
			t.Helper()
			if !slices.Equal(got, want) {
				t.Errorf("%s: offers %v, want %v", what, got, want)
			}
		}
		other := e.owner(t, e.newBusiness(t, "Elsewhere"))

		t.Run("targeted", func(t *testing.T) {
			path := "/customers/" + ann.ID + "/targeted-offers"
			got, _ := ids(a.replay(t, "GET", path, ""))
			want("the docs' example", got, forAnn)
			got, _ = ids(a.replay(t, "GET", "/customers/"+bob.ID+"/targeted-offers", ""))
			want("bob's", got, forBob)

			var page struct{ Data []map[string]any }
			a.replay(t, "GET", path+"?relationships=branch", "").want(t, http.StatusOK).decode(t, &page)
			if len(page.Data) != 1 || at(page.Data[0], "branch.id") == nil {
				t.Errorf("relationships=branch: %v", page.Data)
			}
			// The docs' filter example: include=coupon is not kept here (400
			// naming it); the filters are.
			filter := "branch.id=eq%7C" + uptown + "&type_id=in%7C8,9,10,1"
			a.replay(t, "GET", path+"?include=coupon&"+filter, "").wantError(t, http.StatusBadRequest, "coupon")
			got, _ = ids(a.replay(t, "GET", path+"?"+filter, ""))
			want("at uptown, of types 8, 9, 10, 1", got, forAnn)
			got, _ = ids(a.replay(t, "GET", path+"?type_id=eq%7C9", ""))
			want("of type 9", got)
			a.replay(t, "GET", path+"?type_id=gt%7C3", "").wantError(t, http.StatusBadRequest, "type_id")
			a.replay(t, "GET", path+"?points=eq%7C3", "").want(t, http.StatusBadRequest)

			other.replay(t, "GET", path, "").wantError(t, http.StatusNotFound)
			a.replay(t, "GET", "/customers/nope/targeted-offers", "").wantError(t, http.StatusBadRequest)
		})

		t.Run("claimable", func(t *testing.T) {
			path := "/customers/" + ann.ID + "/claimable-offers"
			// The docs' example sends neither of the parameters its table
			// requires: the purchase amount is named.
			a.replay(t, "GET", path, "").wantFields(t, "amount")

			got, prio := ids(a.replay(t, "GET", path+"?amount=3.99&branch_id="+main, ""))
			want("3.99 at the main branch", got, everyone, forAnn)
			if fmt.Sprint(prio) != "[1 2]" {
				t.Errorf("priorities %v, want [1 2]", prio)
			}
			got, prio = ids(a.replay(t, "GET", path+"?amount=150&branch_id="+uptown, ""))
			want("150 uptown", got, everyone, forAnn, big, atUptown)
			got, prio = ids(a.replay(t, "GET", path+"?amount=150&branch_id="+uptown+"&per_page=2&page=2", ""))
			want("150 uptown, page 2", got, big, atUptown)
			if fmt.Sprint(prio) != "[3 4]" {
				t.Errorf("page 2 priorities %v, want [3 4]", prio)
			}
			got, _ = ids(a.replay(t, "GET", path+"?amount=250", ""))
			want("250 anywhere", got, everyone, forAnn, atUptown)
			got, _ = ids(a.replay(t, "GET", "/customers/"+bob.ID+"/claimable-offers?amount=10", ""))
			want("bob's, any branch", got, everyone, forBob, atUptown, claimed)

			a.replay(t, "GET", path+"?amount=abc", "").wantFields(t, "amount")
			a.replay(t, "GET", path+"?amount=-1", "").wantFields(t, "amount")
			a.replay(t, "GET", path+"?amount=1.999", "").wantFields(t, "amount")
			var theirs struct{ Data []map[string]any }
			other.get(t, "/branches").want(t, http.StatusOK).decode(t, &theirs)
			a.replay(t, "GET", path+"?amount=10&branch_id="+str(theirs.Data[0]["id"]), "").wantFields(t, "branch_id")
			other.replay(t, "GET", path+"?amount=10", "").wantError(t, http.StatusNotFound)
		})
	})
}
