package loyalty

import (
	"context"
	"strings"
	"time"
)

// Signing in with a one-time code: the member's wallet page sends a
// 6-digit code to the e-mail or phone a member gives, and the code signs
// them in once, in place of the PIN. It is kept hashed and bound to its
// person like a PIN-reset code, tried at most MaxCodeTries times.

// SecretSignInCode is the purpose of a one-time sign-in code.
const SecretSignInCode = "signin_code"

// SignInCodeTTL is how long a sign-in code works.
const SignInCodeTTL = 10 * time.Minute

// MaxSignInCodesPerHour bounds the sign-in codes one person is sent.
const MaxSignInCodesPerHour = 5

// SignInCodeInput names the person a sign-in code is asked for, or the
// person and the code they were sent.
type SignInCodeInput struct {
	Email       Opt[string]
	Phone       Opt[string]
	CountryCode Opt[string]
	Code        Opt[string]
}

// RequestSignInCode sends a sign-in code to the e-mail or phone given,
// when it names a member of the program. It answers the same whether or
// not it does, so it reveals nothing about who is a member.
func (s *UserService) RequestSignInCode(ctx context.Context, p Program, in SignInCodeInput) error {
	v := Validation{}
	kind, value := contact(v, in.Email, in.Phone, in.CountryCode)
	if err := v.Err(); err != nil {
		return err
	}
	count := func(ctx context.Context, tx Tx, id string, since time.Time) (int, error) {
		return tx.CountSignInCodes(ctx, id, since)
	}
	return s.messageMember(ctx, p, kind, value, count, MaxSignInCodesPerHour, func(tx Tx, u User) (Message, error) {
		code, err := newSecret(ctx, tx, s.Hash, u.ID, SecretSignInCode, value, SignInCodeTTL)
		return signInCodeMessage(p.Name, kind, value, u.FirstName, code), err
	})
}

// SignInWithCode checks a sign-in code sent to the e-mail or phone given
// and returns the member it signs in, spending the code. A wrong code
// counts as one of its tries even though the call fails (the last try
// voids it); every refusal is the same EInvalid on code.
func (s *UserService) SignInWithCode(ctx context.Context, p Program, in SignInCodeInput) (string, error) {
	v := Validation{}
	code, _ := in.Code.Value()
	code = strings.Join(strings.Fields(code), "")
	if len(code) != CodeDigits || strings.Trim(code, "0123456789") != "" {
		v.Add("code", "Enter the 6-digit code you were sent.")
	}
	kind, value := contact(v, in.Email, in.Phone, in.CountryCode)
	if err := v.Err(); err != nil {
		return "", err
	}
	var id string
	var refused error
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		u, sec, ok, err := s.matchCode(ctx, tx, kind, value, SecretSignInCode, code)
		if err != nil || !ok {
			refused = wrongSignInCode()
			return err
		}
		member, err := tx.IsMember(ctx, u.ID, p.BusinessIDs())
		if err != nil {
			return err
		}
		if !member {
			refused = wrongSignInCode()
			return nil
		}
		if ok, err := tx.SpendUserSecret(ctx, sec.ID, tx.Now()); err != nil {
			return err
		} else if !ok {
			refused = wrongSignInCode()
			return nil
		}
		id = u.ID
		return nil
	})
	if err != nil {
		return "", err
	}
	return id, refused
}

func wrongSignInCode() error {
	return Invalid("code", "The code is wrong or has expired. Ask for a new one.")
}

// signInCodeMessage sends a 6-digit sign-in code.
func signInCodeMessage(program, kind, to, firstName, code string) Message {
	b := ""
	if kind == ContactEmail {
		b = Greeting(firstName)
	}
	b += "Your " + program + " sign-in code (valid 10 minutes). If you did not ask for it, ignore this message; nobody can sign in without it.\n"
	b += "Code: " + code + "\n"
	return messageTo(kind, to, "Your sign-in code", b)
}
