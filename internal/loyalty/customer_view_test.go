package loyalty_test

import (
	"encoding/json"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// decodeInto reads a JSON body into an input type, as a handler would.
func decodeInto(tb testing.TB, body string, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
}

func TestCustomerView(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"ann@example.com"}`)
		programs := &loyalty.ReferralProgramService{Store: w.db}
		var shared, off loyalty.ReferralProgramInput
		decodeInto(t, `{"cond_min_amount":10,"referee_earns":5,"referer_earns":10,"expires_in":30}`, &shared)
		decodeInto(t, `{"cond_min_amount":10,"referee_earns":5,"referer_earns":10,"expires_in":30,"enabled":false}`, &off)
		on, err := programs.Create(w.ctx, b, shared)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := programs.Create(w.ctx, b, off); err != nil {
			t.Fatal(err)
		}
		var tier loyalty.TierInput
		decodeInto(t, `{"tier_levels":[{"name":"Member"},{"name":"Silver","reach_points":100}]}`, &tier)
		if _, err := (&loyalty.TierService{Store: w.db}).Create(w.ctx, b, tier); err != nil {
			t.Fatal(err)
		}

		t.Run("nothing included reads only the customer", func(t *testing.T) {
			v, err := w.svc.View(w.ctx, b, c.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v.Customer.ID != c.ID || v.Tiers != nil || v.Tier != nil || v.ReferralPrograms != nil {
				t.Errorf("view without include: %+v", v)
			}
		})
		t.Run("every include", func(t *testing.T) {
			all := map[string]bool{}
			for _, name := range loyalty.CustomerIncludes {
				all[name] = true
			}
			v, err := w.svc.View(w.ctx, b, c.ID, all)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Tiers) != 1 || len(v.Tiers[0].Levels) != 2 {
				t.Errorf("tiers: %+v", v.Tiers)
			}
			if v.Tier == nil || v.Tier.Level == nil || v.Tier.Level.Name != "Member" || v.Tier.Next == nil || v.Tier.Next.Name != "Silver" {
				t.Errorf("tier status: %+v", v.Tier)
			}
			if len(v.ReferralPrograms) != 2 {
				t.Fatalf("referral programs: %+v", v.ReferralPrograms)
			}
			for _, cr := range v.ReferralPrograms {
				want := ""
				if cr.Program.ID == on.ID {
					want = loyalty.ReferralLinkPath(on.ID, c.ID)
				}
				if cr.LinkPath != want {
					t.Errorf("program %d (enabled %v): link %q, want %q", cr.Program.ID, cr.Program.Enabled, cr.LinkPath, want)
				}
			}
		})
		t.Run("tier standing is nil without an enabled program", func(t *testing.T) {
			other := w.business(t, "US")
			d := w.create(t, other, `{"email":"bob@example.com"}`)
			v, err := w.svc.View(w.ctx, other, d.ID, map[string]bool{"tier_level": true, "tiers": true})
			if err != nil {
				t.Fatal(err)
			}
			if v.Tier != nil || len(v.Tiers) != 0 {
				t.Errorf("business without tiers: %+v", v)
			}
		})
		t.Run("another business's customer is not found", func(t *testing.T) {
			_, err := w.svc.View(w.ctx, w.business(t, "US"), c.ID, map[string]bool{"balance": true})
			wantCode(t, err, loyalty.ENotFound)
			if msg := loyalty.ErrorMessage(err); msg != "Customer not found." {
				t.Errorf("message %q", msg)
			}
		})
	})
}

func TestBranchIndex(t *testing.T) {
	main := loyalty.Branch{ID: "m", Name: "Main", IsMain: true}
	east := loyalty.Branch{ID: "e", Name: "East"}
	x := loyalty.NewBranchIndex([]loyalty.Branch{east, main})
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{[]string{"e"}, "e"},
		{[]string{"gone", "e"}, "e"},
		{nil, "m"},              // available everywhere: the main branch
		{[]string{"gone"}, "m"}, // its branches are gone: the main branch
	} {
		if b, ok := x.For(tc.ids); !ok || b.ID != tc.want {
			t.Errorf("For(%v) = %q, %v; want %q", tc.ids, b.ID, ok, tc.want)
		}
	}
	if b, ok := loyalty.NewBranchIndex([]loyalty.Branch{east}).For(nil); !ok || b.ID != "e" {
		t.Errorf("without a main branch the first stands in: %q, %v", b.ID, ok)
	}
	if _, ok := loyalty.NewBranchIndex(nil).For([]string{"e"}); ok {
		t.Error("a business without branches shows none")
	}
}
