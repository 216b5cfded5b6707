package loyalty

import (
	"context"
	"strings"
	"time"
)

// SegmentService keeps a business's segments and says who is in them.
type SegmentService struct {
	Store Store
}

// SegmentStore reads segments and the customers a criteria selects.
type SegmentStore interface {
	// Segments pages a business's segments, oldest first.
	Segments(ctx context.Context, businessID string, q ListQuery) ([]Segment, int, error)
	// Segment returns one segment of a business, or ENotFound.
	Segment(ctx context.Context, businessID string, id int64) (Segment, error)
	// CountCustomers counts the active customers of a business c selects.
	CountCustomers(ctx context.Context, businessID string, c CustomerCriteria) (int, error)
	// CountCustomersEach counts the active customers of a business each
	// of cs selects, in one pass over them.
	CountCustomersEach(ctx context.Context, businessID string, cs []CustomerCriteria) ([]int, error)
	// CustomersWhere pages the active customers of a business c selects,
	// oldest first (as GET /customers), with the total that match; q's
	// filters hold too.
	CustomersWhere(ctx context.Context, businessID string, c CustomerCriteria, q ListQuery) ([]Customer, int, error)
	// Candidates lists up to limit active customers of a business c
	// selects with an id after after, in id order: the one walk over a
	// segment's members that a campaign's draw and an automation's scan
	// take, a batch at a time.
	Candidates(ctx context.Context, businessID string, c CustomerCriteria, after string, limit int) ([]Candidate, error)
}

// Candidate is a customer a criteria selected (SegmentStore.Candidates),
// with what keys an automation's occurrence: the last visit, and what the
// criteria asked to carry (expiry, card). A campaign's draw reads its id.
type Candidate struct {
	CustomerID  string
	LastVisitAt time.Time
	NextExpiry  time.Time // with an expiring criterion
	Completed   int64     // with a punch criterion
	// TierChangedAt is, with a tier criterion, when the level announced
	// last was announced (zero: never).
	TierChangedAt time.Time
}

// SegmentTx writes segments and customers' tags.
type SegmentTx interface {
	InsertSegment(ctx context.Context, s *Segment) error
	UpdateSegment(ctx context.Context, s *Segment) error
	DeleteSegment(ctx context.Context, businessID string, id int64) error
}

// SegmentListSpec says how GET /segments is paged.
var SegmentListSpec = ListSpec{DefaultPerPage: 50}

func segmentNotFound() error { return Errorf(ENotFound, "Segment not found.") }

// List pages the business's segments.
func (s *SegmentService) List(ctx context.Context, b Business, q ListQuery) ([]Segment, int, error) {
	return s.Store.Segments(ctx, b.ID, q)
}

// Get returns one segment of the business.
func (s *SegmentService) Get(ctx context.Context, b Business, id string) (Segment, error) {
	sid, err := intID("segment", id)
	if err != nil {
		return Segment{}, err
	}
	seg, err := s.Store.Segment(ctx, b.ID, sid)
	return seg, asNotFound(err, segmentNotFound)
}

// Save creates a segment (id "") or replaces one's name and filter. An
// update may leave out the name or the filter, keeping it.
func (s *SegmentService) Save(ctx context.Context, b Business, id string, in SegmentInput) (Segment, error) {
	var seg Segment
	if id != "" {
		var err error
		if seg, err = s.Get(ctx, b, id); err != nil {
			return seg, err
		}
	}
	v := Validation{}
	if in.Name.Set || id == "" {
		name, _ := in.Name.Value()
		switch name = strings.TrimSpace(name); {
		case name == "":
			v.Add("name", "The name field is required.")
		case len([]rune(name)) > maxSegmentName:
			v.Add("name", "The name may not be greater than "+itoa(maxSegmentName)+" characters.")
		default:
			seg.Name = name
		}
	}
	if in.Filters.Null {
		v.Add("filters", "The filters must be an object; {} selects every customer.")
	} else if f, ok := in.Filters.Value(); ok {
		facts, err := s.facts(ctx, b, f)
		if err != nil {
			return seg, err
		}
		f.check(v, facts)
		seg.Filter = f
	}
	if err := v.Err(); err != nil {
		return seg, err
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		seg.BusinessID, seg.UpdatedAt = b.ID, tx.Now()
		if seg.ID == 0 {
			seg.CreatedAt = seg.UpdatedAt
			return tx.InsertSegment(ctx, &seg)
		}
		return tx.UpdateSegment(ctx, &seg)
	})
	return seg, err
}

