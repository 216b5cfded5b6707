package loyalty_test

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestAutomationDescribeNamed: an automation reads as a sentence that
// names the level, punch card and offer it refers to, and numbers one
// whose name is not known.
func TestAutomationDescribeNamed(t *testing.T) {
	names := loyalty.AutomationNames{Levels: map[int64]string{3: "Gold"}, Cards: map[int64]string{5: "Ninth coffee free"},
		Offers: map[int64]string{7: "Free pastry"}}
	for _, c := range []struct {
		a    loyalty.Automation
		want string
	}{
		{loyalty.Automation{Trigger: loyalty.AutomationTrigger{Type: loyalty.TriggerNoVisit, Days: 60},
			Actions: []loyalty.AutomationAction{{Type: loyalty.ActionSend, Subject: "We miss you"}, {Type: loyalty.ActionGivePoints, Points: 50}}},
			"When a member has not visited for 60 days → send “We miss you” → give 50 points"},
		{loyalty.Automation{Trigger: loyalty.AutomationTrigger{Type: loyalty.TriggerTierReached, LevelID: 3},
			Actions: []loyalty.AutomationAction{{Type: loyalty.ActionCoupon, OfferID: 7}}},
			"When a member reaches tier level “Gold” → give a coupon of offer “Free pastry”"},
		{loyalty.Automation{Trigger: loyalty.AutomationTrigger{Type: loyalty.TriggerTierLost, LevelID: 3},
			Actions: []loyalty.AutomationAction{{Type: loyalty.ActionAddTag, Tag: "lapsed-gold"}}},
			"When a member loses tier level “Gold” → tag “lapsed-gold”"},
		{loyalty.Automation{Trigger: loyalty.AutomationTrigger{Type: loyalty.TriggerCardCompleted, CardID: 5},
			Actions: []loyalty.AutomationAction{{Type: loyalty.ActionCoupon, OfferID: 8}}},
			"When a member completes punch card “Ninth coffee free” → give a coupon of offer #8"},
	} {
		if got := c.a.DescribeNamed(names); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
