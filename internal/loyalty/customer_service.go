package loyalty

import (
	"context"
	"strings"
)

// CustomerService holds the rules for a business's customers.
type CustomerService struct {
	Store Store
	// Hash, when set, hashes the verification token of the welcome message
	// a new person receives; without it no welcome message is queued.
	Hash Hasher
	// Notify, when set, is called after a commit that queued a message.
	Notify func()
}

func (s *CustomerService) notify() {
	if s.Notify != nil {
		s.Notify()
	}
}

// Create adds a customer to a business. A person already known by e-mail or
// phone becomes a customer of this business too; one who already is gets a
// 422 naming the taken field.
func (s *CustomerService) Create(ctx context.Context, b Business, in CustomerInput) (Customer, error) {
	nc, err := prepareCustomer(b, in)
	if err != nil {
		return Customer{}, err
	}
	var out Customer
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		var err error
		var created bool
		if out, created, err = s.createTx(ctx, tx, b, nc.user, nc.addr, nc.enabled, nc.ref); err != nil {
			return err
		}
		if g := in.Consent; g != nil {
			c := Consent{BusinessID: b.ID, CustomerID: out.ID, Kind: ConsentMarketing, ContactChannels: g.ContactChannels,
				Source: g.Source, By: g.By, CreatedAt: tx.Now()}
			if err := recordConsent(ctx, tx, &c); err != nil {
				return err
			}
		}
		if !created {
			return nil
		}
		return s.welcome(ctx, tx, b, out.User)
	})
	if err == nil {
		s.notify()
	}
	return out, err
}

// newCustomer is a checked customer create body.
type newCustomer struct {
	user    User
	addr    Address
	enabled bool
	ref     *ReferralInput
}

// prepareCustomer validates a customer create body, with no I/O: the
// checks of Create, shared with the CSV import.
func prepareCustomer(b Business, in CustomerInput) (newCustomer, error) {
	v := Validation{}
	nc := newCustomer{enabled: true}
	in.validateProfile(v, &nc.user, b.Country)
	if nc.user.Email == "" && nc.user.Phone == "" && !v.Has("email") && !v.Has("phone") && !v.Has("country_code") {
		v.Add("email", "The email field is required when phone is not present.")
		v.Add("phone", "The phone field is required when email is not present.")
	}
	if a, ok := in.Address.Value(); ok {
		a.apply(v, &nc.addr)
	}
	if r, ok := in.Referral.Value(); ok {
		if _, ok := r.ProgramID.Value(); !ok {
			v.Add("referral.referral_program_id", "The referral program id is required with referral.")
		}
		if id, ok := r.ReferrerID.Value(); !ok || id == "" {
			v.Add("referral.referrer_id", "The referrer id is required with referral.")
		} else if !ValidID(id) {
			v.Add("referral.referrer_id", "The referrer id is not a valid customer id.")
		}
		nc.ref = &r
	}
	if e, ok := in.Enabled.Value(); ok {
		nc.enabled = e
	}
	return nc, v.Err()
}