// Delete removes a segment.
func (s *SegmentService) Delete(ctx context.Context, b Business, id string) error {
	seg, err := s.Get(ctx, b, id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		if used, err := tx.SegmentInUse(ctx, b.ID, seg.ID); err != nil {
			return err
		} else if used {
			return Errorf(EConflict, "A campaign goes to this segment: delete or change the campaign first.")
		}
		return asNotFound(tx.DeleteSegment(ctx, b.ID, seg.ID), segmentNotFound)
	})
}

// CountEach counts the customers each of segs selects now, in one pass
// over the business's customers (a list of segments with their counts:
// one count at a time costs a pass each).
func (s *SegmentService) CountEach(ctx context.Context, b Business, segs []Segment) ([]int, error) {
	cs := make([]CustomerCriteria, len(segs))
	for i, seg := range segs {
		c, err := s.criteria(ctx, b, seg.Filter)
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	return s.Store.CountCustomersEach(ctx, b.ID, cs)
}

// Count counts the customers a segment selects now.
func (s *SegmentService) Count(ctx context.Context, b Business, seg Segment) (int, error) {
	c, err := s.criteria(ctx, b, seg.Filter)
	if err != nil {
		return 0, err
	}
	return s.Store.CountCustomers(ctx, b.ID, c)
}

// Preview checks a filter that is not saved (a segment being edited) and
// counts the customers it selects now.
func (s *SegmentService) Preview(ctx context.Context, b Business, f SegmentFilter) (int, error) {
	facts, err := s.facts(ctx, b, f)
	if err != nil {
		return 0, err
	}
	v := Validation{}
	f.check(v, facts)
	if err := v.Err(); err != nil {
		return 0, err
	}
	return s.Store.CountCustomers(ctx, b.ID, f.criteria(s.Store.Now(), facts))
}

// Customers pages the customers a segment selects now, with q's
// filters of GET /customers too.
func (s *SegmentService) Customers(ctx context.Context, b Business, seg Segment, q ListQuery) ([]Customer, int, error) {
	c, err := s.criteria(ctx, b, seg.Filter)
	if err != nil {
		return nil, 0, err
	}
	return s.Store.CustomersWhere(ctx, b.ID, c, q)
}

// criteria resolves a saved filter now. A filter saved before the tier
// program or the branches changed may name levels or branches that are
// gone: they select nobody.
func (s *SegmentService) criteria(ctx context.Context, b Business, f SegmentFilter) (CustomerCriteria, error) {
	facts, err := s.facts(ctx, b, f)
	if err != nil {
		return CustomerCriteria{}, err
	}
	return f.criteria(s.Store.Now(), facts), nil
}

// facts reads what checking f needs, and only that.
func (s *SegmentService) facts(ctx context.Context, b Business, f SegmentFilter) (segmentFacts, error) {
	var facts segmentFacts
	if len(f.TierLevelIDs) > 0 {
		tiers, err := s.Store.Tiers(ctx, b.ID)
		if err != nil {
			return facts, err
		}
		if t, ok := EnabledTier(tiers); ok {
			facts.tier = &t
		}
	}
	if len(f.LastVisitBranchIDs) > 0 {
		branches, err := s.Store.Branches(ctx, b.ID)
		if err != nil {
			return facts, err
		}
		facts.branches = map[string]bool{}
		for _, br := range branches {
			facts.branches[br.ID] = true
			if br.IsMain {
				facts.main = br.ID
			}
		}
	}
	if f.PunchCardID != nil {
		card, err := s.Store.PunchCard(ctx, b.ID, *f.PunchCardID)
		switch {
		case err == nil && !card.Deleted:
			facts.cards = map[int64]bool{card.ID: true}
		case err != nil && ErrorCode(err) != ENotFound:
			return facts, err
		}
	}
	if f.CouponOfferID != nil {
		o, err := s.Store.Offer(ctx, b.ID, *f.CouponOfferID)
		switch {
		case err == nil:
			facts.offers = map[int64]bool{o.ID: true}
		case ErrorCode(err) != ENotFound:
			return facts, err
		}
	}
	return facts, nil
}
