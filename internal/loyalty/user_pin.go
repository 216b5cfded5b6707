package loyalty

import (
	"context"
	"slices"
	"strings"
	"time"
)

// MaxResetsPerHour bounds the PIN-reset messages one person is sent.
const MaxResetsPerHour = 5

// RequestReset sends a PIN-reset token or 6-digit code to the e-mail or
// phone given, when it names a customer of the program. It answers the
// same whether or not it does, so it reveals nothing about accounts.
func (s *UserService) RequestReset(ctx context.Context, p Program, in ResetRequestInput) error {
	v := Validation{}
	mode, ok := in.Mode.Value()
	switch {
	case !ok || mode == "":
		v.Add("mode", "The mode field is required (token or verification_code).")
	case !slices.Contains(ResetModes, mode):
		v.Add("mode", "The selected mode is invalid; allowed: "+strings.Join(ResetModes, ", ")+".")
	}
	kind, value := contact(v, in.Email, in.Phone, in.CountryCode)
	if err := v.Err(); err != nil {
		return err
	}
	// However many IPs ask, a person gets a bounded number of reset
	// messages an hour; past it the request is answered the same and
	// nothing is sent, so it still reveals nothing.
	return s.messageMember(ctx, p, kind, value, func(ctx context.Context, tx Tx, id string, since time.Time) (int, error) {
		return tx.CountResetSecrets(ctx, id, since)
	}, MaxResetsPerHour, func(tx Tx, u User) (Message, error) {
		if mode == "token" {
			token, err := s.newSecret(ctx, tx, u.ID, SecretResetToken, value, ResetTTL)
			return resetTokenMessage(p.Name, kind, value, u.FirstName, token, s.ResetURL), err
		}
		code, err := s.newSecret(ctx, tx, u.ID, SecretResetCode, value, ResetTTL)
		return resetCodeMessage(p.Name, kind, value, u.FirstName, code), err
	})
}

// messageMember sends the person a contact names, when they are a member
// of the program, the message compose writes in the transaction, unless
// recent (counting what they were sent in the last hour) has reached
// max. It answers the same whether or not it sends, so it reveals
// nothing about who is a member.
func (s *UserService) messageMember(ctx context.Context, p Program, kind, value string,
	recent func(ctx context.Context, tx Tx, userID string, since time.Time) (int, error), max int,
	compose func(tx Tx, u User) (Message, error)) error {
	sent := false
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		u, err := personByContact(ctx, tx, kind, value)
		if ErrorCode(err) == ENotFound {
			return nil
		} else if err != nil {
			return err
		}
		member, err := tx.IsMember(ctx, u.ID, p.BusinessIDs())
		if err != nil || !member {
			return err
		}
		n, err := recent(ctx, tx, u.ID, tx.Now().Add(-time.Hour))
		if err != nil || n >= max {
			return err
		}
		m, err := compose(tx, u)
		if err != nil {
			return err
		}
		sent = true
		return tx.EnqueueMessage(ctx, &m)
	})
	if sent && err == nil {
		s.notify()
	}
	return err
}

// personByContact finds a person by e-mail or phone.
func personByContact(ctx context.Context, tx Tx, kind, value string) (User, error) {
	if kind == ContactPhone {
		return tx.UserByPhone(ctx, value)
	}
	return tx.UserByEmail(ctx, value)
}

// ResetPIN sets a new PIN with a reset token, or with a verification code
// and the e-mail or phone it was sent to. A wrong code counts as one of
// its tries even though the call fails; the last try voids it.
func (s *UserService) ResetPIN(ctx context.Context, p Program, in ResetInput) error {
	v := Validation{}
	pin := digits(v, "pin_code", in.PinCode, 4, 6)
	if pin == "" && !v.Has("pin_code") {
		v.Add("pin_code", "The pin code field is required.")
	}
	token, _ := in.Token.Value()
	token = strings.TrimSpace(token)
	code := digits(v, "verification_code", in.VerificationCode, CodeDigits, CodeDigits)
	var kind, value string
	switch {
	case token != "":
	case code != "":
		kind, value = contact(v, in.Email, in.Phone, in.CountryCode)
	case !v.Has("verification_code"):
		v.Add("token", "The token field is required when verification code is not present.")
		v.Add("verification_code", "The verification code field is required when token is not present.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	hash, err := s.Hash.Password(ctx, pin)
	if err != nil {
		return err
	}
	if token != "" {
		return s.Store.WithTx(ctx, func(tx Tx) error {
			sec, err := tx.UserSecretByHash(ctx, SecretResetToken, s.Hash.Token(token))
			if ErrorCode(err) == ENotFound {
				return invalidToken()
			} else if err != nil {
				return err
			}
			if !sec.Usable(tx.Now()) {
				return invalidToken()
			}
			return s.spendAndSetPIN(ctx, tx, p, sec, hash, invalidToken)
		})
	}
	var refused error
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		_, sec, ok, err := s.matchCode(ctx, tx, kind, value, SecretResetCode, code)
		if err != nil || !ok {
			refused = invalidCode()
			return err
		}
		return s.spendAndSetPIN(ctx, tx, p, sec, hash, invalidCode)
	})
	if err != nil {
		return err
	}
	return refused
}

// spendAndSetPIN uses a reset secret of a customer of the program and
// stores the new PIN hash; invalid makes the error of a refused secret.
func (s *UserService) spendAndSetPIN(ctx context.Context, tx Tx, p Program, sec UserSecret, hash string, invalid func() error) error {
	member, err := tx.IsMember(ctx, sec.UserID, p.BusinessIDs())
	if err != nil {
		return err
	}
	if !member {
		return invalid()
	}
	if ok, err := tx.SpendUserSecret(ctx, sec.ID, tx.Now()); err != nil {
		return err
	} else if !ok {
		return invalid()
	}
	if err := tx.SetUserPIN(ctx, sec.UserID, hash); err != nil {
		return err
	}
	// Whoever knew the old PIN may hold tokens from it: they stop now.
	return tx.RevokeUserTokens(ctx, sec.UserID)
}

// matchCode finds the person a contact names and checks a code they were
// sent for purpose (a PIN reset, a sign-in): the try counts (it commits
// with the transaction) and the last wrong one voids the code. ok is
// false when the code does not open: nobody has the contact, they have no
// usable code of purpose sent to it, or the code is wrong.
func (s *UserService) matchCode(ctx context.Context, tx Tx, kind, value, purpose, code string) (User, UserSecret, bool, error) {
	u, err := personByContact(ctx, tx, kind, value)
	if ErrorCode(err) == ENotFound {
		return User{}, UserSecret{}, false, nil
	} else if err != nil {
		return User{}, UserSecret{}, false, err
	}
	sec, err := tx.LatestUserSecret(ctx, u.ID, purpose)
	if ErrorCode(err) == ENotFound || (err == nil && (!sec.Usable(tx.Now()) || sec.Target != value)) {
		return u, sec, false, nil
	} else if err != nil {
		return u, sec, false, err
	}
	tries, err := tx.AddSecretTry(ctx, sec.ID)
	if err != nil {
		return u, sec, false, err
	}
	if !constantEqual(sec.Hash, s.Hash.Token(codeSecret(u.ID, code))) {
		if tries >= MaxCodeTries {
			_, err = tx.SpendUserSecret(ctx, sec.ID, tx.Now())
		}
		return u, sec, false, err
	}
	return u, sec, true, nil
}
