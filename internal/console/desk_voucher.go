package console

import (
	"context"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// HandOver is the counter handing over what a member redeemed, by the
// voucher's code: the first time it records who handed it over (in the
// audit log too); afterwards it changes nothing. It returns the voucher
// as it then stands, and whether this call handed it over.
func (d *CustomerDesk) HandOver(ctx context.Context, a loyalty.Actor, customerID, code string) (loyalty.Voucher, bool, error) {
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return loyalty.Voucher{}, false, err
	}
	v, err := d.on(b).Vouchers.Voucher(ctx, b, code)
	if err == nil && v.CustomerID != c.ID {
		err = loyalty.Errorf(loyalty.ENotFound, "Voucher not found.")
	}
	if err != nil {
		return v, false, fieldsAs(notFoundAs(err, "code", "No voucher of this customer has this code."), nil)
	}
	if v.State(loyalty.ClockedStore(d.Store, b.ClockOffset).Now()) == loyalty.VoucherHandedOver {
		return v, false, nil
	}
	first := false
	title := "reward #" + strconv.FormatInt(v.RewardID, 10)
	if v.Reward != nil {
		title = v.Reward.Title
	}
	after := map[string]string{"voucher": v.Code, "reward": title, "quantity": strconv.FormatInt(v.Quantity, 10)}
	err = loyalty.Audited(a, loyalty.AuditVoucherHandedOver, customerName(c), nil, after, func(r *loyalty.AuditRecord) error {
		v, first, err = d.on(b).AuditedBy(r).Vouchers.HandOver(ctx, b, v.Code, a.Email, "")
		return err
	})
	return v, first, err
}

// notFoundAs turns a not-found into a refusal of the form's field.
func notFoundAs(err error, field, msg string) error {
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return loyalty.Invalid(field, msg)
	}
	return err
}
