package wallet

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// A member takes their data or erases their account from the wallet as
// the user API's GET /users/{id}/export and DELETE /users/{id} do, in the
// program the user API opens with the business's own key: the same
// document, the same erasure.

// Program is what the user API opens to the business's key: the
// business, and what it goes by.
func (d *Desk) Program(ctx context.Context, b Business) (loyalty.Program, error) {
	return d.on(b).Users.Program(ctx, loyalty.Tenant{BusinessID: b.ID, ClockOffset: b.ClockOffset})
}

// Export is the member's data, as GET /users/{id}/export answers it with
// the business's key.
func (d *Desk) Export(ctx context.Context, b Business, memberID string) (loyalty.MemberExport, error) {
	p, err := d.Program(ctx, b)
	if err != nil {
		return loyalty.MemberExport{}, err
	}
	return d.on(b).Users.Export(ctx, p, memberID)
}

// Erase erases the member's account in b, as DELETE /users/{id} does
// with the business's key: a gift-card balance refuses it (EInvalid
// naming "giftcard"). It returns the profile photo no record names any
// more, whose file the caller deletes.
func (d *Desk) Erase(ctx context.Context, b Business, memberID string) (string, error) {
	p, err := d.Program(ctx, b)
	if err != nil {
		return "", err
	}
	return d.on(b).Users.EraseMember(ctx, p, memberID)
}