// createTx adds the person u to business b inside tx: a new person, a
// known person joining, or a deleted membership coming back. A new member
// receives the business's welcome points. It reports whether the person
// is new.
func (s *CustomerService) createTx(ctx context.Context, tx Tx, b Business, u User, addr Address, enabled bool, ref *ReferralInput) (Customer, bool, error) {
	person, err := findPerson(ctx, tx, u)
	if err != nil {
		return Customer{}, false, err
	}
	now := tx.Now()
	c := Customer{BusinessID: b.ID, Enabled: enabled, Address: addr, CreatedAt: now, UpdatedAt: now}
	joined := true
	if person.ID == "" {
		u.ID = NewID()
		u.CreatedAt, u.UpdatedAt = now, now
		if err := tx.InsertUser(ctx, &u); err != nil {
			return Customer{}, false, err
		}
		c.User = u
		if err := tx.InsertCustomer(ctx, &c); err != nil {
			return Customer{}, false, err
		}
	} else {
		// A known person joins with the profile this business gives; what
		// other businesses or the person wrote stays out of its view.
		u.ID, u.CreatedAt, u.UpdatedAt = person.ID, now, now
		c.User = u
		existing, err := tx.CustomerAny(ctx, b.ID, person.ID)
		switch {
		case err == nil && !existing.Deleted:
			return Customer{}, false, takenError(u, person)
		case err == nil:
			// A deleted membership comes back; its ledger history stays.
			joined = false
			c.CreatedAt = existing.CreatedAt
			c.Balance = existing.Balance
			if err := tx.UpdateCustomer(ctx, &c); err != nil {
				return Customer{}, false, err
			}
		case ErrorCode(err) == ENotFound:
			if err := tx.InsertCustomer(ctx, &c); err != nil {
				return Customer{}, false, err
			}
		default:
			return Customer{}, false, err
		}
	}
	if err := record(ctx, tx, b.ID, EventCustomerCreated, NewCustomerJSON(c, false, nil)); err != nil {
		return Customer{}, false, err
	}
	// Points a member sent to this e-mail or phone before they joined.
	if err := claimTransfers(ctx, tx, b, c); err != nil {
		return Customer{}, false, err
	}
	if ref != nil {
		if err := s.linkReferral(ctx, tx, b.ID, c.ID, *ref); err != nil {
			return Customer{}, false, err
		}
	}
	if joined {
		rules, err := tx.Rules(ctx, b)
		if err != nil {
			return Customer{}, false, err
		}
		if rules.WelcomePoints > 0 {
			e := newEntry(b, c.ID, IntentWelcome, now)
			e.Points, e.TierPoints = rules.WelcomePoints, rules.WelcomePoints
			rules.settle(&e)
			if err := appendEntry(ctx, tx, &e); err != nil {
				return Customer{}, false, err
			}
			c.Balance = e.Balance
		}
	}
	return c, person.ID == "", nil
}

// findPerson returns the person the e-mail or phone of u belongs to, or a
// zero User. An e-mail of one person with the phone of another is refused.
func findPerson(ctx context.Context, tx Tx, u User) (User, error) {
	var byEmail, byPhone User
	var err error
	if u.Email != "" {
		if byEmail, err = tx.UserByEmail(ctx, u.Email); err != nil && ErrorCode(err) != ENotFound {
			return User{}, err
		}
	}
	if u.Phone != "" {
		if byPhone, err = tx.UserByPhone(ctx, u.Phone); err != nil && ErrorCode(err) != ENotFound {
			return User{}, err
		}
	}
	switch {
	case byEmail.ID != "" && byPhone.ID != "" && byEmail.ID != byPhone.ID:
		return User{}, Invalid("phone", "The phone has already been taken by another person.")
	case byEmail.ID != "" && u.Phone != "" && byEmail.Phone != "" && byEmail.Phone != u.Phone:
		return User{}, Invalid("phone", "The phone does not match the person with this email.")
	case byPhone.ID != "" && u.Email != "" && byPhone.Email != "" && byPhone.Email != u.Email:
		return User{}, Invalid("email", "The email does not match the person with this phone.")
	case byEmail.ID != "":
		return byEmail, nil
	default:
		return byPhone, nil
	}
}

func takenError(u, person User) error {
	v := Validation{}
	if u.Email != "" && u.Email == person.Email {
		v.Add("email", "The email has already been taken.")
	}
	if u.Phone != "" && u.Phone == person.Phone {
		v.Add("phone", "The phone has already been taken.")
	}
	return v.Err()
}

func (s *CustomerService) linkReferral(ctx context.Context, tx Tx, businessID, refereeID string, r ReferralInput) error {
	progID, referrerID := r.ProgramID.V, r.ReferrerID.V
	prog, err := tx.ReferralProgram(ctx, businessID, progID)
	if ErrorCode(err) == ENotFound || (err == nil && !prog.Enabled) {
		return Invalid("referral.referral_program_id", "The referral program does not exist or is not active.")
	} else if err != nil {
		return err
	}
	if referrerID == refereeID {
		return Invalid("referral.referrer_id", "A customer cannot refer themselves.")
	}
	referrer, err := tx.CustomerAny(ctx, businessID, referrerID)
	if ErrorCode(err) == ENotFound || (err == nil && referrer.Deleted) {
		return Invalid("referral.referrer_id", "The referrer is not a customer of this business.")
	} else if err != nil {
		return err
	}
	done, err := tx.HasReferral(ctx, businessID, refereeID)
	if err != nil {
		return err
	}
	if done {
		return Invalid("referral", "This customer has already been referred.")
	}
	return tx.InsertReferral(ctx, &Referral{BusinessID: businessID, ProgramID: prog.ID, ReferrerID: referrerID, RefereeID: refereeID, CreatedAt: tx.Now()})
}

