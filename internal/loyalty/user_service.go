package loyalty

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"
)

// UserService holds the rules of the user API: accounts with PINs, the
// verification of e-mails and phones, and PIN resets. Every message it
// sends is written to the outbox in the transaction of its change.
type UserService struct {
	Store     Store
	Customers *CustomerService
	Hash      Hasher
	// Notify, when set, is called after a change that queued messages has
	// committed, so the outbox worker need not wait for its next poll.
	Notify func()
	// ResetURL, when set, is the page a PIN-reset message links to; the
	// token is added as its token query parameter.
	ResetURL string
}

func (s *UserService) notify() {
	if s.Notify != nil {
		s.Notify()
	}
}

// Register creates a person with a PIN (generated when none is given) and
// makes them a customer of every business of the program, each applying
// its welcome points. A welcome message with a verification token goes to
// each contact given; an e-mail or phone that already has a person is 422.
func (s *UserService) Register(ctx context.Context, p Program, in UserInput) (Person, error) {
	v := Validation{}
	var u User
	ci := in.profile()
	ci.validateProfile(v, &u, "")
	if u.Email == "" && u.Phone == "" && !v.Has("email") && !v.Has("phone") && !v.Has("country_code") {
		v.Add("email", "The email field is required when phone is not present.")
		v.Add("phone", "The phone field is required when email is not present.")
	}
	pin := digits(v, "pin_code", in.PinCode, 4, 6)
	if in.ProfilePhoto.Set && in.ProfilePhoto.V != "" {
		v.Add("profile_photo", "The profile photo is set by uploading an image to /users/{id}/images.")
	}
	if err := v.Err(); err != nil {
		return Person{}, err
	}
	if len(p.Businesses) == 0 {
		return Person{}, Errorf(EForbidden, "This Application Key has no business to join.")
	}
	generated := ""
	if pin == "" {
		pin = randomDigits(CodeDigits)
		generated = pin
	}
	hash, err := s.Hash.Password(ctx, pin)
	if err != nil {
		return Person{}, err
	}
	var id string
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		person, err := findPerson(ctx, tx, u)
		if err != nil {
			return err
		}
		if person.ID != "" {
			return takenError(u, person)
		}
		for _, b := range p.Businesses {
			c, _, err := s.Customers.createTx(ctx, tx, b, u, Address{}, true, nil)
			if err != nil {
				return err
			}
			id = c.ID
		}
		if err := tx.SetUserPIN(ctx, id, hash); err != nil {
			return err
		}
		if err := recordUser(ctx, tx, p.BusinessIDs(), id, EventUserCreated); err != nil {
			return err
		}
		for _, c := range []struct{ kind, to string }{{ContactEmail, u.Email}, {ContactPhone, u.Phone}} {
			if c.to == "" {
				continue
			}
			token, err := s.newSecret(ctx, tx, id, SecretVerify, c.to, VerifyTTL)
			if err != nil {
				return err
			}
			// The PIN travels once: by e-mail when there is one.
			withPIN := generated
			if c.kind == ContactPhone && u.Email != "" {
				withPIN = ""
			}
			m := welcomeMessage(p.Name, c.kind, c.to, u.FirstName, token, withPIN)
			if err := tx.EnqueueMessage(ctx, &m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Person{}, err
	}
	s.notify()
	return s.Store.Person(ctx, id)
}

// newSecret stores a new secret of purpose for a person and returns it in
// clear, for the message that carries it.
func (s *UserService) newSecret(ctx context.Context, tx Tx, userID, purpose, target string, ttl time.Duration) (string, error) {
	return newSecret(ctx, tx, s.Hash, userID, purpose, target, ttl)
}

// newSecret stores a new secret of purpose for a person, hashed with hash,
// and returns it in clear for the message that carries it.
func newSecret(ctx context.Context, tx Tx, hash Hasher, userID, purpose, target string, ttl time.Duration) (string, error) {
	secret := NewToken()
	sum := hash.Token(secret)
	if purpose == SecretResetCode || purpose == SecretSignInCode {
		secret = randomDigits(CodeDigits)
		sum = hash.Token(codeSecret(userID, secret))
	}
	now := tx.Now()
	us := UserSecret{UserID: userID, Purpose: purpose, Target: target, Hash: sum, ExpiresAt: now.Add(ttl), CreatedAt: now}
	return secret, tx.InsertUserSecret(ctx, &us)
}

// UserChange is the result of an update: the person, and the image that
// is no longer theirs ("" when none), for the caller to remove.
type UserChange struct {
	Person   Person
	OldPhoto string
}

// Update changes the person's own record: profile, e-mail, phone, PIN and
// profile photo (only cleared here; images are uploaded). A new e-mail or
// phone is unverified until confirmed with the token sent to it.
func (s *UserService) Update(ctx context.Context, p Program, userID string, in UserInput) (UserChange, error) {
	pre := Validation{}
	pin := digits(pre, "pin_code", in.PinCode, 4, 6)
	if in.PinCode.Set && in.PinCode.Null {
		pre.Add("pin_code", "The pin code may not be null.")
	}
	var hash string
	if pin != "" && len(pre) == 0 {
		var err error
		if hash, err = s.Hash.Password(ctx, pin); err != nil {
			return UserChange{}, err
		}
	}
	var out UserChange
	queued := false
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		person, err := tx.Person(ctx, userID)
		if err != nil {
			return err
		}
		v := pre
		u := person.User
		ci := in.profile()
		ci.validateProfile(v, &u, "")
		if u.Email == "" && u.Phone == "" && !v.Has("email") && !v.Has("phone") {
			v.Add("email", "The email field is required when phone is not present.")
			v.Add("phone", "The phone field is required when email is not present.")
		}
		if ph, ok := in.ProfilePhoto.Value(); ok && ph != "" && ph != person.ProfilePhoto {
			v.Add("profile_photo", "The profile photo must be the path of an image uploaded to /users/{id}/images, or null.")
		} else if in.ProfilePhoto.Set && ph == "" {
			out.OldPhoto, u.ProfilePhoto = person.ProfilePhoto, ""
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := checkUnique(ctx, tx, person.User, u); err != nil {
			return err
		}
		now := tx.Now()
		if u != person.User {
			u.UpdatedAt = now
			if err := tx.UpdateUser(ctx, &u); err != nil {
				return err
			}
		}
		for _, c := range []struct{ kind, before, after string }{
			{ContactEmail, person.Email, u.Email}, {ContactPhone, person.Phone, u.Phone},
		} {
			if c.before == c.after {
				continue
			}
			if err := tx.SetContactVerified(ctx, userID, c.kind, time.Time{}); err != nil {
				return err
			}
			if c.after == "" {
				continue
			}
			token, err := s.newSecret(ctx, tx, userID, SecretVerify, c.after, VerifyTTL)
			if err != nil {
				return err
			}
			m := verifyMessage(p.Name, c.kind, c.after, u.FirstName, token)
			if err := tx.EnqueueMessage(ctx, &m); err != nil {
				return err
			}
			queued = true
		}
		if hash != "" {
			return tx.SetUserPIN(ctx, userID, hash)
		}
		return nil
	})
	if err != nil {
		return UserChange{}, err
	}
	if queued {
		s.notify()
	}
	out.Person, err = s.Store.Person(ctx, userID)
	return out, err
}

