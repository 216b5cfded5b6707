package console

import (
	"context"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Campaigns are the console's side of a business's campaigns: the list
// with what each did, the form's choices (the segments with their counts
// now, the coupon offers a gift may be), saving and deleting a draft,
// sending or scheduling it, its preview and a test to oneself, and its
// report. They are marketing: the owner's and the managers', not a
// cashier's. What a campaign accepts, whom it reaches and how a message
// is rendered are the domain's (CampaignService, CampaignRunner).

// MarketingDesk is the console's campaigns and automations.
type MarketingDesk struct {
	Services loyalty.Services
	Store    loyalty.Store
	// Messages renders previews and sends tests as campaigns' messages
	// are rendered and sent; nil: no preview.
	Messages *loyalty.CampaignRunner
}

// CampaignRow is a campaign as the list shows it: its segment's name and
// what happened to its recipients.
type CampaignRow struct {
	loyalty.Campaign
	Segment string // "" when the segment was deleted
	Tally   loyalty.RecipientTally
}

// CampaignChoices are what a campaign's form chooses among: the
// segments with their counts now, and the offers whose coupons may be
// given.
type CampaignChoices struct {
	Segments []SegmentRow
	Offers   []loyalty.Offer
}

// CampaignsPageSize is how many campaigns a page of the list shows.
const CampaignsPageSize = 20

// forMarketing reads the actor's business for a campaign's or an
// automation's use case, and the services on its clock (a sandbox's may
// run ahead).
func (d *MarketingDesk) forMarketing(ctx context.Context, a loyalty.Actor) (loyalty.Business, loyalty.Services, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.Business{}, loyalty.Services{}, err
	}
	b, err := d.Store.Business(ctx, a.BusinessID)
	if err != nil {
		return b, loyalty.Services{}, err
	}
	return b, d.Services.ClockedBy(b.ClockOffset), nil
}

// Campaigns lists a page (from 1) of the business's campaigns, newest
// first, each with its segment and tally.
func (d *MarketingDesk) Campaigns(ctx context.Context, a loyalty.Actor, page int) ([]CampaignRow, int, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return nil, 0, err
	}
	// The domain pages oldest first: the newest are read from the end.
	_, total, err := svc.Campaigns.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 1})
	if err != nil {
		return nil, 0, err
	}
	page = max(page, 1)
	last := total - (page-1)*CampaignsPageSize
	if last <= 0 {
		return nil, total, nil
	}
	first := max(last-CampaignsPageSize, 0)
	// [first, last) of the oldest-first order spans two of its pages at
	// most.
	var list []loyalty.Campaign
	for p := first/CampaignsPageSize + 1; (p-1)*CampaignsPageSize < last; p++ {
		got, _, err := svc.Campaigns.List(ctx, b, loyalty.ListQuery{Page: p, PerPage: CampaignsPageSize})
		if err != nil {
			return nil, 0, err
		}
		for i, c := range got {
			if at := (p-1)*CampaignsPageSize + i; at >= first && at < last {
				list = append(list, c)
			}
		}
	}
	names, err := d.segmentNames(ctx, b, svc)
	if err != nil {
		return nil, 0, err
	}
	out := make([]CampaignRow, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		row := CampaignRow{Campaign: list[i], Segment: names[list[i].SegmentID]}
		if row.State != loyalty.CampaignDraft && row.State != loyalty.CampaignScheduled {
			if row.Tally, err = svc.Campaigns.Tally(ctx, b, row.Campaign); err != nil {
				return nil, 0, err
			}
		}
		out = append(out, row)
	}
	return out, total, nil
}

// segmentNames are the business's segments' names by id.
func (d *MarketingDesk) segmentNames(ctx context.Context, b loyalty.Business, svc loyalty.Services) (map[int64]string, error) {
	list, _, err := svc.Segments.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: MaxSegmentsListed})
	out := map[int64]string{}
	for _, s := range list {
		out[s.ID] = s.Name
	}
	return out, err
}

// Campaign returns one campaign of the business with its segment's name.
func (d *MarketingDesk) Campaign(ctx context.Context, a loyalty.Actor, id string) (CampaignRow, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return CampaignRow{}, err
	}
	c, err := svc.Campaigns.Get(ctx, b, id)
	if err != nil {
		return CampaignRow{}, err
	}
	row := CampaignRow{Campaign: c}
	if seg, err := svc.Segments.Get(ctx, b, strconv.FormatInt(c.SegmentID, 10)); err == nil {
		row.Segment = seg.Name
	} else if loyalty.ErrorCode(err) != loyalty.ENotFound {
		return row, err
	}
	return row, nil
}

// CampaignChoices reads what a campaign's form chooses among.
func (d *MarketingDesk) CampaignChoices(ctx context.Context, a loyalty.Actor) (CampaignChoices, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return CampaignChoices{}, err
	}
	var out CampaignChoices
	segs, _, err := svc.Segments.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: MaxSegmentsListed})
	if err != nil {
		return out, err
	}
	counts, err := svc.Segments.CountEach(ctx, b, segs)
	if err != nil {
		return out, err
	}
	for i, s := range segs {
		out.Segments = append(out.Segments, SegmentRow{Segment: s, Count: counts[i]})
	}
	out.Offers, err = couponOffers(ctx, b, svc)
	return out, err
}

