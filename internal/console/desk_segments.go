package console

import (
	"context"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Segments are the console's side of a business's saved filters over its
// customers: the list with each one's count, what the form's conditions
// choose among, the live count of a filter being edited, saving and
// deleting (audited as the API audits them), and the customers a segment
// selects. They are marketing: the owner's and the managers', not a
// cashier's. The filter's rules (what each condition selects, what it
// accepts) are the domain's SegmentService's.

// SegmentRow is a segment with the number of customers it selects now.
type SegmentRow struct {
	loyalty.Segment
	Count int
}

// SegmentChoices are what a segment's conditions choose among: the
// enabled tier program's levels, the branches, the offers that give
// coupons, the punch cards and the tags the customers carry.
type SegmentChoices struct {
	Tier       *loyalty.Tier // nil without an enabled program
	Branches   []loyalty.Branch
	Offers     []loyalty.Offer
	PunchCards []loyalty.PunchCard
	Tags       []string
}

// SegmentMembers is a page of the customers a segment selects.
type SegmentMembers struct {
	Segment   loyalty.Segment
	Customers []loyalty.Customer
	Levels    map[string]string // each customer's tier level name, when a tier program is enabled
	Total     int
	Page      int
	Pages     int
}

// MaxSegmentsListed bounds the segments the console's list shows, each
// counted as it is shown.
const MaxSegmentsListed = 100

// forSegments reads the actor's business for a segment's use case, and
// the services on its clock: "not in 60 days" counts back from the
// business's now, which a sandbox's clock may have moved.
func (d *CustomerDesk) forSegments(ctx context.Context, a loyalty.Actor) (loyalty.Business, loyalty.Services, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.Business{}, loyalty.Services{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return loyalty.Business{}, loyalty.Services{}, err
	}
	return b, d.on(b), nil
}

// Segments lists the business's segments, oldest first, each with its
// count now.
func (d *CustomerDesk) Segments(ctx context.Context, a loyalty.Actor) ([]SegmentRow, int, error) {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return nil, 0, err
	}
	list, total, err := svc.Segments.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: MaxSegmentsListed})
	if err != nil {
		return nil, 0, err
	}
	counts, err := svc.Segments.CountEach(ctx, b, list)
	if err != nil {
		return nil, 0, err
	}
	out := make([]SegmentRow, len(list))
	for i, seg := range list {
		out[i] = SegmentRow{Segment: seg, Count: counts[i]}
	}
	return out, total, nil
}

// Segment returns one segment of the business with its count now.
func (d *CustomerDesk) Segment(ctx context.Context, a loyalty.Actor, id string) (SegmentRow, error) {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return SegmentRow{}, err
	}
	seg, err := svc.Segments.Get(ctx, b, id)
	if err != nil {
		return SegmentRow{}, err
	}
	n, err := svc.Segments.Count(ctx, b, seg)
	return SegmentRow{Segment: seg, Count: n}, err
}

// SegmentChoices reads what the conditions of a segment's form choose
// among.
func (d *CustomerDesk) SegmentChoices(ctx context.Context, a loyalty.Actor) (SegmentChoices, error) {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return SegmentChoices{}, err
	}
	var out SegmentChoices
	tiers, err := svc.Tiers.List(ctx, b)
	if err != nil {
		return out, err
	}
	if t, ok := loyalty.EnabledTier(tiers); ok {
		out.Tier = &t
	}
	if out.Branches, err = svc.Branches.All(ctx, b); err != nil {
		return out, err
	}
	all := loyalty.ListQuery{Page: 1, PerPage: 100}
	offers, _, err := svc.Offers.List(ctx, b, all)
	if err != nil {
		return out, err
	}
	for _, o := range offers {
		if o.CouponOffer() && !o.Deleted {
			out.Offers = append(out.Offers, o)
		}
	}
	cards, _, err := svc.PunchCards.List(ctx, b, all)
	if err != nil {
		return out, err
	}
	for _, c := range cards {
		if !c.Deleted {
			out.PunchCards = append(out.PunchCards, c)
		}
	}
	out.Tags, err = svc.Customers.BusinessTags(ctx, b)
	return out, err
}

// CountSegment counts the customers a filter being edited selects now,
// saving nothing; a filter the domain refuses is EInvalid naming its
// conditions.
func (d *CustomerDesk) CountSegment(ctx context.Context, a loyalty.Actor, f loyalty.SegmentFilter) (int, error) {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return 0, err
	}
	return svc.Segments.Preview(ctx, b, f)
}

// SaveSegment creates a segment (id "") or replaces one's name and
// filter, audited as the program's change it is through the API.
func (d *CustomerDesk) SaveSegment(ctx context.Context, a loyalty.Actor, id, name string, f loyalty.SegmentFilter) (loyalty.Segment, error) {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return loyalty.Segment{}, err
	}
	action := loyalty.AuditProgramUpdated
	if id == "" {
		action = loyalty.AuditProgramCreated
	}
	var out loyalty.Segment
	err = loyalty.Audited(a, action, "Segment: "+name, nil, nil, func(r *loyalty.AuditRecord) error {
		var err error
		out, err = svc.AuditedBy(r).Segments.Save(ctx, b, id, loyalty.SegmentInput{Name: loyalty.Some(name), Filters: loyalty.Some(f)})
		return err
	})
	return out, err
}

// DeleteSegment removes a segment; its customers stay as they are.
func (d *CustomerDesk) DeleteSegment(ctx context.Context, a loyalty.Actor, id string) error {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return err
	}
	seg, err := svc.Segments.Get(ctx, b, id)
	if err != nil {
		return err
	}
	return loyalty.Audited(a, loyalty.AuditProgramDeleted, "Segment: "+seg.Name, nil, nil, func(r *loyalty.AuditRecord) error {
		return svc.AuditedBy(r).Segments.Delete(ctx, b, strconv.FormatInt(seg.ID, 10))
	})
}

// SegmentCustomers returns the page asked for (from 1) of the customers
// a segment selects now, SearchPageSize to a page, oldest first.
func (d *CustomerDesk) SegmentCustomers(ctx context.Context, a loyalty.Actor, id string, page int) (SegmentMembers, error) {
	b, svc, err := d.forSegments(ctx, a)
	if err != nil {
		return SegmentMembers{}, err
	}
	out := SegmentMembers{Page: max(page, 1), Levels: map[string]string{}}
	if out.Segment, err = svc.Segments.Get(ctx, b, id); err != nil {
		return out, err
	}
	q := loyalty.ListQuery{Page: out.Page, PerPage: SearchPageSize}
	if out.Customers, out.Total, err = svc.Segments.Customers(ctx, b, out.Segment, q); err != nil {
		return out, err
	}
	out.Pages = max((out.Total+SearchPageSize-1)/SearchPageSize, 1)
	tiers, err := svc.Tiers.List(ctx, b)
	if err != nil {
		return out, err
	}
	if t, ok := loyalty.EnabledTier(tiers); ok && len(out.Customers) > 0 {
		held, err := d.levels(ctx, b, t, out.Customers)
		if err != nil {
			return out, err
		}
		for i, c := range out.Customers {
			if held[i] >= 0 {
				out.Levels[c.ID] = t.Levels[held[i]].Name
			}
		}
	}
	return out, nil
}
