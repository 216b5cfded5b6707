package wallet

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Rewards returns the catalog items of b open to the member now: the
// ones the wallet offers to redeem.
func (d *Desk) Rewards(ctx context.Context, b Business, memberID string, m loyalty.Membership) ([]loyalty.Reward, error) {
	_, catalog, err := d.on(b).Users.Rewards(ctx, memberID, []loyalty.Membership{m})
	return catalog, err
}

// Reward returns one catalog item of b open to the member, by the id in
// a page's path; any other is ENotFound.
func (d *Desk) Reward(ctx context.Context, b Business, memberID string, m loyalty.Membership, id string) (loyalty.Reward, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return loyalty.Reward{}, loyalty.Errorf(loyalty.ENotFound, "Reward not found.")
	}
	_, list, err := d.on(b).Users.Rewards(ctx, memberID, []loyalty.Membership{m})
	if err != nil {
		return loyalty.Reward{}, err
	}
	i := slices.IndexFunc(list, func(r loyalty.Reward) bool { return r.ID == n })
	if i < 0 {
		return loyalty.Reward{}, loyalty.Errorf(loyalty.ENotFound, "Reward not found.")
	}
	return list[i], nil
}

// Redeem spends the member's points on a catalog item of b and returns
// the voucher the counter hands it over for (VoucherService.Redeem).
func (d *Desk) Redeem(ctx context.Context, b Business, memberID string, rewardID int64) (loyalty.Redemption, error) {
	return d.on(b).Vouchers.Redeem(ctx, b.Business, memberID, loyalty.MemberRedemptionInput{RewardID: loyalty.Some(rewardID)})
}

// Pocket is what the member holds to show at the counter: vouchers of
// their redemptions and coupons.
type Pocket struct {
	Vouchers []loyalty.Voucher // newest first
	Coupons  []loyalty.Coupon  // the ones that can still be used
}

// Pocket reads the member's vouchers and coupons in b.
func (d *Desk) Pocket(ctx context.Context, b Business, memberID string, m loyalty.Membership) (Pocket, error) {
	svc := d.on(b)
	var p Pocket
	var err error
	if p.Vouchers, err = svc.Vouchers.Vouchers(ctx, b.Business, memberID); err != nil {
		return p, err
	}
	p.Coupons, err = svc.Users.Coupons(ctx, memberID, []loyalty.Membership{m})
	return p, err
}

// Now is the time on b's clock, for the states of vouchers.
func (d *Desk) Now(b Business) time.Time { return d.on(b).Vouchers.Store.Now() }
