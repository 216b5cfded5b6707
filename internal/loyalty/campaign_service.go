package loyalty

import (
	"context"
	"time"
)

// CampaignService keeps a business's campaigns.
type CampaignService struct {
	Store Store
}

// CampaignStore reads campaigns and their recipients.
type CampaignStore interface {
	// Campaigns pages a business's campaigns, oldest first.
	Campaigns(ctx context.Context, businessID string, q ListQuery) ([]Campaign, int, error)
	// Campaign returns one campaign of a business, or ENotFound.
	Campaign(ctx context.Context, businessID string, id int64) (Campaign, error)
	// ActiveCampaigns lists every business's campaigns in one of states,
	// oldest first.
	ActiveCampaigns(ctx context.Context, states []string) ([]Campaign, error)
	// PendingRecipients lists up to limit customers of a campaign whose
	// outcome is pending, in id order.
	PendingRecipients(ctx context.Context, campaignID int64, pending string, limit int) ([]string, error)
	// RecipientTally counts a campaign's recipients by outcome and
	// channel, and the messages the sender reported sent.
	// The coupons given that are in one of used count as gifts used.
	RecipientTally(ctx context.Context, campaignID int64, used []int) (RecipientTally, error)
	// RecipientActivity sums, per recipient of a campaign, the ledger's
	// visits, spend and points earned (entries with positive points) in
	// [from, to), leaving out the entries listed as the campaign's gifts.
	RecipientActivity(ctx context.Context, campaignID int64, from, to time.Time) ([]RecipientSums, error)
}

// CampaignTx writes campaigns and their recipients.
type CampaignTx interface {
	InsertCampaign(ctx context.Context, c *Campaign) error
	// UpdateCampaign writes every field of c.
	UpdateCampaign(ctx context.Context, c *Campaign) error
	DeleteCampaign(ctx context.Context, businessID string, id int64) error
	// SegmentInUse reports whether a campaign of the business goes to the
	// segment.
	SegmentInUse(ctx context.Context, businessID string, segmentID int64) (bool, error)
	// InsertRecipients records drawn recipients; one drawn already is
	// left as it is.
	InsertRecipients(ctx context.Context, rs []Recipient) error
	// RecipientFacts reads what reaching a customer needs: the active
	// customer (zero when none), the marketing consent in force, the tier
	// level last announced, and when any campaign of the business last
	// recorded the outcome reached for them.
	RecipientFacts(ctx context.Context, businessID, customerID, reached string) (RecipientFacts, error)
	// FinishRecipient records a pending recipient's outcome; false when it
	// was not pending any more (another run did it).
	FinishRecipient(ctx context.Context, r Recipient, pending string) (bool, error)
}

// RecipientTally is what happened to a campaign's recipients.
type RecipientTally struct {
	Outcomes  map[string]int // by outcome
	Channels  map[string]int // the recipients sent, by channel
	Delivered int            // messages the sender reported sent
	Gifts     int            // gifts given
	GiftsUsed int            // coupons given that were claimed
}

// RecipientSums is one recipient's ledger over a report's window.
type RecipientSums struct {
	Holdout bool
	Visits  int64
	Spend   Money
	Points  int64
}

// CampaignListSpec says how GET /campaigns is paged.
var CampaignListSpec = ListSpec{DefaultPerPage: 50}

func campaignNotFound() error { return Errorf(ENotFound, "Campaign not found.") }

// List pages the business's campaigns.
func (s *CampaignService) List(ctx context.Context, b Business, q ListQuery) ([]Campaign, int, error) {
	return s.Store.Campaigns(ctx, b.ID, q)
}

// Get returns one campaign of the business.
func (s *CampaignService) Get(ctx context.Context, b Business, id string) (Campaign, error) {
	cid, err := intID("campaign", id)
	if err != nil {
		return Campaign{}, err
	}
	c, err := s.Store.Campaign(ctx, b.ID, cid)
	return c, asNotFound(err, campaignNotFound)
}

