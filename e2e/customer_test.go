package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCustomers covers creating, reading, updating and deleting customers,
// their validation, and the wall between businesses.
func TestCustomers(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)

		t.Run("create by email", func(t *testing.T) {
			before := time.Now().UTC().Truncate(time.Second)
			c := a.createCustomer(t, map[string]any{"email": "Ada.Lovelace@Example.COM", "first_name": "Ada", "last_name": "Lovelace",
				"language": "en", "gender": "female", "birth_date": "1990-12-10", "unknown_field": "ignored"})
			if !hexID.MatchString(c.ID) || deref(c.Email) != "ada.lovelace@example.com" || c.Phone != nil ||
				deref(c.FirstName) != "Ada" || deref(c.LastName) != "Lovelace" || deref(c.Language) != "en" ||
				deref(c.Gender) != "female" || deref(c.BirthDate) != "1990-12-10" || !c.Enabled {
				t.Errorf("created %+v", c)
			}
			created := parseTime(t, c.CreatedAt)
			if !strings.HasSuffix(c.CreatedAt, "+00:00") || created.Before(before) || created.After(time.Now().Add(time.Second)) || c.UpdatedAt != c.CreatedAt {
				t.Errorf("created_at %q, updated_at %q: want now, +00:00", c.CreatedAt, c.UpdatedAt)
			}
			got := a.get(t, "/customers/"+c.ID).want(t, http.StatusOK).customer(t)
			if deref(got.Email) != "ada.lovelace@example.com" || got.CreatedAt != c.CreatedAt || got.Balance != nil || got.Address != nil {
				t.Errorf("read back %+v", got)
			}
		})

		t.Run("create by phone", func(t *testing.T) {
			c := a.createCustomer(t, map[string]any{"phone": "514 555 0123", "country_code": "CA"})
			if deref(c.Phone) != "+15145550123" || c.Email != nil {
				t.Errorf("phone %s, email %s; want +15145550123 and null", deref(c.Phone), deref(c.Email))
			}
			c = a.createCustomer(t, map[string]any{"phone": "06 12 34 56 78", "country_code": "fr"})
			if deref(c.Phone) != "+33612345678" {
				t.Errorf("French mobile stored as %s", deref(c.Phone))
			}
		})

		t.Run("create: validation", func(t *testing.T) {
			post := func(body any) *result {
				t.Helper()
				return a.do(t, http.MethodPost, "/customers", body)
			}
			post(map[string]any{"first_name": "Nobody"}).wantFields(t, "email", "phone")
			post(map[string]any{}).wantFields(t, "email", "phone")
			post(map[string]any{"phone": "514 555 0124"}).wantFields(t, "country_code")
			post(map[string]any{"phone": "514 555 0124", "country_code": "XX"}).wantFields(t, "country_code")
			post(map[string]any{"phone": "12", "country_code": "CA"}).wantFields(t, "phone")
			post(map[string]any{"email": "not-an-email"}).wantFields(t, "email")
			post(map[string]any{"email": "v1@x.example", "language": "de"}).wantFields(t, "language")
			post(map[string]any{"email": "v2@x.example", "gender": "other"}).wantFields(t, "gender")
			post(map[string]any{"email": "v3@x.example", "language": "EN", "gender": "f"}).wantFields(t, "language", "gender")
			post(map[string]any{"email": "v4@x.example", "birth_date": "10/12/1990"}).wantFields(t, "birth_date")
			post(map[string]any{"email": "v4@x.example", "birth_date": time.Now().AddDate(0, 0, 2).Format(time.DateOnly)}).wantFields(t, "birth_date")
			post(map[string]any{"email": "v5@x.example", "first_name": 5}).wantFields(t, "first_name")
			post(map[string]any{"email": true}).wantFields(t, "email")
			post(map[string]any{"email": "v6@x.example", "address": "1 Main St"}).wantFields(t, "address")
			post("email=v7@x.example").wantError(t, http.StatusBadRequest)
			post(`{"email": "v8@x.example"`).wantError(t, http.StatusBadRequest)
			post("").wantError(t, http.StatusBadRequest)
			post("[1, 2]").wantError(t, http.StatusBadRequest)
			// None of them created anyone.
			if l := a.list(t, "email=in|v1@x.example,v2@x.example,v3@x.example,v4@x.example,v5@x.example,v6@x.example,v7@x.example,v8@x.example"); l.Meta.Total != 0 {
				t.Errorf("invalid creates stored %v", l.ids())
			}
		})

		t.Run("create: duplicates in one business", func(t *testing.T) {
			a.createCustomer(t, map[string]any{"email": "dup@x.example", "phone": "438 555 0100", "country_code": "CA"})
			a.do(t, http.MethodPost, "/customers", map[string]any{"email": "dup@x.example"}).wantFields(t, "email")
			a.do(t, http.MethodPost, "/customers", map[string]any{"email": "DUP@X.example"}).wantFields(t, "email")
			a.do(t, http.MethodPost, "/customers", map[string]any{"phone": "(438) 555-0100", "country_code": "CA"}).wantFields(t, "phone")
		})

		t.Run("concurrent creates", func(t *testing.T) {
			// Several at once: distinct people all join; of several
			// creates of one person, one wins and the others are 422, never
			// a 5xx or a 409. (A transport failure would call t.Fatalf off
			// the test goroutine; it is not expected on loopback.)
			const n = 6
			results := make([]*result, 2*n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(2)
				go func() {
					defer wg.Done()
					results[i] = a.do(t, http.MethodPost, "/customers", map[string]any{"email": fmt.Sprintf("crowd%d@x.example", i)})
				}()
				go func() {
					defer wg.Done()
					results[n+i] = a.do(t, http.MethodPost, "/customers", map[string]any{"email": "same.person@x.example"})
				}()
			}
			wg.Wait()
			won := 0
			for i, r := range results {
				switch {
				case i < n:
					r.want(t, http.StatusOK)
				case r.Status == http.StatusOK:
					won++
				default:
					r.wantFields(t, "email")
				}
			}
			if won != 1 {
				t.Errorf("%d concurrent creates of one person succeeded, want 1", won)
			}
			if l := a.list(t, "email=eq|same.person@x.example"); len(l.Data) != 1 {
				t.Errorf("one person listed %d times", len(l.Data))
			}
		})

		t.Run("businesses see only their own customers", func(t *testing.T) {
			ob := e.newBusiness(t, "Bakery")
			b := e.owner(t, ob)
			shared := a.createCustomer(t, map[string]any{"email": "shared@x.example", "first_name": "Sam"})
			onlyA := a.createCustomer(t, map[string]any{"email": "only.a@x.example"})
			// The same person joins the second business: same person, same id.
			inB := b.createCustomer(t, map[string]any{"email": "Shared@x.example"})
			if inB.ID != shared.ID {
				t.Errorf("the same person has id %s in one business and %s in the other", shared.ID, inB.ID)
			}
			onlyB := b.createCustomer(t, map[string]any{"email": "only.b@x.example"})

			lb := b.list(t, "")
			if ids := lb.ids(); len(ids) != 2 || lb.Meta.Total != 2 || !slices.Contains(ids, shared.ID) || !slices.Contains(ids, onlyB.ID) {
				t.Errorf("second business lists %v (total %d), want its 2 customers", ids, lb.Meta.Total)
			}
			if ids := a.list(t, "").ids(); slices.Contains(ids, onlyB.ID) || !slices.Contains(ids, onlyA.ID) {
				t.Errorf("first business lists %v", ids)
			}
			b.get(t, "/customers/"+onlyA.ID).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodPut, "/customers/"+onlyA.ID, map[string]any{"first_name": "Mallory"}).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodDelete, "/customers/"+onlyA.ID, nil).wantError(t, http.StatusNotFound)
			a.get(t, "/customers/"+onlyB.ID).wantError(t, http.StatusNotFound)
			if l := b.list(t, "email=eq|only.a@x.example"); len(l.Data) != 0 {
				t.Errorf("filter reveals another business's customer: %v", l.ids())
			}
			// Deleting the membership in one business leaves the other.
			b.do(t, http.MethodDelete, "/customers/"+shared.ID, nil).want(t, http.StatusNoContent)
			a.get(t, "/customers/"+shared.ID).want(t, http.StatusOK)
			untouched := a.get(t, "/customers/"+onlyA.ID).want(t, http.StatusOK).customer(t)
			if untouched.FirstName != nil {
				t.Errorf("another business changed a customer: %+v", untouched)
			}
		})

		t.Run("another business cannot change what this one sees", func(t *testing.T) {
			ob := e.newBusiness(t, "Rival")
			rival := e.owner(t, ob)
			mine := a.createCustomer(t, map[string]any{"email": "loyal@x.example", "first_name": "Lou"})
			theirs := rival.createCustomer(t, map[string]any{"email": "loyal@x.example"})
			if theirs.ID != mine.ID || theirs.FirstName != nil {
				t.Errorf("joining a known person: id %s (want %s), first_name %v (want what the rival sent: nothing)",
					theirs.ID, mine.ID, theirs.FirstName)
			}
			rival.do(t, http.MethodPut, "/customers/"+mine.ID, map[string]any{"email": "rival@evil.example", "first_name": "Mallory"}).
				want(t, http.StatusOK)
			got := a.get(t, "/customers/"+mine.ID).want(t, http.StatusOK).customer(t)
			if deref(got.Email) != "loyal@x.example" || deref(got.FirstName) != "Lou" {
				t.Errorf("another business rewrote this business's customer: email %s, first_name %s", deref(got.Email), deref(got.FirstName))
			}
		})

		t.Run("referral", func(t *testing.T) {
			prog := e.referralProgram(t, e.biz.ID, "Friends", true, false)
			linked := e.referralProgram(t, e.biz.ID, "Links", true, true)
			off := e.referralProgram(t, e.biz.ID, "Old", false, false)
			other := e.newBusiness(t, "Bakery Two")
			foreign := e.referralProgram(t, other.ID, "Theirs", true, false)
			stranger := e.owner(t, other).createCustomer(t, map[string]any{"email": "stranger@x.example"})
			referrer := a.createCustomer(t, map[string]any{"email": "referrer@x.example"})

			refer := func(email string, ref map[string]any) *result {
				t.Helper()
				return a.do(t, http.MethodPost, "/customers", map[string]any{"email": email, "referral": ref})
			}
			refer("r1@x.example", map[string]any{"referral_program_id": 999999, "referrer_id": referrer.ID}).wantFields(t, "referral.referral_program_id")
			refer("r1@x.example", map[string]any{"referral_program_id": off, "referrer_id": referrer.ID}).wantFields(t, "referral.referral_program_id")
			refer("r1@x.example", map[string]any{"referral_program_id": foreign, "referrer_id": referrer.ID}).wantFields(t, "referral.referral_program_id")
			refer("r1@x.example", map[string]any{"referral_program_id": prog, "referrer_id": "0123456789abcdef0123456789abcdef"}).wantFields(t, "referral.referrer_id")
			refer("r1@x.example", map[string]any{"referral_program_id": prog, "referrer_id": stranger.ID}).wantFields(t, "referral.referrer_id")
			refer("r1@x.example", map[string]any{"referral_program_id": prog, "referrer_id": "someone"}).wantFields(t, "referral.referrer_id")
			refer("r1@x.example", map[string]any{"referral_program_id": prog}).wantFields(t, "referral.referrer_id")
			refer("r1@x.example", map[string]any{"referrer_id": referrer.ID}).wantFields(t, "referral.referral_program_id")
			refer("r1@x.example", map[string]any{"referral_program_id": "first", "referrer_id": referrer.ID}).wantFields(t, "referral.referral_program_id")
			refer("referrer@x.example", map[string]any{"referral_program_id": prog, "referrer_id": referrer.ID}).want(t, http.StatusUnprocessableEntity)

			// A refused referral created nobody.
			if l := a.list(t, "email=eq|r1@x.example"); len(l.Data) != 0 {
				t.Fatalf("a refused referral left customer %v", l.ids())
			}
			referee := refer("r1@x.example", map[string]any{"referral_program_id": prog, "referrer_id": referrer.ID}).want(t, http.StatusOK).customer(t)

			var got struct {
				Included struct {
					ReferralPrograms []struct {
						ID           int64   `json:"id"`
						RuleName     string  `json:"rule_name"`
						Enabled      bool    `json:"enabled"`
						ReferralLink *string `json:"referral_link"`
					} `json:"referral_programs"`
				} `json:"included"`
			}
			a.get(t, "/customers/"+referee.ID+"?include=referral_programs").want(t, http.StatusOK).decode(t, &got)
			progs := got.Included.ReferralPrograms
			if len(progs) != 3 || progs[0].ID != prog || progs[0].RuleName != "Friends" || progs[0].ReferralLink != nil {
				t.Fatalf("referral_programs = %+v, want this business's 3 programs", progs)
			}
			if progs[1].ID != linked || progs[1].ReferralLink == nil || !strings.Contains(*progs[1].ReferralLink, referee.ID) {
				t.Errorf("link program = %+v, want a referral_link naming the customer", progs[1])
			}
		})

		t.Run("read with include and relationships", func(t *testing.T) {
			c := a.createCustomer(t, map[string]any{"email": "reader@x.example"})
			path := "/customers/" + c.ID

			var withBalance struct {
				Data     customer `json:"data"`
				Included struct {
					Balance map[string]any `json:"balance"`
				} `json:"included"`
			}
			r := a.get(t, path+"?include=balance").want(t, http.StatusOK)
			r.decode(t, &withBalance)
			for _, bal := range []map[string]any{withBalance.Data.Balance, withBalance.Included.Balance} {
				if len(bal) != 6 || bal["points"] != float64(0) || bal["giftcard"] != float64(0) || bal["pending_points"] != float64(0) ||
					bal["expiring_points"] != float64(0) || bal["expiring_at"] != nil || bal["expired_points"] != float64(0) {
					t.Errorf("balance = %v, want points 0, giftcard 0 and nothing pending, expiring or expired", bal)
				}
			}
			if !strings.Contains(string(r.Body), `"giftcard":0.00`) {
				t.Errorf("giftcard is not written as money: %s", r.Body)
			}

			tierID := e.tier(t, e.biz.ID, []string{"Silver", "Gold"}, []int64{10000, 50000})
			var tiers struct {
				Included struct {
					Tiers []struct {
						ID            int64            `json:"id"`
						TiersSequence []string         `json:"tiers_sequence"`
						TierLevels    []map[string]any `json:"tier_levels"`
					} `json:"tiers"`
					TierLevel    any `json:"tier_level"`
					TierProgress any `json:"tier_progress"`
				} `json:"included"`
			}
			a.get(t, path+"?include=tiers&relationships=tier_levels").want(t, http.StatusOK).decode(t, &tiers)
			ts := tiers.Included.Tiers
			if len(ts) != 1 || ts[0].ID != tierID || !slices.Equal(ts[0].TiersSequence, []string{"1"}) || len(ts[0].TierLevels) != 2 {
				t.Fatalf("tiers = %+v", ts)
			}
			if l := ts[0].TierLevels[1]; l["name"] != "Gold" || l["reach_spend"] != float64(500) {
				t.Errorf("tier level = %v, want Gold reaching 500.00", l)
			}
			tiers.Included.Tiers = nil
			a.get(t, path+"?include=tiers").want(t, http.StatusOK).decode(t, &tiers)
			if len(tiers.Included.Tiers) != 1 || tiers.Included.Tiers[0].TierLevels != nil {
				t.Errorf("tier_levels without relationships=tier_levels: %+v", tiers.Included.Tiers)
			}
			ir := a.get(t, path+"?include=tier_level,tier_progress").want(t, http.StatusOK)
			inc, _ := ir.obj(t)["included"].(map[string]any)
			if _, ok := inc["tier_level"]; !ok {
				t.Errorf("include=tier_level missing from %s", ir.Body)
			}
			if _, ok := inc["tier_progress"]; !ok {
				t.Errorf("include=tier_progress missing from %s", ir.Body)
			}

			a.get(t, path+"?relationships=tier_levels").wantError(t, http.StatusBadRequest, "tier_levels")
			a.get(t, path+"?include=unknown").wantError(t, http.StatusBadRequest, "unknown")
			a.get(t, path+"?include=balance,tiers,nope").wantError(t, http.StatusBadRequest, "nope")
			a.get(t, path+"?relationships=branch").wantError(t, http.StatusBadRequest, "branch")

			withRel := a.get(t, path+"?relationships=address,user_type").want(t, http.StatusOK).customer(t)
			if withRel.Address == nil || withRel.UserType == nil {
				t.Errorf("relationships=address,user_type gave %+v", withRel)
			}
			for _, k := range []string{"street", "city", "region", "country", "country_code", "zip_code", "lat", "long"} {
				if _, ok := withRel.Address[k]; !ok {
					t.Errorf("address lacks %s: %v", k, withRel.Address)
				}
			}

			a.get(t, "/customers/not-an-id").wantError(t, http.StatusBadRequest)
			a.get(t, "/customers/0123456789abcdef0123456789abcdeg").wantError(t, http.StatusBadRequest)
			a.get(t, "/customers/0123456789abcdef0123456789abcdef").wantError(t, http.StatusNotFound)
			// Ids are case-insensitive hex.
			a.get(t, "/customers/"+strings.ToUpper(c.ID)).want(t, http.StatusOK)
		})

		t.Run("update", func(t *testing.T) {
			c := a.createCustomer(t, map[string]any{"email": "grace@x.example", "first_name": "Grace"})
			path := "/customers/" + c.ID
			e.db.Advance(time.Minute) // updated_at has whole seconds
			full := map[string]any{
				"email": "Grace.Hopper@Navy.example", "phone": "(438) 555-0142", "country_code": "CA",
				"first_name": "Grace", "last_name": "Hopper", "birth_date": "1956-12-09", "language": "fr", "gender": "female",
				"enabled": false,
				"address": map[string]any{"street": "1 Main St", "city": "Montréal", "region": "QC", "country": "Canada",
					"country_code": "ca", "zip_code": "H2X 1Y4", "lat": 45.5, "long": -73.56},
			}
			u := a.do(t, http.MethodPut, path, full).want(t, http.StatusOK).customer(t)
			check := func(what string, u customer) {
				t.Helper()
				if u.ID != c.ID || deref(u.Email) != "grace.hopper@navy.example" || deref(u.Phone) != "+14385550142" ||
					deref(u.FirstName) != "Grace" || deref(u.LastName) != "Hopper" || deref(u.BirthDate) != "1956-12-09" ||
					deref(u.Language) != "fr" || deref(u.Gender) != "female" || u.Enabled || u.CreatedAt != c.CreatedAt {
					t.Errorf("%s: %+v", what, u)
				}
				if !parseTime(t, u.UpdatedAt).After(parseTime(t, c.UpdatedAt)) {
					t.Errorf("%s: updated_at %s not after %s", what, u.UpdatedAt, c.UpdatedAt)
				}
			}
			check("PUT reply", u)
			got := a.get(t, path+"?relationships=address").want(t, http.StatusOK).customer(t)
			check("read back", got)
			wantAddr := map[string]any{"street": "1 Main St", "city": "Montréal", "region": "QC", "country": "Canada",
				"country_code": "CA", "zip_code": "H2X 1Y4", "lat": 45.5, "long": -73.56}
			for k, v := range wantAddr {
				if got.Address[k] != v {
					t.Errorf("address.%s = %v, want %v", k, got.Address[k], v)
				}
			}
			if l := a.list(t, "email=eq|grace.hopper@navy.example"); len(l.Data) != 1 || l.Data[0].Enabled {
				t.Errorf("list shows %+v, want the deactivated customer", l.Data)
			}

			// A partial update changes only what it names.
			p := a.do(t, http.MethodPut, path, map[string]any{"last_name": "Hopper-Murray"}).want(t, http.StatusOK).customer(t)
			got = a.get(t, path+"?relationships=address").want(t, http.StatusOK).customer(t)
			for _, x := range []customer{p, got} {
				if deref(x.LastName) != "Hopper-Murray" || deref(x.Email) != "grace.hopper@navy.example" ||
					deref(x.Phone) != "+14385550142" || deref(x.Language) != "fr" || x.Enabled {
					t.Errorf("partial update: %+v", x)
				}
			}
			if got.Address["city"] != "Montréal" || got.Address["lat"] != 45.5 {
				t.Errorf("partial update changed the address: %v", got.Address)
			}
			a.do(t, http.MethodPut, path, map[string]any{"address": map[string]any{"city": "Laval"}}).want(t, http.StatusOK)
			got = a.get(t, path+"?relationships=address").want(t, http.StatusOK).customer(t)
			if got.Address["city"] != "Laval" || got.Address["street"] != "1 Main St" {
				t.Errorf("address merge: %v", got.Address)
			}
			if x := a.do(t, http.MethodPut, path, map[string]any{"enabled": true}).want(t, http.StatusOK).customer(t); !x.Enabled {
				t.Errorf("enabled=true left %+v", x)
			}

			// Validation and conflicts.
			other := a.createCustomer(t, map[string]any{"email": "taken@x.example", "phone": "438 555 0199", "country_code": "CA"})
			a.do(t, http.MethodPut, path, map[string]any{"email": "Taken@x.example"}).wantFields(t, "email")
			a.do(t, http.MethodPut, path, map[string]any{"phone": "+1 438 555 0199", "country_code": "CA"}).wantFields(t, "phone")
			a.do(t, http.MethodPut, path, map[string]any{"phone": "438 555 0111"}).wantFields(t, "country_code")
			a.do(t, http.MethodPut, path, map[string]any{"enabled": "no"}).wantFields(t, "enabled")
			a.do(t, http.MethodPut, path, map[string]any{"gender": "x", "language": "de"}).wantFields(t, "gender", "language")
			a.do(t, http.MethodPut, path, map[string]any{"address": map[string]any{"lat": 123.0}}).want(t, http.StatusUnprocessableEntity)
			a.do(t, http.MethodPut, path, map[string]any{"referral": map[string]any{"referrer_id": other.ID}}).want(t, http.StatusUnprocessableEntity)
			a.do(t, http.MethodPut, path, "not json").wantError(t, http.StatusBadRequest)
			only := a.createCustomer(t, map[string]any{"email": "only.email@x.example"})
			a.do(t, http.MethodPut, "/customers/"+only.ID, map[string]any{"email": nil}).wantFields(t, "email", "phone")
			got = a.get(t, path).want(t, http.StatusOK).customer(t)
			if deref(got.Email) != "grace.hopper@navy.example" || deref(got.Gender) != "female" {
				t.Errorf("a refused update changed the customer: %+v", got)
			}
			a.do(t, http.MethodPut, "/customers/0123456789abcdef0123456789abcdef", map[string]any{"first_name": "X"}).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodPut, "/customers/xyz", map[string]any{"first_name": "X"}).wantError(t, http.StatusBadRequest)
		})

		t.Run("delete", func(t *testing.T) {
			c := a.createCustomer(t, map[string]any{"email": "leaving@x.example"})
			path := "/customers/" + c.ID
			total := a.list(t, "").Meta.Total
			r := a.do(t, http.MethodDelete, path, nil).want(t, http.StatusNoContent)
			if len(r.Body) != 0 {
				t.Errorf("204 with body %q", r.Body)
			}
			a.get(t, path).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodPut, path, map[string]any{"first_name": "Back"}).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodDelete, path, nil).wantError(t, http.StatusNotFound)
			l := a.list(t, "")
			if slices.Contains(l.ids(), c.ID) || l.Meta.Total != total-1 {
				t.Errorf("deleted customer still listed (total %d, was %d)", l.Meta.Total, total)
			}
			if l := a.list(t, "email=eq|leaving@x.example"); len(l.Data) != 0 {
				t.Errorf("deleted customer found by filter")
			}
			a.do(t, http.MethodDelete, "/customers/0123456789abcdef0123456789abcdef", nil).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodDelete, "/customers/nope", nil).wantError(t, http.StatusBadRequest)
			// The person can join again.
			back := a.createCustomer(t, map[string]any{"email": "leaving@x.example"})
			if back.ID != c.ID {
				t.Errorf("a returning person got a new id %s (was %s)", back.ID, c.ID)
			}
		})
	})
}

