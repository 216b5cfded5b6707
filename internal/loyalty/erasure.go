package loyalty

import (
	"context"
	"slices"
)

// Erasure replaces a person's personal data with a tombstone, at their
// request or their business's. The ledger is never rewritten: what the
// customer held is forfeited by entries (points, active and pending;
// the points of vouchers still waiting come back first and go with the
// rest), so every business's totals and liability stay exact. A gift-card
// balance is money the business owes: it must be spent or refunded
// first. Events and messages written afterwards name the customer by id
// only; messages not sent yet are dropped and those sent are blanked.

// ErasedEmail is the address a tombstone keeps (RFC 2606's .invalid: no
// message can reach it), unique per person as the users table requires.
func ErasedEmail(id string) string { return "erased-" + id + "@erased.invalid" }

// erasedJSON is the data of customer.erased.
type erasedJSON struct {
	Customer idJSON `json:"customer"`
}

// EraseMember erases a member of the program's businesses at their own
// request: each of those businesses' profiles, and the person's own
// record unless a business outside the program still has them as a
// customer (whose data is not the program's to erase). It returns the
// path of the profile photo the erasure left to no record ("" when none),
// for the caller to delete its file once the erasure is committed.
func (s *UserService) EraseMember(ctx context.Context, p Program, userID string) (string, error) {
	ids := p.BusinessIDs()
	return s.erase(ctx, userID, false, func(all []string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(id string) bool { return !slices.Contains(ids, id) })
	})
}

// EraseCustomer erases a business's customer at the business's request:
// its profile there, and the person's own record when no other business
// has them as a customer and they never claimed the account with a PIN
// (the rule by which a business edits the person's record).
// It returns the profile photo of the person's record it erased, for the
// caller to delete the file.
func (s *CustomerService) EraseCustomer(ctx context.Context, b Business, id string) (string, error) {
	id, err := customerIDOf(id)
	if err != nil {
		return "", err
	}
	u := &UserService{Store: s.Store}
	return u.erase(ctx, id, true, func(all []string) []string {
		if slices.Contains(all, b.ID) {
			return []string{b.ID}
		}
		return nil
	})
}

// erase erases the person's profiles in the businesses pick chooses among
// those that have them, in one transaction; ENotFound when it chooses
// none. The person's own record goes too when no other business still
// has them (a profile not erased), unless keepClaimed and the person
// claimed the account with a PIN. It returns the profile photo of a
// person's record it erased.
func (s *UserService) erase(ctx context.Context, userID string, keepClaimed bool, pick func(all []string) []string) (string, error) {
	var photo string
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		all, err := tx.PersonBusinesses(ctx, userID)
		if err != nil {
			return err
		}
		picked := pick(all)
		var chosen []string
		others := 0
		for _, bid := range all {
			c, err := tx.CustomerAny(ctx, bid, userID)
			if err != nil {
				return err
			}
			switch {
			case c.erased():
			case slices.Contains(picked, bid):
				chosen = append(chosen, bid)
			default:
				others++
			}
		}
		if len(chosen) == 0 {
			// Erased already, as a deleted customer is not found.
			return Errorf(ENotFound, "Customer not found.")
		}
		person, err := tx.Person(ctx, userID)
		if err != nil {
			return err
		}
		addresses := []string{person.Email, person.Phone}
		for _, bid := range chosen {
			c, err := eraseProfile(ctx, s.Store, tx, bid, userID)
			if err != nil {
				return err
			}
			addresses = append(addresses, c.Email, c.Phone)
		}
		if others > 0 || (keepClaimed && person.HasPIN) {
			return nil
		}
		if err := tx.RevokeUserTokens(ctx, userID); err != nil {
			return err
		}
		tomb := User{ID: userID, Email: ErasedEmail(userID), CreatedAt: person.CreatedAt, UpdatedAt: tx.Now()}
		if err := tx.ErasePerson(ctx, tomb); err != nil {
			return err
		}
		photo = person.ProfilePhoto
		return tx.EraseMessagesTo(ctx, slices.DeleteFunc(addresses, func(a string) bool { return a == "" }))
	})
	if err != nil {
		return "", err
	}
	return photo, nil
}

// erased reports whether a profile is a tombstone.
func (c Customer) erased() bool {
	u := c.User
	return c.Deleted && u.Email == "" && u.Phone == "" && u.FirstName == "" && u.LastName == "" && u.BirthDate == "" &&
		u.Gender == "" && u.Language == "" && c.Address == Address{}
}

// eraseProfile erases the person's profile in one business: waiting
// vouchers returned, the balance forfeited, the profile a tombstone,
// deleted, and customer.erased. It returns the profile as it was.
func eraseProfile(ctx context.Context, st Store, tx Tx, businessID, userID string) (Customer, error) {
	b, err := st.Business(ctx, businessID)
	if err != nil {
		return Customer{}, err
	}
	c, err := tx.LockCustomer(ctx, businessID, userID)
	if err != nil {
		return Customer{}, err
	}
	if c.Balance.Giftcard != 0 {
		return Customer{}, Invalid("giftcard", "The account holds a gift-card balance of "+b.FormatMoney(c.Balance.Giftcard)+
			" at "+b.Name+": it must be spent or refunded before the account is erased.")
	}
	now := tx.Now()
	vouchers, err := st.CustomerVouchers(ctx, businessID, userID)
	if err != nil {
		return Customer{}, err
	}
	for _, v := range vouchers {
		if v.State(now) == VoucherIssued || v.State(now) == VoucherExpired {
			if err := returnVoucher(ctx, tx, b, v, now, "Voucher returned: account erased"); err != nil {
				return Customer{}, err
			}
		}
	}
	if c, err = tx.LockCustomer(ctx, businessID, userID); err != nil {
		return Customer{}, err
	}
	if held := c.Balance.Points + c.Balance.Pending; held > 0 {
		e := newEntry(b, userID, IntentAdjust, now)
		e.Comments = "Forfeited: account erased"
		e.Points, e.TakePending = -held, true
		if err := appendEntry(ctx, tx, &e); err != nil {
			return Customer{}, err
		}
	}
	was := c
	c.User = User{ID: userID, CreatedAt: c.CreatedAt}
	c.Address, c.Enabled, c.Deleted, c.UpdatedAt = Address{}, false, true, now
	if err := tx.UpdateCustomer(ctx, &c); err != nil {
		return Customer{}, err
	}
	return was, record(ctx, tx, businessID, EventCustomerErased, erasedJSON{Customer: idJSON{ID: userID}})
}
