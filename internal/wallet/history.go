package wallet

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// HistoryPageSize is how many ledger entries a page of the history shows.
const HistoryPageSize = 20

// History is a page of the member's ledger entries, newest first.
type History struct {
	Entries []loyalty.Transaction
	Page    int
	Pages   int
}

// History reads page (from 1) of the member's ledger in b.
func (d *Desk) History(ctx context.Context, b Business, memberID string, page int) (History, error) {
	h := History{Page: max(page, 1)}
	p, err := d.on(b).Transactions.History(ctx, b.Business, memberID,
		loyalty.ListQuery{Page: h.Page, PerPage: HistoryPageSize}, loyalty.TransactionWith{})
	if err != nil {
		return h, err
	}
	h.Entries = p.Entries
	h.Pages = max((p.Total+HistoryPageSize-1)/HistoryPageSize, 1)
	return h, nil
}

// Choices are the member's choices of what they hear from b.
type Choices struct {
	Marketing     loyalty.ConsentState
	Notifications loyalty.ConsentState
}

// Choices reads the member's marketing consent and notification
// preferences in b.
func (d *Desk) Choices(ctx context.Context, b Business, memberID string) (Choices, error) {
	svc := d.on(b)
	var c Choices
	var err error
	if c.Marketing, err = svc.Consents.State(ctx, b.Business, memberID, loyalty.ConsentMarketing); err != nil {
		return c, err
	}
	c.Notifications, err = svc.Consents.State(ctx, b.Business, memberID, loyalty.ConsentNotifications)
	return c, err
}

// Choose records the member's choice of kind (ConsentMarketing or
// ConsentNotifications) as made in the app (ConsentFromApp, by the
// member's id), as the user API's PATCH does; a choice that changes
// nothing records nothing.
func (d *Desk) Choose(ctx context.Context, b Business, memberID, kind string, ch loyalty.ContactChannels) error {
	in := loyalty.ConsentInput{Email: loyalty.Some(ch.Email), SMS: loyalty.Some(ch.SMS), Push: loyalty.Some(ch.Push)}
	_, err := d.on(b).Consents.Change(ctx, b.Business, memberID, kind, in, loyalty.ConsentFromApp, memberID, false)
	return err
}

// SetPIN changes the member's PIN, as the user API's PATCH does.
func (d *Desk) SetPIN(ctx context.Context, b Business, memberID, pin string) error {
	_, err := d.on(b).Users.Update(ctx, b.Program(), memberID, loyalty.UserInput{PinCode: loyalty.Some(json.RawMessage(strconv.Quote(pin)))})
	return err
}