// parseTime reads an API timestamp.
func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return v
}

// referralProgram stores a referral program. They have no endpoint yet
// (it arrives with the engine), so the test writes the row the way the
// store's own table holds it.
func (e *env) referralProgram(t *testing.T, businessID, name string, enabled, link bool) int64 {
	t.Helper()
	var id int64
	now := time.Now().UTC().Truncate(time.Second)
	err := e.app.DB.SQL().QueryRow(`INSERT INTO referral_programs (business_id, rule_name, cond_min_amount, referee_earns,
		referer_earns, expires_in, enabled, link_referral_enabled, created_at, updated_at)
		VALUES ($1, $2, 1000, 50, 100, 30, $3, $4, $5, $6) RETURNING id`, businessID, name, enabled, link, now, now).Scan(&id)
	if err != nil {
		t.Fatalf("insert referral program: %v", err)
	}
	return id
}

// tier stores a tier program with levels (names and reach_spend in cents);
// tiers have no endpoint yet either.
func (e *env) tier(t *testing.T, businessID string, names []string, spend []int64) int64 {
	t.Helper()
	db := e.app.DB.SQL()
	var id int64
	now := time.Now().UTC().Truncate(time.Second)
	if err := db.QueryRow(`INSERT INTO tiers (business_id, tiers_relation, reset_type, reset_period_month, base_previous_period,
		enabled, created_at, updated_at) VALUES ($1, 0, 1, 12, 0, $2, $3, $4) RETURNING id`, businessID, true, now, now).Scan(&id); err != nil {
		t.Fatalf("insert tier: %v", err)
	}
	for i, n := range names {
		if _, err := db.Exec(`INSERT INTO tier_levels (tier_id, name, reach_spend, reach_visits, reach_points, position)
			VALUES ($1, $2, $3, 0, 0, $4)`, id, n, spend[i], i); err != nil {
			t.Fatalf("insert tier level: %v", err)
		}
	}
	return id
}
