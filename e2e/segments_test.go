package e2e

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// segmentCount counts what a filter selects through POST /segments/count.
func (c *client) segmentCount(t *testing.T, filters map[string]any) int {
	t.Helper()
	var r struct {
		Data struct {
			Count int `json:"customers_count"`
		}
	}
	c.do(t, http.MethodPost, "/segments/count", map[string]any{"filters": filters}).want(t, http.StatusOK).decode(t, &r)
	return r.Data.Count
}

// segmentMembers saves a segment of the filter, and returns the ids its
// customers list holds (all pages), having checked that its live count,
// its meta.total and GET /customers?segment_id= agree with the list.
func (c *client) segmentMembers(t *testing.T, filters map[string]any) []string {
	t.Helper()
	var seg struct {
		Data struct {
			ID    int64 `json:"id"`
			Count *int  `json:"customers_count"`
		}
	}
	c.do(t, http.MethodPost, "/segments", map[string]any{"name": "Test", "filters": filters}).want(t, http.StatusCreated).decode(t, &seg)
	id := strconv.FormatInt(seg.Data.ID, 10)
	var ids []string
	for page := 1; ; page++ {
		var p struct {
			Data []struct {
				ID string `json:"id"`
			}
			Meta struct{ Total int }
		}
		c.get(t, "/segments/"+id+"/customers?per_page=2&page="+strconv.Itoa(page)).want(t, http.StatusOK).decode(t, &p)
		for _, d := range p.Data {
			ids = append(ids, d.ID)
		}
		if len(p.Data) < 2 {
			if p.Meta.Total != len(ids) {
				t.Errorf("filter %v: meta.total %d, listed %d", filters, p.Meta.Total, len(ids))
			}
			break
		}
	}
	slices.Sort(ids)
	if seg.Data.Count == nil || *seg.Data.Count != len(ids) {
		t.Errorf("filter %v: customers_count %v, listed %d", filters, seg.Data.Count, len(ids))
	}
	if n := c.segmentCount(t, filters); n != len(ids) {
		t.Errorf("filter %v: POST /segments/count %d, listed %d", filters, n, len(ids))
	}
	viaCustomers := c.list(t, "segment_id="+id+"&per_page=100").ids()
	slices.Sort(viaCustomers)
	if !slices.Equal(viaCustomers, ids) {
		t.Errorf("filter %v: GET /customers?segment_id= %v, segment list %v", filters, viaCustomers, ids)
	}
	return ids
}

