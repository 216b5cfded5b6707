package sqlstore

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// foldSum adds folds up: the figures per day and branch, and each
// visitor's last visit day.
type foldSum struct {
	days   map[dayBranch]*loyalty.Figures
	order  []dayBranch
	visits map[string]string
}

type dayBranch struct{ day, branch string }

// add adds folds of a business, leaving out the visits known stored
// (known may be nil).
func (s *foldSum) add(businessID string, folds []loyalty.DayFold, known *visitCache) {
	if s.days == nil {
		s.days, s.visits = map[dayBranch]*loyalty.Figures{}, map[string]string{}
	}
	for _, f := range folds {
		k := dayBranch{f.Day, f.BranchID}
		if s.days[k] == nil {
			s.days[k] = &loyalty.Figures{}
			s.order = append(s.order, k)
		}
		s.days[k].Add(f.Figures)
		if f.Visitor != "" && f.Day > s.visits[f.Visitor] && (known == nil || !known.known(businessID, f.Visitor, f.Day)) {
			s.visits[f.Visitor] = f.Day
		}
	}
}

// write adds the sums to the business's rollups in t.
func (s *foldSum) write(ctx context.Context, t *tx, businessID string) error {
	for _, k := range s.order {
		f := s.days[k]
		if _, err := t.stmt(ctx, foldDay).ExecContext(ctx, businessID, k.branch, k.day, f.MembersNew, f.Visits, int64(f.Revenue), f.PointsIssued, f.PointsRedeemed, f.ReferralsPaid); err != nil {
			return err
		}
	}
	customers := slices.Sorted(maps.Keys(s.visits))
	if !t.sqlite {
		// One statement for the visitors: a round trip each was most of
		// what folding cost PostgreSQL.
		daysOf := make([]string, len(customers))
		for i, c := range customers {
			daysOf[i] = s.visits[c]
		}
		_, err := t.ExecContext(ctx, `INSERT INTO dashboard_members (business_id, customer_id, last_visit_day)
			SELECT $1, v.customer, v.day FROM unnest($2::text[], $3::text[]) AS v(customer, day)
			ON CONFLICT (business_id, customer_id) DO UPDATE SET last_visit_day = excluded.last_visit_day
			WHERE dashboard_members.last_visit_day < excluded.last_visit_day`, businessID, customers, daysOf)
		return err
	}
	for _, customer := range customers {
		if _, err := t.stmt(ctx, foldVisit).ExecContext(ctx, businessID, customer, s.visits[customer]); err != nil {
			return err
		}
	}
	return nil
}

// foldDay adds figures to a day row; foldVisit moves a visitor's last
// visit day forward (SQLite; PostgreSQL moves a page's in one statement).
// Prepared on SQLite's writer (txStatements): a page of events runs them
// hundreds of times.
const (
	foldDay = `INSERT INTO dashboard_days (business_id, branch_id, day, members_new, visits, revenue,
			points_issued, points_redeemed, referrals_paid) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (business_id, day, branch_id) DO UPDATE SET members_new = dashboard_days.members_new + excluded.members_new,
			visits = dashboard_days.visits + excluded.visits, revenue = dashboard_days.revenue + excluded.revenue,
			points_issued = dashboard_days.points_issued + excluded.points_issued,
			points_redeemed = dashboard_days.points_redeemed + excluded.points_redeemed,
			referrals_paid = dashboard_days.referrals_paid + excluded.referrals_paid`
	foldVisit = `INSERT INTO dashboard_members (business_id, customer_id, last_visit_day) VALUES ($1, $2, $3)
		ON CONFLICT (business_id, customer_id) DO UPDATE SET last_visit_day = excluded.last_visit_day
		WHERE dashboard_members.last_visit_day < excluded.last_visit_day`
)

// visitCache remembers, per business and customer, a last visit day this
// process knows dashboard_members holds (it wrote it, and the transaction
// committed). The day there only ever moves forward, so a fold whose
// visit is on or before the day remembered has nothing to write: most
// visits are a customer's second or later of the day, and skipping their
// statements is most of what folding a page costs SQLite's writer.
type visitCache struct {
	mu   sync.Mutex
	days map[visitKey]string
}

type visitKey struct{ business, customer string }

// maxVisitDays bounds the cache; past it, it starts over.
const maxVisitDays = 200_000

// known reports whether the customer's stored last visit day is day or later.
func (c *visitCache) known(business, customer, day string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.days[visitKey{business, customer}] >= day
}

// record remembers the days a committed fold wrote.
func (c *visitCache) record(business string, visits map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.days == nil || len(c.days)+len(visits) > maxVisitDays {
		c.days = make(map[visitKey]string, len(visits))
	}
	for customer, day := range visits {
		if k := (visitKey{business, customer}); day > c.days[k] {
			c.days[k] = day
		}
	}
}
