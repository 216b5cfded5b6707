package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCampaignRuleGift: a campaign's gift is an earning rule for its
// recipients only, for N days. Bad gifts are refused naming the field;
// saving the campaign keeps the rule to it (the rule shows the campaign
// and the days, no edit of the rule's conditions frees it, no other
// campaign may give it). Once sent (by push), a recipient it reached
// earns by the rule on a reward within the days and not after (the
// sandbox clock moves past them); a member drawn into the holdout, one
// consent refused and a customer outside the segment never do. The
// report counts the rule given to each recipient reached and used by
// each who earned by it.
func TestCampaignRuleGift(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		a.moveClock(t, map[string]any{"to": "2031-06-10T12:00:00+00:00"})

		// 16 lapsed members who agree to push, one lapsed who does not,
		// one customer who is not lapsed.
		var lapsed []string
		for i := range 16 {
			id := a.createCustomer(t, map[string]any{"email": "l" + strconv.Itoa(i) + "@rule-gift.example"}).ID
			a.do(t, http.MethodPut, "/customers/"+id+"/tags", map[string]any{"tags": []string{"lapsed"}}).want(t, http.StatusOK)
			a.do(t, http.MethodPost, "/customers/"+id+"/consents", map[string]any{"allow_email": false, "allow_sms": false,
				"allow_push": true}).want(t, http.StatusOK)
			lapsed = append(lapsed, id)
		}
		refused := a.createCustomer(t, map[string]any{"email": "no@rule-gift.example"}).ID
		a.do(t, http.MethodPut, "/customers/"+refused+"/tags", map[string]any{"tags": []string{"lapsed"}}).want(t, http.StatusOK)
		outsider := a.createCustomer(t, map[string]any{"email": "out@rule-gift.example"}).ID
		a.do(t, http.MethodPost, "/customers/"+outsider+"/consents", map[string]any{"allow_email": true, "allow_sms": true,
			"allow_push": true}).want(t, http.StatusOK)
		var seg struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/segments", map[string]any{"name": "Lapsed", "filters": map[string]any{"tags_any": []string{"lapsed"}}}).
			want(t, http.StatusCreated).decode(t, &seg)

		// The rule waits disabled until it is the gift.
		var rule struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/earning-rules", map[string]any{"name": "Comeback bonus", "enabled": false,
			"effect": map[string]any{"type": "bonus", "points": 30}}).want(t, http.StatusOK).decode(t, &rule)
		ruleID := rule.Data.ID
		draft := func(gift map[string]any) map[string]any {
			return map[string]any{"name": "Come back", "segment_id": seg.Data.ID, "channels": []string{"push"},
				"sms_body": "30 points more on your next visit this week", "holdout_percent": 50, "gift": gift}
		}
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": 999999, "days": 7})).wantFields(t, "gift.earning_rule_id")
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": ruleID})).wantFields(t, "gift.days")
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": ruleID, "days": 0})).wantFields(t, "gift.days")
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": ruleID, "days": 366})).wantFields(t, "gift.days")
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": ruleID, "days": 7, "points": 5})).wantFields(t, "gift")
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"points": 5, "days": 7})).wantFields(t, "gift.days")

		var c struct {
			Data struct {
				ID   int64
				Gift map[string]any
			}
		}
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": ruleID, "days": 7})).
			want(t, http.StatusCreated).decode(t, &c)
		id := strconv.FormatInt(c.Data.ID, 10)
		if c.Data.Gift["earning_rule_id"] != float64(ruleID) || c.Data.Gift["days"] != 7.0 {
			t.Fatalf("campaign gift %v", c.Data.Gift)
		}
		type ruleView struct {
			Data struct {
				Enabled    bool `json:"enabled"`
				Conditions struct {
					CampaignID   *int64 `json:"campaign_id"`
					CampaignDays *int   `json:"campaign_days"`
				} `json:"conditions"`
			}
		}
		kept := func(when string) {
			t.Helper()
			var r ruleView
			a.get(t, "/earning-rules/"+strconv.FormatInt(ruleID, 10)).want(t, http.StatusOK).decode(t, &r)
			if cd := r.Data.Conditions; !r.Data.Enabled || cd.CampaignID == nil || *cd.CampaignID != c.Data.ID ||
				cd.CampaignDays == nil || *cd.CampaignDays != 7 {
				t.Fatalf("%s: the rule is %+v, want it on and kept to campaign %d for 7 days", when, r.Data, c.Data.ID)
			}
		}
		kept("once the gift")
		rulePath := "/earning-rules/" + strconv.FormatInt(ruleID, 10)
		a.do(t, http.MethodPut, rulePath, map[string]any{"conditions": map[string]any{"campaign_id": c.Data.ID + 1}}).
			wantFields(t, "conditions.campaign_id")
		a.do(t, http.MethodPut, rulePath, map[string]any{"conditions": map[string]any{"min_amount": 1}}).want(t, http.StatusOK)
		a.do(t, http.MethodPut, rulePath, map[string]any{"conditions": nil}).want(t, http.StatusOK)
		kept("after its conditions were replaced")
		a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": ruleID, "days": 3})).
			wantFields(t, "gift.earning_rule_id")

		// A draft whose gift changes, or that is deleted, lets its rule go:
		// no longer kept to it, and off (not everyone's now); one whose rule
		// was deleted is not sent.
		other := func(name string) (string, int64) {
			var r struct{ Data struct{ ID int64 } }
			a.do(t, http.MethodPost, "/earning-rules", map[string]any{"name": name, "effect": map[string]any{"type": "bonus", "points": 5}}).
				want(t, http.StatusOK).decode(t, &r)
			var d struct{ Data struct{ ID int64 } }
			a.do(t, http.MethodPost, "/campaigns", draft(map[string]any{"earning_rule_id": r.Data.ID, "days": 3})).
				want(t, http.StatusCreated).decode(t, &d)
			return strconv.FormatInt(d.Data.ID, 10), r.Data.ID
		}
		released := func(ruleID int64) {
			t.Helper()
			var r ruleView
			a.get(t, "/earning-rules/"+strconv.FormatInt(ruleID, 10)).want(t, http.StatusOK).decode(t, &r)
			if r.Data.Enabled || r.Data.Conditions.CampaignID != nil || r.Data.Conditions.CampaignDays != nil {
				t.Errorf("a rule let go: %+v, want off and kept to no campaign", r.Data)
			}
		}
		d1, r1 := other("Changed")
		a.do(t, http.MethodPut, "/campaigns/"+d1, map[string]any{"gift": map[string]any{"points": 5}}).want(t, http.StatusOK)
		released(r1)
		d2, r2 := other("Deleted")
		a.do(t, http.MethodDelete, "/campaigns/"+d2, nil).want(t, http.StatusNoContent)
		released(r2)
		d3, r3 := other("Gone")
		a.do(t, http.MethodDelete, "/earning-rules/"+strconv.FormatInt(r3, 10), nil).want(t, http.StatusNoContent)
		a.do(t, http.MethodPut, "/campaigns/"+d3, map[string]any{"name": "Gone too"}).want(t, http.StatusOK)
		a.do(t, http.MethodPost, "/campaigns/"+d3+"/send", map[string]any{}).wantFields(t, "gift.earning_rule_id")
		a.do(t, http.MethodDelete, "/campaigns/"+d1, nil).want(t, http.StatusNoContent)
		a.do(t, http.MethodDelete, "/campaigns/"+d3, nil).want(t, http.StatusNoContent)

		// The console's form shows the rule gift and keeps it when saved.
		owner := e.web(t)
		owner.signIn(t, "/business", sb.Email, sb.Password)
		page := string(owner.get(t, "/business/campaigns/"+id).want(t, http.StatusOK).Body)
		if !strings.Contains(page, `value="rule" checked`) || !strings.Contains(page, `name="gift_rule_id" value="`+strconv.FormatInt(ruleID, 10)+`"`) {
			t.Fatalf("the campaign's form does not show its rule gift")
		}
		owner.post(t, "/business/campaigns/"+id, url.Values{"name": {"Come back"}, "segment_id": {strconv.FormatInt(seg.Data.ID, 10)},
			"channels": {"push"}, "sms_body": {"30 points more on your next visit this week"}, "gift": {"rule"},
			"gift_rule_id": {strconv.FormatInt(ruleID, 10)}, "gift_days": {"7"}, "holdout_percent": {"50"}, "report_days": {"30"}}).
			want(t, http.StatusSeeOther)
		var saved struct{ Data struct{ Gift map[string]any } } // fresh: decoding into c would merge its map
		a.get(t, "/campaigns/"+id).want(t, http.StatusOK).decode(t, &saved)
		if len(saved.Data.Gift) != 2 || saved.Data.Gift["earning_rule_id"] != float64(ruleID) || saved.Data.Gift["days"] != 7.0 {
			t.Fatalf("after the console saved it, the campaign's gift is %v", saved.Data.Gift)
		}
		kept("after the console saved the campaign")

		a.do(t, http.MethodPost, "/campaigns/"+id+"/send", map[string]any{}).want(t, http.StatusOK)
		for range 6 {
			if _, err := e.app.Campaigns.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		var rep struct {
			Data struct {
				State     string         `json:"state"`
				Outcomes  map[string]int `json:"outcomes"`
				Gifts     int            `json:"gifts"`
				GiftsUsed int            `json:"gifts_used"`
			}
		}
		a.get(t, "/campaigns/"+id+"/report").want(t, http.StatusOK).decode(t, &rep)
		sent, holdout := rep.Data.Outcomes["sent"], rep.Data.Outcomes["holdout"]
		if rep.Data.State != "sent" || sent+holdout+rep.Data.Outcomes["no_consent"] != 17 || sent == 0 || holdout == 0 ||
			rep.Data.Gifts != sent || rep.Data.GiftsUsed != 0 {
			t.Fatalf("report %+v, want the 17 lapsed drawn, some reached, some held out, the rule given to each reached", rep.Data)
		}

		// Who was reached: the push messages' customers.
		reached := map[string]bool{}
		for deadline := time.Now().Add(10 * time.Second); len(reached) < sent; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d campaign.message events, %d recipients sent", len(reached), sent)
			}
			var p eventPage
			a.get(t, "/events?type=in|campaign.message&per_page=100").want(t, http.StatusOK).decode(t, &p)
			for _, ev := range p.Data {
				var m struct{ Customer struct{ ID string } }
				if err := json.Unmarshal(ev.Data, &m); err != nil {
					t.Fatal(err)
				}
				reached[m.Customer.ID] = true
			}
		}

		// Two days on, everyone spends 10.00: only those reached earn the bonus.
		a.moveClock(t, map[string]any{"advance": "P2D"})
		spend := func(who string) int64 {
			t.Helper()
			got := a.catTransact(t, who, map[string]any{"intent": "reward", "amount": 10})
			return int64(got["points"].(float64))
		}
		base := spend(outsider)
		if spend(refused) != base {
			t.Errorf("a member consent refused earned the campaign's rule")
		}
		for _, who := range lapsed {
			want := base
			if reached[who] {
				want += 30
			}
			if got := spend(who); got != want {
				t.Errorf("customer %s (reached %v) earned %d within the days, want %d", who, reached[who], got, want)
			}
		}
		a.get(t, "/campaigns/"+id+"/report").want(t, http.StatusOK).decode(t, &rep)
		if rep.Data.GiftsUsed != sent {
			t.Errorf("report: %d used the rule, want the %d reached (each earned by it once)", rep.Data.GiftsUsed, sent)
		}

		// Past the 7 days, nobody does.
		a.moveClock(t, map[string]any{"advance": "P5DT1H"})
		for _, who := range append(lapsed, outsider) {
			if got := spend(who); got != base {
				t.Errorf("customer %s (reached %v) earned %d after the days, want %d", who, reached[who], got, base)
			}
		}
	})
}
