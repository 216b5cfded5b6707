package loyalty

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// The data of the events whose resource the API shows under another one
// (a coupon under its customer) or not at all (a referral): the resource's
// view with what names its place.

// idJSON names an object by its opaque id.
type idJSON struct {
	ID string `json:"id"`
}

// TierLevelJSON is a tier level as the API shows it (spec 2.3).
type TierLevelJSON struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	ReachSpend  Money  `json:"reach_spend"`
	ReachVisits int64  `json:"reach_visits"`
	ReachPoints int64  `json:"reach_points"`
}

// NewTierLevelJSON is l as the API shows it.
func NewTierLevelJSON(l TierLevel) TierLevelJSON {
	return TierLevelJSON{ID: l.ID, Name: l.Name, ReachSpend: l.ReachSpend, ReachVisits: l.ReachVisits, ReachPoints: l.ReachPoints}
}

// couponEventJSON is a coupon with the customer it was issued to.
type couponEventJSON struct {
	*CouponJSON
	Customer idJSON `json:"customer"`
}

func newCouponEventJSON(c Coupon) couponEventJSON {
	return couponEventJSON{CouponJSON: NewCouponJSON(c), Customer: idJSON{ID: c.CustomerID}}
}

// referralJSON is a paid referral: who referred whom under which program,
// and what each earned.
type referralJSON struct {
	ID                int64  `json:"id"`
	ReferralProgramID int64  `json:"referral_program_id"`
	Referrer          idJSON `json:"referrer"`
	Referee           idJSON `json:"referee"`
	RefereeEarns      int64  `json:"referee_earns"`
	RefererEarns      int64  `json:"referrer_earns"`
	CreatedAt         string `json:"created_at"`
}

func newReferralJSON(r Referral, p ReferralProgram) referralJSON {
	return referralJSON{ID: r.ID, ReferralProgramID: p.ID, Referrer: idJSON{ID: r.ReferrerID}, Referee: idJSON{ID: r.RefereeID},
		RefereeEarns: p.RefereeEarns, RefererEarns: p.RefererEarns, CreatedAt: FormatTime(r.CreatedAt)}
}

// customerChanges are the events of an update of a customer from before
// to after: customer.updated when what the API shows of it (address
// included) changed beyond enabled, and customer.enabled or
// customer.disabled when enabled did. An update that changed nothing has
// none.
func customerChanges(before, after Customer) ([]string, error) {
	var out []string
	shown := func(c Customer) ([]byte, error) {
		c.Enabled, c.UpdatedAt = false, time.Time{}
		return json.Marshal(NewCustomerJSON(c, false, map[string]bool{"address": true}))
	}
	b, err := shown(before)
	if err != nil {
		return nil, err
	}
	a, err := shown(after)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(a, b) {
		out = append(out, EventCustomerUpdated)
	}
	switch {
	case after.Enabled && !before.Enabled:
		out = append(out, EventCustomerEnabled)
	case !after.Enabled && before.Enabled:
		out = append(out, EventCustomerDisabled)
	}
	return out, nil
}

// recordUser records an event of a person, with the person as the user
// API shows them now, for each of the businesses the person is a
// customer of: each business learns of its own users only.
func recordUser(ctx context.Context, tx Tx, businessIDs []string, userID, typ string) error {
	p, err := tx.Person(ctx, userID)
	if err != nil {
		return err
	}
	for _, id := range businessIDs {
		member, err := tx.IsMember(ctx, userID, []string{id})
		if err != nil {
			return err
		}
		if !member {
			continue
		}
		if err := record(ctx, tx, id, typ, NewUserJSON(p)); err != nil {
			return err
		}
	}
	return nil
}