// Update changes a customer's fields; only the fields sent change.
func (s *CustomerService) Update(ctx context.Context, b Business, id string, in CustomerInput) (Customer, error) {
	if in.Referral.Set {
		return Customer{}, Invalid("referral", "A referral can only be given when the customer is created.")
	}
	id, err := customerIDOf(id)
	if err != nil {
		return Customer{}, err
	}
	var out Customer
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		c, err := tx.CustomerAny(ctx, b.ID, id)
		if err != nil {
			return err
		}
		if c.Deleted {
			return customerNotFound()
		}
		before := c
		v := Validation{}
		u := c.User
		in.validateProfile(v, &u, b.Country)
		if u.Email == "" && u.Phone == "" && !v.Has("email") && !v.Has("phone") {
			v.Add("email", "The email field is required when phone is not present.")
			v.Add("phone", "The phone field is required when email is not present.")
		}
		if a, ok := in.Address.Value(); ok {
			a.apply(v, &c.Address)
		} else if in.Address.Null {
			c.Address = Address{}
		}
		if in.Enabled.Set {
			if e, ok := in.Enabled.Value(); ok {
				c.Enabled = e
			} else {
				v.Add("enabled", "The enabled field must be true or false.")
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := checkTakenInBusiness(ctx, tx, b.ID, c.User, u); err != nil {
			return err
		}
		now := tx.Now()
		if u != c.User {
			if err := syncPerson(ctx, tx, u, now); err != nil {
				return err
			}
		}
		fields := customerFields(c)
		c.User = u
		c.UpdatedAt = now
		if err := tx.UpdateCustomer(ctx, &c); err != nil {
			return err
		}
		noteChanges(s.Store, fields, customerFields(c))
		changes, err := customerChanges(before, c)
		if err != nil {
			return err
		}
		for _, typ := range changes {
			if err := record(ctx, tx, b.ID, typ, NewCustomerJSON(c, false, nil)); err != nil {
				return err
			}
		}
		out = c
		return nil
	})
	return out, err
}

// checkTakenInBusiness refuses an e-mail or phone another customer of the
// business already has.
func checkTakenInBusiness(ctx context.Context, tx Tx, businessID string, old, u User) error {
	v := Validation{}
	for _, f := range []struct{ field, email, phone, before string }{
		{"email", u.Email, "", old.Email}, {"phone", "", u.Phone, old.Phone},
	} {
		value := f.email + f.phone
		if value == "" || value == f.before {
			continue
		}
		other, err := tx.CustomerByContact(ctx, businessID, f.email, f.phone)
		if err == nil && other.ID != u.ID {
			v.Add(f.field, "The "+f.field+" has already been taken.")
		} else if err != nil && ErrorCode(err) != ENotFound {
			return err
		}
	}
	return v.Err()
}

// Delete removes a customer from the business. The ledger keeps its entries.
func (s *CustomerService) Delete(ctx context.Context, b Business, id string) error {
	id, err := customerIDOf(id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		c, err := tx.CustomerAny(ctx, b.ID, id)
		if err != nil {
			return err
		}
		if c.Deleted {
			return customerNotFound()
		}
		c.Deleted = true
		c.UpdatedAt = tx.Now()
		if err := tx.UpdateCustomer(ctx, &c); err != nil {
			return err
		}
		return record(ctx, tx, b.ID, EventCustomerDeleted, NewCustomerJSON(c, false, nil))
	})
}

// customerIDOf checks the shape of a customer id from a path.
func customerIDOf(id string) (string, error) {
	id = strings.ToLower(id)
	if !ValidID(id) {
		return "", Errorf(EBadRequest, "Invalid customer id supplied.")
	}
	return id, nil
}

func customerNotFound() error { return Errorf(ENotFound, "Customer not found.") }

// customerFields is a customer's details as the audit log records them.
func customerFields(c Customer) map[string]string {
	return map[string]string{"first_name": c.FirstName, "last_name": c.LastName, "email": c.Email, "phone": c.Phone,
		"birth_date": c.BirthDate, "language": c.Language, "gender": c.Gender}
}