// SetPhoto makes path the person's profile photo and returns the one it
// replaces ("" when none).
func (s *UserService) SetPhoto(ctx context.Context, userID, path string) (string, error) {
	var old string
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		person, err := tx.Person(ctx, userID)
		if err != nil {
			return err
		}
		old = person.ProfilePhoto
		u := person.User
		u.ProfilePhoto, u.UpdatedAt = path, tx.Now()
		return tx.UpdateUser(ctx, &u)
	})
	return old, err
}

// Verify confirms an e-mail or phone with the token sent to it. The token
// must name that contact, be unused and unexpired, and belong to a
// customer of the program; anything else is 422 on token.
func (s *UserService) Verify(ctx context.Context, p Program, in VerificationInput) (Person, error) {
	v := Validation{}
	token, ok := in.Token.Value()
	if !ok || strings.TrimSpace(token) == "" {
		v.Add("token", "The token field is required.")
	}
	kind, value := contact(v, in.Email, in.Phone, in.CountryCode)
	if err := v.Err(); err != nil {
		return Person{}, err
	}
	hash := s.Hash.Token(strings.TrimSpace(token))
	var id string
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		sec, err := tx.UserSecretByHash(ctx, SecretVerify, hash)
		if ErrorCode(err) == ENotFound {
			return invalidToken()
		} else if err != nil {
			return err
		}
		now := tx.Now()
		if !sec.Usable(now) || sec.Target != value {
			return invalidToken()
		}
		person, err := tx.Person(ctx, sec.UserID)
		if err != nil {
			return err
		}
		current := person.Email
		if kind == ContactPhone {
			current = person.Phone
		}
		member, err := tx.IsMember(ctx, sec.UserID, p.BusinessIDs())
		if err != nil {
			return err
		}
		if !member || current != value {
			return invalidToken()
		}
		if ok, err := tx.SpendUserSecret(ctx, sec.ID, now); err != nil {
			return err
		} else if !ok {
			return invalidToken()
		}
		id = sec.UserID
		if err := tx.SetContactVerified(ctx, id, kind, now); err != nil {
			return err
		}
		return recordUser(ctx, tx, p.BusinessIDs(), id, EventUserVerified)
	})
	if err != nil {
		return Person{}, err
	}
	return s.Store.Person(ctx, id)
}

// constantEqual compares two hashes in constant time.
func constantEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
