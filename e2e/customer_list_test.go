package e2e

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCustomerList covers GET /customers: paging with the cursor, page
// bounds, and the filters with every operator on every filterable field.
func TestCustomerList(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)

		// Seven customers created a minute apart (timestamps have whole
		// seconds); c[1] also has a phone.
		var c []customer
		for i := range 7 {
			body := map[string]any{"email": "c" + string(rune('0'+i)) + "@list.example"}
			if i == 1 {
				body["phone"], body["country_code"] = "514 555 0101", "CA"
			}
			c = append(c, a.createCustomer(t, body))
			e.db.Advance(time.Minute)
		}
		ids := func(idx ...int) []string {
			out := make([]string, len(idx))
			for i, n := range idx {
				out[i] = c[n].ID
			}
			return out
		}
		at := func(i int) string { return c[i].CreatedAt }

		t.Run("pages", func(t *testing.T) {
			var seen []string
			l := a.list(t, "per_page=3&include=balance")
			pages := 1
			for {
				if l.Meta.Total != 7 || l.Cursor.Count != len(l.Data) {
					t.Fatalf("page %d: total %d, count %d for %d items", pages, l.Meta.Total, l.Cursor.Count, len(l.Data))
				}
				for _, x := range l.Data {
					if x.Balance == nil {
						t.Errorf("include=balance lost on page %d", pages)
					}
					seen = append(seen, x.ID)
				}
				if l.Cursor.Next == nil {
					if l.Cursor.NextURI != nil {
						t.Errorf("last page: next_uri %q", *l.Cursor.NextURI)
					}
					break
				}
				if *l.Cursor.Next != pages+1 || l.Cursor.NextURI == nil {
					t.Fatalf("page %d: next %d, next_uri %v", pages, *l.Cursor.Next, l.Cursor.NextURI)
				}
				uri := *l.Cursor.NextURI
				path, rawQuery, _ := strings.Cut(uri, "?")
				q, err := url.ParseQuery(rawQuery)
				if path != "customers" || err != nil || q.Get("page") != strconv.Itoa(pages+1) || q.Get("per_page") != "3" || q.Get("include") != "balance" {
					t.Fatalf("next_uri %q: want customers?page=%d keeping per_page=3 and include=balance", uri, pages+1)
				}
				l = customerList{}
				a.get(t, "/"+uri).want(t, http.StatusOK).decode(t, &l)
				pages++
			}
			if pages != 3 || !slices.Equal(seen, ids(0, 1, 2, 3, 4, 5, 6)) {
				t.Errorf("%d pages gave %v, want 3 pages of the 7 customers oldest first", pages, seen)
			}

			past := a.list(t, "per_page=3&page=4")
			if len(past.Data) != 0 || past.Cursor.Count != 0 || past.Cursor.Next != nil || past.Meta.Total != 7 {
				t.Errorf("page past the end: %+v", past)
			}
			if all := a.list(t, ""); len(all.Data) != 7 || all.Cursor.Next != nil || all.Data[0].Balance != nil {
				t.Errorf("default page: %d items, next %v", len(all.Data), all.Cursor.Next)
			}
			for _, q := range []string{"per_page=0", "per_page=101", "per_page=-1", "per_page=ten"} {
				a.get(t, "/customers?"+q).wantFields(t, "per_page")
			}
			for _, q := range []string{"page=0", "page=-2", "page=two", "page=9223372036854775807"} {
				a.get(t, "/customers?"+q).wantFields(t, "page")
			}
			if l := a.list(t, "per_page=100"); len(l.Data) != 7 {
				t.Errorf("per_page=100: %d items", len(l.Data))
			}
		})

		filter := func(t *testing.T, params url.Values, want []string) {
			t.Helper()
			l := a.list(t, params.Encode())
			if got := l.ids(); !slices.Equal(got, want) || l.Meta.Total != len(want) {
				t.Errorf("%s: got %v (total %d), want %v", params.Encode(), got, l.Meta.Total, want)
			}
		}
		one := func(field, value string) url.Values { return url.Values{field: {value}} }

		t.Run("created_at", func(t *testing.T) {
			filter(t, one("created_at", "eq|"+at(3)), ids(3))
			filter(t, one("created_at", "gt|"+at(4)), ids(5, 6))
			filter(t, one("created_at", "gte|"+at(4)), ids(4, 5, 6))
			filter(t, one("created_at", "lt|"+at(2)), ids(0, 1))
			filter(t, one("created_at", "lte|"+at(2)), ids(0, 1, 2))
			filter(t, one("created_at", "between|"+at(1)+","+at(3)), ids(1, 2, 3))
			filter(t, one("created_at", "in|"+at(0)+","+at(6)), ids(0, 6))
			filter(t, one("created_at", "not_in|"+at(0)+","+at(6)), ids(1, 2, 3, 4, 5))
			// Two conditions on one field.
			filter(t, url.Values{"created_at": {"gt|" + at(1), "lt|" + at(4)}}, ids(2, 3))
		})

		t.Run("timestamp forms", func(t *testing.T) {
			ts := parseTime(t, at(3))
			for _, form := range []string{
				ts.Format("2006-01-02T15:04:05+00:00"),
				ts.Format("2006-01-02T15:04:05+0000"),
				ts.Format("2006-01-02T15:04:05Z"),
				ts.In(time.FixedZone("EST", -5*3600)).Format(time.RFC3339),
				ts.In(time.FixedZone("EST", -5*3600)).Format("2006-01-02T15:04:05-0700"),
			} {
				filter(t, one("created_at", "eq|"+form), ids(3))
			}
			// A client that does not encode the "+" of the offset.
			if l := a.list(t, "created_at=eq|"+at(3)); !slices.Equal(l.ids(), ids(3)) {
				t.Errorf("unencoded +00:00: got %v, want %v", l.ids(), ids(3))
			}
		})

		t.Run("updated_at", func(t *testing.T) {
			e.db.Advance(time.Hour)
			release := e.db.Hold() // both edits in the same second
			defer release()
			a.do(t, http.MethodPut, "/customers/"+c[2].ID, map[string]any{"first_name": "Two"}).want(t, http.StatusOK)
			u5 := a.do(t, http.MethodPut, "/customers/"+c[5].ID, map[string]any{"first_name": "Five"}).want(t, http.StatusOK).customer(t)
			filter(t, one("updated_at", "gt|"+at(6)), ids(2, 5))
			filter(t, one("updated_at", "eq|"+u5.UpdatedAt), ids(2, 5))
			filter(t, one("updated_at", "lte|"+at(6)), ids(0, 1, 3, 4, 6))
			filter(t, one("updated_at", "lt|"+at(1)), ids(0))
			filter(t, one("updated_at", "gte|"+at(6)), ids(2, 5, 6))
			filter(t, one("updated_at", "between|"+at(3)+","+at(4)), ids(3, 4))
			filter(t, one("updated_at", "in|"+at(0)+","+u5.UpdatedAt), ids(0, 2, 5))
			filter(t, one("updated_at", "not_in|"+u5.UpdatedAt), ids(0, 1, 3, 4, 6))
			// Filters combine, and next_uri keeps them.
			params := url.Values{"created_at": {"gte|" + at(1)}, "updated_at": {"gt|" + at(6)}, "per_page": {"1"}}
			l := a.list(t, params.Encode())
			if !slices.Equal(l.ids(), ids(2)) || l.Meta.Total != 2 || l.Cursor.NextURI == nil {
				t.Fatalf("combined filters: %v total %d", l.ids(), l.Meta.Total)
			}
			var next customerList
			a.get(t, "/"+*l.Cursor.NextURI).want(t, http.StatusOK).decode(t, &next)
			if !slices.Equal(next.ids(), ids(5)) || next.Cursor.Next != nil {
				t.Errorf("second page of the filter: %v (next_uri %s)", next.ids(), *l.Cursor.NextURI)
			}
		})

		t.Run("email", func(t *testing.T) {
			filter(t, one("email", "eq|c4@list.example"), ids(4))
			filter(t, one("email", "eq|C4@List.Example"), ids(4))
			filter(t, one("email", "in|c0@list.example,c6@list.example,nobody@list.example"), ids(0, 6))
			filter(t, one("email", "not_in|c0@list.example,c6@list.example"), ids(1, 2, 3, 4, 5))
			filter(t, one("email", "eq|nobody@list.example"), nil)
		})

		t.Run("phone", func(t *testing.T) {
			for _, q := range []string{
				"phone=eq|%2B15145550101", // encoded +
				"phone=eq|+15145550101",   // a raw + arrives as a space
				"phone=eq|5145550101",     // local, read with the business's country
				"phone=in|%2B15145550101,%2B15145550102",
			} {
				l := a.list(t, q)
				if !slices.Equal(l.ids(), ids(1)) {
					t.Errorf("%s: got %v, want %v", q, l.ids(), ids(1))
				}
			}
			if l := a.list(t, "phone=not_in|%2B15145550101"); len(l.Data) != 6 || slices.Contains(l.ids(), c[1].ID) {
				t.Errorf("phone not_in: %v", l.ids())
			}
		})

		t.Run("bad filters", func(t *testing.T) {
			for q, word := range map[string]string{
				"first_name=eq|Two":                  "first_name",
				"enabled=eq|true":                    "enabled",
				"created_at=like|2026":               "like",
				"created_at=gt|yesterday":            "yesterday",
				"created_at=between|" + at(1):        "between",
				"created_at=eq|2026-13-45T00:00:00Z": "created_at",
				"phone=eq|not-a-phone":               "phone",
				"updated_at=in|":                     "updated_at",
			} {
				a.get(t, "/customers?"+q).wantError(t, http.StatusBadRequest, word)
			}
			a.get(t, "/customers?include=tiers").wantError(t, http.StatusBadRequest, "tiers")
		})
	})
}