// TestSegments: each condition of a segment selects exactly the customers
// worked out by hand from what happened to them — visits and spend by the
// ledger (a cancelled purchase takes back its visit and spend), the last
// visit and its branch, "not in N days" on the sandbox clock, birthdays,
// tags, marketing consent, points, coupons held — and conditions combine;
// the count, the list, its total and GET /customers?segment_id= agree;
// bad conditions are refused naming the field; one business never sees
// another's segments.
func TestSegments(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		advance := func(days int) { a.moveClock(t, map[string]any{"advance": "P" + strconv.Itoa(days) + "D"}) }
		second := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Harbour"})["id"].(string)

		// Day 0: Ann and Bob join.
		ann := a.createCustomer(t, map[string]any{"email": "ann@seg.example", "birth_date": "1990-05-10"}).ID
		bob := a.createCustomer(t, map[string]any{"email": "bob@seg.example", "birth_date": "1985-12-01"}).ID
		a.do(t, http.MethodPost, "/customers/"+ann+"/consents", map[string]any{"allow_email": true, "allow_sms": false, "allow_push": false}).
			want(t, http.StatusOK)
		a.do(t, http.MethodPost, "/customers/"+bob+"/consents", map[string]any{"allow_email": false, "allow_sms": true, "allow_push": false}).
			want(t, http.StatusOK)
		advance(1)
		a.catTransact(t, ann, map[string]any{"intent": "reward", "amount": 50})
		advance(4) // day 5
		a.catTransact(t, bob, map[string]any{"intent": "reward", "amount": 10})
		advance(25) // day 30: Cid joins, given points but never visiting
		cid := a.createCustomer(t, map[string]any{"email": "cid@seg.example"}).ID
		a.catTransact(t, cid, map[string]any{"intent": "adjust_points_balance", "points": 500})
		advance(10) // day 40: Dee joins
		dee := a.createCustomer(t, map[string]any{"email": "dee@seg.example"}).ID
		advance(10) // day 50: Ann buys again, at the Harbour
		a.catTransact(t, ann, map[string]any{"intent": "reward", "amount": 20, "branch": map[string]any{"id": second}})
		advance(5) // day 55: Dee buys; the next day the purchase is cancelled
		big := a.catTransact(t, dee, map[string]any{"intent": "reward", "amount": 100})
		advance(1)
		a.do(t, http.MethodDelete, "/transactions/"+catID(big), nil).want(t, http.StatusNoContent)
		advance(4) // day 60: now
		for id, tags := range map[string][]string{ann: {"VIP "}, bob: {"staff"}, cid: {"vip", "staff", "vip"}} {
			a.do(t, http.MethodPut, "/customers/"+id+"/tags", map[string]any{"tags": tags}).want(t, http.StatusOK)
		}
		var tags struct{ Data struct{ Tags []string } }
		a.get(t, "/customers/"+cid+"/tags").want(t, http.StatusOK).decode(t, &tags)
		if !slices.Equal(tags.Data.Tags, []string{"staff", "vip"}) {
			t.Errorf("Cid's tags %v, want [staff vip]", tags.Data.Tags)
		}
		coupon := a.catOffer(t, map[string]any{"type_id": 9, "title": "10% off", "discount_value": 10})
		a.catTransact(t, bob, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(coupon)}})

		points := map[string]int64{}
		for _, id := range []string{ann, bob, cid, dee} {
			points[id] = int64(a.pointsBalance(t, id)["points"].(float64))
		}
		above := func(min int64) []string {
			var out []string
			for id, p := range points {
				if p >= min {
					out = append(out, id)
				}
			}
			return out
		}
		day := func(n int) string {
			return a.clockNow(t).AddDate(0, 0, n-60).Format("2006-01-02T15:04:05Z07:00")
		}

		cases := []struct {
			name    string
			filters map[string]any
			want    []string
		}{
			{"everyone", map[string]any{}, []string{ann, bob, cid, dee}},
			{"not in 30 days, never included", map[string]any{"not_visited_days": 30}, []string{bob, cid}},
			{"last visit after day 40", map[string]any{"last_visit_after": day(40)}, []string{ann, dee}},
			{"last visit before day 10", map[string]any{"last_visit_before": day(10)}, []string{bob}},
			{"two visits or more", map[string]any{"visits_min": 2}, []string{ann}},
			{"a visit in the last 20 days", map[string]any{"visits_min": 1, "visits_days": 20}, []string{ann}},
			{"no visit in the last 20 days", map[string]any{"visits_max": 0, "visits_days": 20}, []string{bob, cid, dee}},
			{"spent 60 or more", map[string]any{"spend_min": 60}, []string{ann}},
			{"spent at most 15", map[string]any{"spend_max": 15}, []string{bob, cid, dee}},
			{"spent 15 or more in 20 days", map[string]any{"spend_min": 15, "spend_days": 20}, []string{ann}},
			{"born in May", map[string]any{"birthday_months": []int{5}}, []string{ann}},
			{"born in May or December", map[string]any{"birthday_months": []int{12, 5}}, []string{ann, bob}},
			{"last visit at the Harbour", map[string]any{"last_visit_branch_ids": []string{second}}, []string{ann}},
			{"last visit at the main branch", map[string]any{"last_visit_branch_ids": []string{mainBranchOf(t, a)}}, []string{bob, dee}},
			{"vip", map[string]any{"tags_any": []string{"Vip"}}, []string{ann, cid}},
			{"not staff", map[string]any{"tags_none": []string{"staff"}}, []string{ann, dee}},
			{"e-mail allowed", map[string]any{"consent": "email"}, []string{ann}},
			{"any channel allowed", map[string]any{"consent": "any"}, []string{ann, bob}},
			{"push allowed", map[string]any{"consent": "push"}, nil},
			{"500 points or more", map[string]any{"points_min": 500}, above(500)},
			{"joined after day 20", map[string]any{"joined_after": day(20)}, []string{cid, dee}},
			{"holds a coupon", map[string]any{"has_coupon": true}, []string{bob}},
			{"holds none of that offer", map[string]any{"has_coupon": false, "coupon_offer_id": catNum(coupon)}, []string{ann, cid, dee}},
			{"vip not seen in 30 days", map[string]any{"tags_any": []string{"vip"}, "not_visited_days": 30}, []string{cid}},
		}
		for _, c := range cases {
			want := slices.Clone(c.want)
			slices.Sort(want)
			if got := a.segmentMembers(t, c.filters); !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", c.name, got, want)
			}
		}
		// Saved, the same filters are counted all in one pass over the
		// customers (the console's list of segments), each as it selects.
		var segs []loyalty.Segment
		for _, c := range cases {
			var saved struct{ Data struct{ ID int64 } }
			a.do(t, http.MethodPost, "/segments", map[string]any{"name": c.name, "filters": c.filters}).
				want(t, http.StatusCreated).decode(t, &saved)
			seg, err := e.app.DB.Segment(context.Background(), sb.ID, saved.Data.ID)
			if err != nil {
				t.Fatal(err)
			}
			segs = append(segs, seg)
		}
		biz, err := e.app.DB.Business(context.Background(), sb.ID)
		if err != nil {
			t.Fatal(err)
		}
		counts, err := e.app.Services.ClockedBy(biz.ClockOffset).Segments.CountEach(context.Background(), biz, segs)
		if err != nil || len(counts) != len(cases) {
			t.Fatalf("counting every segment at once: %v (%v)", counts, err)
		}
		for i, c := range cases {
			if counts[i] != len(c.want) {
				t.Errorf("%s counted with the others: %d, want %d", c.name, counts[i], len(c.want))
			}
		}

		// The sandbox clock moves "not in N days" with it.
		advance(31)
		if n := a.segmentCount(t, map[string]any{"not_visited_days": 30}); n != 4 {
			t.Errorf("31 days later, %d not seen in 30 days, want 4", n)
		}

		t.Run("refused by field", func(t *testing.T) {
			for field, filters := range map[string]map[string]any{
				"filters.visit_min":             {"visit_min": 2},
				"filters.points_max":            {"points_min": 10, "points_max": 5},
				"filters.birthday_months":       {"birthday_months": []int{13}},
				"filters.consent":               {"consent": "fax"},
				"filters.last_visit_branch_ids": {"last_visit_branch_ids": []string{"nope"}},
				"filters.not_visited_days":      {"not_visited_days": 0},
				"filters.joined_after":          {"joined_after": "last week"},
				"filters.spend_days":            {"spend_days": 30},
				"filters.punch_card_id":         {"punch_stamps_min": 3},
				"filters.tier_level_ids":        {"tier_level_ids": []int{1}},
				"filters.points_min":            {"points_min": "many"},
			} {
				a.do(t, http.MethodPost, "/segments", map[string]any{"name": "Bad", "filters": filters}).wantFields(t, field)
				a.do(t, http.MethodPost, "/segments/count", map[string]any{"filters": filters}).wantFields(t, field)
			}
			a.do(t, http.MethodPost, "/segments", map[string]any{"filters": map[string]any{}}).wantFields(t, "name")
			a.do(t, http.MethodPost, "/segments", map[string]any{"name": "x", "colour": "red"}).wantFields(t, "colour")
			a.get(t, "/customers?segment_id=999999").wantFields(t, "segment_id")
			a.do(t, http.MethodPut, "/customers/"+ann+"/tags", map[string]any{"tags": []string{""}}).wantFields(t, "tags")
		})

		t.Run("update, delete and another business", func(t *testing.T) {
			var seg struct {
				Data struct {
					ID      int64          `json:"id"`
					Name    string         `json:"name"`
					Filters map[string]any `json:"filters"`
					Count   int            `json:"customers_count"`
				}
			}
			a.do(t, http.MethodPost, "/segments", map[string]any{"name": "Born in May", "filters": map[string]any{"birthday_months": []int{5}}}).
				want(t, http.StatusCreated).decode(t, &seg)
			id := strconv.FormatInt(seg.Data.ID, 10)
			a.do(t, http.MethodPut, "/segments/"+id, map[string]any{"name": "Born in December"}).want(t, http.StatusOK).decode(t, &seg)
			if seg.Data.Name != "Born in December" || seg.Data.Count != 1 {
				t.Errorf("renamed segment %+v: the filter must be kept", seg.Data)
			}
			a.do(t, http.MethodPut, "/segments/"+id, map[string]any{"filters": map[string]any{"birthday_months": []int{12}}}).
				want(t, http.StatusOK).decode(t, &seg)
			if seg.Data.Name != "Born in December" || seg.Data.Count != 1 || seg.Data.Filters["birthday_months"] == nil {
				t.Errorf("refiltered segment %+v", seg.Data)
			}
			other := e.owner(t, e.biz)
			other.get(t, "/segments/"+id).want(t, http.StatusNotFound)
			other.get(t, "/segments/"+id+"/customers").want(t, http.StatusNotFound)
			other.do(t, http.MethodDelete, "/segments/"+id, nil).want(t, http.StatusNotFound)
			other.get(t, "/customers?segment_id="+id).wantFields(t, "segment_id")
			if n, own := other.segmentCount(t, map[string]any{}), other.list(t, "").Meta.Total; n != own {
				t.Errorf("another business counts %d customers, it has %d", n, own)
			}
			a.do(t, http.MethodDelete, "/segments/"+id, nil).want(t, http.StatusNoContent)
			a.get(t, "/segments/"+id).want(t, http.StatusNotFound)
		})
	})
}

// mainBranchOf is the id of the business's main branch (GET /branches
// lists it first).
func mainBranchOf(t *testing.T, c *client) string {
	t.Helper()
	list := c.catList(t, "/branches").Data
	if len(list) == 0 {
		t.Fatal("no branch")
	}
	return str(list[0]["id"])
}