// couponOffers are the business's offers whose coupons may be given.
func couponOffers(ctx context.Context, b loyalty.Business, svc loyalty.Services) ([]loyalty.Offer, error) {
	offers, _, err := svc.Offers.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
	var out []loyalty.Offer
	for _, o := range offers {
		if o.CouponOffer() && !o.Deleted {
			out = append(out, o)
		}
	}
	return out, err
}

// SaveCampaign creates a campaign (id "") or changes a draft, audited as
// the program's change it is through the API.
func (d *MarketingDesk) SaveCampaign(ctx context.Context, a loyalty.Actor, id string, in loyalty.CampaignInput) (loyalty.Campaign, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return loyalty.Campaign{}, err
	}
	action := loyalty.AuditProgramUpdated
	if id == "" {
		action = loyalty.AuditProgramCreated
	}
	name, _ := in.Name.Value()
	var out loyalty.Campaign
	err = loyalty.Audited(a, action, "Campaign: "+name, nil, nil, func(r *loyalty.AuditRecord) error {
		var err error
		out, err = svc.AuditedBy(r).Campaigns.Save(ctx, b, id, in)
		return err
	})
	return out, err
}

// DeleteCampaign deletes a campaign that has not begun sending.
func (d *MarketingDesk) DeleteCampaign(ctx context.Context, a loyalty.Actor, id string) error {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return err
	}
	c, err := svc.Campaigns.Get(ctx, b, id)
	if err != nil {
		return err
	}
	return loyalty.Audited(a, loyalty.AuditProgramDeleted, "Campaign: "+c.Name, nil, nil, func(r *loyalty.AuditRecord) error {
		return svc.AuditedBy(r).Campaigns.Delete(ctx, b, id)
	})
}

// SendCampaign sends a draft now (at zero) or schedules it for at.
func (d *MarketingDesk) SendCampaign(ctx context.Context, a loyalty.Actor, id string, at time.Time) (loyalty.Campaign, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return loyalty.Campaign{}, err
	}
	c, err := svc.Campaigns.Get(ctx, b, id)
	if err != nil {
		return c, err
	}
	after := map[string]string{"state": loyalty.CampaignScheduled}
	if !at.IsZero() {
		after["send_at"] = loyalty.FormatTime(at)
	}
	err = loyalty.Audited(a, loyalty.AuditProgramUpdated, "Campaign: "+c.Name, map[string]string{"state": c.State}, after,
		func(r *loyalty.AuditRecord) error {
			var err error
			c, err = svc.AuditedBy(r).Campaigns.Send(ctx, b, id, at)
			return err
		})
	return c, err
}

// PreviewCampaign renders a campaign's message as a recipient sees it; c
// may be a form being edited, not saved.
func (d *MarketingDesk) PreviewCampaign(ctx context.Context, a loyalty.Actor, c loyalty.Campaign) (loyalty.CampaignPreview, error) {
	b, _, err := d.forMarketing(ctx, a)
	if err != nil || d.Messages == nil {
		return loyalty.CampaignPreview{}, err
	}
	return d.Messages.Preview(ctx, b, c)
}

// TestCampaign sends a saved campaign's e-mail to the actor's own
// address, and nobody else.
func (d *MarketingDesk) TestCampaign(ctx context.Context, a loyalty.Actor, id string) (loyalty.Message, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return loyalty.Message{}, err
	}
	if d.Messages == nil {
		return loyalty.Message{}, loyalty.Errorf(loyalty.ENotMet, "Messages cannot be sent from this server.")
	}
	c, err := svc.Campaigns.Get(ctx, b, id)
	if err != nil {
		return loyalty.Message{}, err
	}
	return d.Messages.SendTest(ctx, b, c, a.Email)
}

// CampaignResults is a campaign's report with what the page names: its
// segment and its gift's offer.
type CampaignResults struct {
	loyalty.CampaignReport
	Segment string // "" when deleted
	Offer   string // the gift coupon's offer, "" for none
}

// CampaignReport reports what a campaign did.
func (d *MarketingDesk) CampaignReport(ctx context.Context, a loyalty.Actor, id string) (CampaignResults, error) {
	row, err := d.Campaign(ctx, a, id)
	if err != nil {
		return CampaignResults{}, err
	}
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return CampaignResults{}, err
	}
	out := CampaignResults{Segment: row.Segment}
	if out.CampaignReport, err = svc.Campaigns.Report(ctx, b, id); err != nil {
		return out, err
	}
	if row.GiftOfferID != 0 {
		if o, err := svc.Offers.Get(ctx, b, strconv.FormatInt(row.GiftOfferID, 10)); err == nil {
			out.Offer = o.Title
		}
	}
	return out, nil
}
