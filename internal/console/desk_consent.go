package console

import (
	"context"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// ConsentChoice is what the customer told the staff they agree to hear.
type ConsentChoice struct {
	Email, SMS, Push bool
}

// SetConsent records the marketing consent a customer gave the staff (at
// the counter, on the phone): a new record of source console, by the
// staff member, audited; a choice that changes nothing records nothing.
// Cashiers may record it, as they serve the customer who says it.
func (d *CustomerDesk) SetConsent(ctx context.Context, a loyalty.Actor, customerID string, ch ConsentChoice) (loyalty.Consent, error) {
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return loyalty.Consent{}, err
	}
	cur, err := d.on(b).Consents.State(ctx, b, c.ID, loyalty.ConsentMarketing)
	if err != nil {
		return loyalty.Consent{}, err
	}
	yes := func(b bool) string { return strconv.FormatBool(b) }
	before := map[string]string{"allow_email": yes(cur.Email), "allow_sms": yes(cur.SMS), "allow_push": yes(cur.Push)}
	after := map[string]string{"allow_email": yes(ch.Email), "allow_sms": yes(ch.SMS), "allow_push": yes(ch.Push)}
	in := loyalty.ConsentInput{Email: loyalty.Some(ch.Email), SMS: loyalty.Some(ch.SMS), Push: loyalty.Some(ch.Push)}
	var out loyalty.Consent
	err = loyalty.Audited(a, loyalty.AuditConsentChanged, customerName(c), before, after, func(r *loyalty.AuditRecord) error {
		var err error
		out, err = d.on(b).AuditedBy(r).Consents.Change(ctx, b, c.ID, loyalty.ConsentMarketing, in, loyalty.ConsentFromConsole, a.Email, true)
		return err
	})
	return out, err
}