// Save creates a campaign (id "") or changes a draft.
func (s *CampaignService) Save(ctx context.Context, b Business, id string, in CampaignInput) (Campaign, error) {
	c := Campaign{State: CampaignDraft}
	if id != "" {
		var err error
		if c, err = s.Get(ctx, b, id); err != nil {
			return c, err
		}
		if c.State != CampaignDraft {
			return c, Errorf(EConflict, "The campaign is %s: only a draft can be changed.", c.State)
		}
	}
	segmentOK := func(id int64) bool {
		seg, err := s.Store.Segment(ctx, b.ID, id)
		return err == nil && seg.ID == id
	}
	before := c.GiftRuleID
	checks := campaignChecks{segmentOK: segmentOK, offerBad: couponOffer(ctx, s.Store, b), ruleBad: campaignRule(ctx, s.Store, b, c.ID)}
	if err := in.apply(&c, checks); err != nil {
		return c, err
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		c.BusinessID, c.UpdatedAt = b.ID, tx.Now()
		var err error
		if c.ID == 0 {
			c.CreatedAt = c.UpdatedAt
			err = tx.InsertCampaign(ctx, &c)
		} else {
			err = tx.UpdateCampaign(ctx, &c)
		}
		if err != nil {
			return err
		}
		return giveRule(ctx, tx, b, before, c)
	})
	return c, err
}

// Delete removes a campaign that has not begun sending.
func (s *CampaignService) Delete(ctx context.Context, b Business, id string) error {
	c, err := s.Get(ctx, b, id)
	if err != nil {
		return err
	}
	if c.State != CampaignDraft && c.State != CampaignScheduled {
		return Errorf(EConflict, "The campaign is %s: it can no longer be deleted.", c.State)
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		if c.GiftRuleID != 0 {
			if err := releaseRule(ctx, tx, b, c.GiftRuleID, c.ID); err != nil {
				return err
			}
		}
		return asNotFound(tx.DeleteCampaign(ctx, b.ID, c.ID), campaignNotFound)
	})
}

// Send schedules a draft to go at sendAt (now when zero or past).
func (s *CampaignService) Send(ctx context.Context, b Business, id string, sendAt time.Time) (Campaign, error) {
	c, err := s.Get(ctx, b, id)
	if err != nil {
		return c, err
	}
	if c.State != CampaignDraft {
		return c, Errorf(EConflict, "The campaign is %s already.", c.State)
	}
	if err := c.ready(); err != nil {
		return c, err
	}
	if seg, err := s.Store.Segment(ctx, b.ID, c.SegmentID); err != nil || seg.ID != c.SegmentID {
		return c, Invalid("segment_id", "The campaign's segment was deleted: choose another.")
	}
	if c.GiftRuleID != 0 {
		if r, err := s.Store.EarningRule(ctx, b.ID, c.GiftRuleID); err != nil || r.Deleted || r.Conditions.CampaignID != c.ID {
			return c, Invalid("gift.earning_rule_id", "The campaign's earning rule was deleted, or is another campaign's gift now: choose another gift.")
		}
	}
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		if sendAt.Before(now) {
			sendAt = now
		}
		c.State, c.SendAt, c.UpdatedAt = CampaignScheduled, sendAt, now
		return tx.UpdateCampaign(ctx, &c)
	})
	return c, err
}

// couponOffer says why an offer cannot be given as a coupon gift ("" when
// it can): it must be one of the business's coupon offers, not deleted.
func couponOffer(ctx context.Context, st Store, b Business) func(int64) string {
	return func(id int64) string {
		o, err := st.Offer(ctx, b.ID, id)
		switch {
		case err != nil || o.Deleted:
			return "The offer_id must be the id of one of the business's offers."
		case o.TypeID == OfferPointsMultiplier || o.TypeID == OfferBonusPoints:
			return "A points offer applies to rewards by itself; give a coupon offer."
		}
		return ""
	}
}
