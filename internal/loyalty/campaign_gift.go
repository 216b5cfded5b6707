package loyalty

import (
	"context"
	"strconv"
)

// A campaign's gift may be an earning rule for its recipients only: the
// rule's conditions then name the campaign and the days (CampaignID,
// CampaignDays), so the rule says itself why it applies to only some,
// and the earning engine decides it from the customer's facts (when the
// campaign reached them) on every road a reward takes. The campaign sets
// and clears those conditions; the earning rules API shows them and
// keeps them.

// campaignRule says why an earning rule cannot be campaign's gift ("" when
// it can): it must be a live rule of the business, not the gift of
// another campaign.
func campaignRule(ctx context.Context, st Store, b Business, campaignID int64) func(int64) string {
	return func(id int64) string {
		r, err := st.EarningRule(ctx, b.ID, id)
		if err != nil || r.Deleted {
			return "The earning_rule_id must be the id of one of the business's earning rules."
		}
		return ruleTaken(r, campaignID)
	}
}

// ruleTaken says why r cannot be the gift of the campaign campaignID:
// it is another campaign's ("" when it is not).
func ruleTaken(r EarningRule, campaignID int64) string {
	if other := r.Conditions.CampaignID; other != 0 && other != campaignID {
		return "The earning rule is the gift of campaign " + strconv.FormatInt(other, 10) + " already; give another rule."
	}
	return ""
}

// giveRule makes a saved campaign's gift rule its own, in tx: kept to the
// recipients it reaches for its days, and turned on when it becomes the
// gift (a rule made for the campaign may wait disabled until then). The
// rule it gave before, if another, is released.
func giveRule(ctx context.Context, tx Tx, b Business, before int64, c Campaign) error {
	if before != 0 && before != c.GiftRuleID {
		if err := releaseRule(ctx, tx, b, before, c.ID); err != nil {
			return err
		}
	}
	if c.GiftRuleID == 0 {
		return nil
	}
	r, err := liveEarningRule(ctx, tx, b.ID, c.GiftRuleID)
	switch {
	case ErrorCode(err) == ENotFound && before == c.GiftRuleID:
		return nil // deleted since it became the gift: the draft keeps it, and is not sent (Send)
	case ErrorCode(err) == ENotFound:
		return Invalid("gift.earning_rule_id", "The earning_rule_id must be the id of one of the business's earning rules.")
	case err != nil:
		return err
	}
	if why := ruleTaken(r, c.ID); why != "" {
		return Invalid("gift.earning_rule_id", why)
	}
	if r.Conditions.CampaignID == c.ID && r.Conditions.CampaignDays == c.GiftRuleDays {
		return nil
	}
	if r.Conditions.CampaignID == 0 {
		r.Enabled = true
	}
	r.Conditions.CampaignID, r.Conditions.CampaignDays, r.UpdatedAt = c.ID, c.GiftRuleDays, tx.Now()
	return tx.UpdateEarningRule(ctx, &r)
}

// releaseRule frees a rule that was the gift of the campaign campaignID
// and no longer is (the draft's gift changed, or it was deleted): it no
// longer names the campaign, and it is turned off, since applying to
// every customer is not what it was made for. Turning it on again is the
// business's choice.
func releaseRule(ctx context.Context, tx Tx, b Business, ruleID, campaignID int64) error {
	r, err := tx.EarningRule(ctx, b.ID, ruleID)
	if ErrorCode(err) == ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	if r.Conditions.CampaignID != campaignID {
		return nil
	}
	r.Conditions.CampaignID, r.Conditions.CampaignDays = 0, 0
	r.Enabled, r.UpdatedAt = false, tx.Now()
	return tx.UpdateEarningRule(ctx, &r)
}
