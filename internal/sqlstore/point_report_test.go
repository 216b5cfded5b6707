package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestPointFlowsSumByTheGivenCodes: the store adds the entries up by the
// code lists it is given and by nothing of its own: over rewards,
// redemptions and adjustments in three days, its sums before, within and
// across the periods equal the sum of PointFlowCodes.Flows over the same
// entries, for the report's own codes and for lists that count the
// redemptions and downward adjustments otherwise.
func TestPointFlowsSumByTheGivenCodes(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		c := createCustomer(t, db, biz.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("flows@x.example")})
		l := newTierLedger(t, db, biz.BusinessID)
		day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		adjust := func(points int64) loyalty.TransactionInput {
			return loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentAdjust), Points: loyalty.Some(points)}
		}
		redeem := loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentRedeem), Points: loyalty.Some(int64(7))}
		refund := loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentRefund), Points: loyalty.Some(int64(2))}
		for d := range 3 {
			at := day.AddDate(0, 0, d)
			l.at(at.Add(1*time.Hour), c.ID, tierReward(5000))
			l.at(at.Add(2*time.Hour), c.ID, redeem)
			l.at(at.Add(3*time.Hour), c.ID, adjust(-3))
			l.at(at.Add(4*time.Hour), c.ID, adjust(11))
			l.at(at.Add(5*time.Hour), c.ID, refund)
		}
		rows, err := db.SQL().QueryContext(ctx, `SELECT type_code, points, pending_points, created_at FROM transactions WHERE business_id = $1`,
			biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		type entry struct {
			code            int
			points, pending int64
			at              time.Time
		}
		var entries []entry
		for rows.Next() {
			var e entry
			if err := rows.Scan(&e.code, &e.points, &e.pending, &e.at); err != nil {
				t.Fatal(err)
			}
			entries = append(entries, e)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		// The first day before the periods, the second and third each one.
		bounds := []time.Time{day.AddDate(0, 0, 1), day.AddDate(0, 0, 2), day.AddDate(0, 0, 3)}
		for name, codes := range map[string]loyalty.PointFlowCodes{
			"the report's": loyalty.ReportFlowCodes(),
			"redemptions as moves and expiries, adjustments down as activations": {
				Moves: []int{loyalty.TypeCodeRedeem}, Expired: []int{loyalty.TypeCodeRedeem}, Activated: []int{loyalty.TypeCodeAdjustDown}},
			"refunds as the reversals": {Reversals: []int{loyalty.TypeCodeRefundRedeemed}},
			"none":                     {},
		} {
			var wantOpening loyalty.PointFlows
			wantPer := make([]loyalty.PointFlows, len(bounds)-1)
			for _, e := range entries {
				f := codes.Flows(e.code, e.points, e.pending)
				switch {
				case e.at.Before(bounds[0]):
					wantOpening.Active += f.Active
					wantOpening.Pending += f.Pending
				case e.at.Before(bounds[1]):
					wantPer[0] = addFlows(wantPer[0], f)
				default:
					wantPer[1] = addFlows(wantPer[1], f)
				}
			}
			opening, per, err := db.PointFlows(ctx, biz.BusinessID, "", bounds, codes)
			if err != nil {
				t.Fatal(err)
			}
			if opening != wantOpening || len(per) != 2 || per[0] != wantPer[0] || per[1] != wantPer[1] {
				t.Errorf("%s codes: opening %+v, periods %+v; want %+v, %+v", name, opening, per, wantOpening, wantPer)
			}
		}
	})
}

// addFlows adds the flows of b to a.
func addFlows(a, b loyalty.PointFlows) loyalty.PointFlows {
	return loyalty.PointFlows{Issued: a.Issued + b.Issued, Activated: a.Activated + b.Activated, Spent: a.Spent + b.Spent,
		Reversed: a.Reversed + b.Reversed, Expired: a.Expired + b.Expired, Active: a.Active + b.Active, Pending: a.Pending + b.Pending}
}
