package console

import (
	"context"
	"slices"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Password changes and resets for every account of the web portals:
// business owners and staff, developers, support. A reset e-mail carries a
// single-use token, kept hashed, valid PasswordResetTTL; at most maxResets are
// sent to one account per hour. Asking tells nobody whether an address
// has an account.

// PasswordResetTTL is how long a password-reset token works.
const PasswordResetTTL = time.Hour

// maxResets bounds the reset e-mails one account gets per hour.
const maxResets = 3

// Portal is one sign-in page's accounts, as a password reset needs them.
type Portal struct {
	Name      string   // how e-mails name it
	Kinds     []string // the kinds of account that sign in there
	ResetPath string   // its reset page
}

// The portals' accounts.
var (
	BusinessPortal  = Portal{"Loyalty business console", []string{loyalty.AccountOwner, loyalty.AccountStaff}, "/business/password/reset"}
	DeveloperPortal = Portal{"Loyalty developer portal", []string{loyalty.AccountDeveloper}, "/developers/password/reset"}
	SupportPortal   = Portal{"Loyalty support", []string{loyalty.AccountSupport}, "/support/password/reset"}
)

// PasswordService changes and resets the portals' passwords.
type PasswordService struct {
	Store loyalty.PasswordStore
	Hash  loyalty.Hasher
	// Verify checks an account's password under the sign-in lockout
	// (oauth.Server.SignIn): EUnauthorized when wrong, ETooMany when locked.
	Verify func(ctx context.Context, kind, email, password string) error
	Notify func()
}

// RequestReset e-mails a reset token to the portal's account with email,
// if there is one; resetURL is the reset page's address, or "" to name
// its path instead. The answer is the same whether or not it exists.
func (s *PasswordService) RequestReset(ctx context.Context, p Portal, email, resetURL string) error {
	email, ok := loyalty.NormalizeEmail(email)
	if !ok {
		return loyalty.Invalid("email", "Enter a valid e-mail address.")
	}
	kind := p.Kinds[0]
	if len(p.Kinds) > 1 {
		k, err := s.Store.BusinessAccountKind(ctx, email)
		if loyalty.ErrorCode(err) == loyalty.ENotFound {
			return nil
		} else if err != nil {
			return err
		}
		kind = k
	}
	acct, err := s.Store.PortalAccount(ctx, kind, "", email)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	now := s.Store.Now()
	if n, err := s.Store.CountAccountTokens(ctx, acct.Kind, acct.ID, loyalty.TokenReset, now.Add(-time.Hour)); err != nil || n >= maxResets {
		return err
	}
	token := loyalty.NewToken()
	t := loyalty.AccountToken{Hash: s.Hash.Token(token), Purpose: loyalty.TokenReset, AccountKind: acct.Kind, AccountID: acct.ID, ExpiresAt: now.Add(PasswordResetTTL)}
	if err := s.Store.InsertResetToken(ctx, t, passwordResetMessage(p.Name, acct.Email, resetURL, p.ResetPath, token)); err != nil {
		return err
	}
	if s.Notify != nil {
		s.Notify()
	}
	return nil
}

var errResetGone = loyalty.Errorf(loyalty.ENotFound, "This reset link is no longer valid: it was used, replaced or has expired (after one hour). Ask for a new one.")

// ResetAccount returns the account a live reset token of the portal opens.
func (s *PasswordService) ResetAccount(ctx context.Context, p Portal, token string) (loyalty.PortalAccount, loyalty.AccountToken, error) {
	if token == "" {
		return loyalty.PortalAccount{}, loyalty.AccountToken{}, errResetGone
	}
	t, err := s.Store.AccountToken(ctx, loyalty.TokenReset, s.Hash.Token(token))
	if loyalty.ErrorCode(err) == loyalty.ENotFound || (err == nil && (!slices.Contains(p.Kinds, t.AccountKind) || !t.ExpiresAt.After(s.Store.Now()))) {
		return loyalty.PortalAccount{}, t, errResetGone
	} else if err != nil {
		return loyalty.PortalAccount{}, t, err
	}
	acct, err := s.Store.PortalAccount(ctx, t.AccountKind, t.AccountID, "")
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return acct, t, errResetGone
	}
	return acct, t, err
}

// Reset sets a new password with a reset token, which works once; the
// account's sign-in lock is lifted and its sessions end.
func (s *PasswordService) Reset(ctx context.Context, p Portal, token, password string) (loyalty.PortalAccount, error) {
	if err := checkPassword(password); err != nil {
		return loyalty.PortalAccount{}, err
	}
	acct, t, err := s.ResetAccount(ctx, p, token)
	if err != nil {
		return acct, err
	}
	hash, err := s.Hash.Password(ctx, password)
	if err != nil {
		return acct, err
	}
	reset := func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(s.Store, r).ResetPassword(ctx, t.ID, acct.Kind, acct.ID, hash)
	}
	if acct.BusinessID != "" {
		err = loyalty.Audited(acct.Actor(), loyalty.AuditPasswordReset, acct.Email, nil, nil, reset)
	} else {
		err = reset(nil)
	}
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return acct, errResetGone
	}
	return acct, err
}

// Change sets a signed-in account's new password after checking the
// current one (wrong ones count toward the sign-in lockout); the
// account's other sessions end, the one whose hash is keep stays.
func (s *PasswordService) Change(ctx context.Context, acct loyalty.PortalAccount, current, password string, keep []byte) error {
	v := loyalty.Validation{}
	if err := s.Verify(ctx, acct.Kind, acct.Email, current); loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		v.Add("current_password", "The current password is incorrect.")
	} else if err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		v.Add("password", "The password must have 10 to 200 characters.")
	} else if password == current {
		v.Add("password", "Choose a password other than the current one.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	hash, err := s.Hash.Password(ctx, password)
	if err != nil {
		return err
	}
	change := func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(s.Store, r).ChangePassword(ctx, acct.Kind, acct.ID, hash, keep)
	}
	if acct.BusinessID != "" {
		return loyalty.Audited(acct.Actor(), loyalty.AuditPasswordChanged, acct.Email, nil, nil, change)
	}
	return change(nil)
}
