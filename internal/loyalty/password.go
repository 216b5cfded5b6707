package loyalty

import (
	"context"
	"slices"
	"time"
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
	BusinessPortal  = Portal{"Loyalty business console", []string{AccountOwner, AccountStaff}, "/business/password/reset"}
	DeveloperPortal = Portal{"Loyalty developer portal", []string{AccountDeveloper}, "/developers/password/reset"}
	SupportPortal   = Portal{"Loyalty support", []string{AccountSupport}, "/support/password/reset"}
)

// PortalAccount is an account of a portal.
type PortalAccount struct {
	Kind       string
	ID         string
	BusinessID string // owners and staff
	Email      string
	Role       string // owners and staff
}

// actor is the account as the audit log names it (business accounts).
func (p PortalAccount) actor() Actor {
	return Actor{Kind: p.Kind, ID: p.ID, BusinessID: p.BusinessID, Email: p.Email, Role: p.Role}
}

// PasswordStore keeps the portals' passwords and reset tokens.
type PasswordStore interface {
	Now() time.Time
	// BusinessAccountKind says which business account signs in with email.
	BusinessAccountKind(ctx context.Context, email string) (string, error)
	// PortalAccount finds an account of kind that can sign in, by e-mail
	// (id empty) or by id; ENotFound otherwise.
	PortalAccount(ctx context.Context, kind, id, email string) (PortalAccount, error)
	// CountAccountTokens counts the tokens of purpose an account was sent since.
	CountAccountTokens(ctx context.Context, kind, id, purpose string, since time.Time) (int, error)
	// AccountToken returns the unused token of purpose with hash.
	AccountToken(ctx context.Context, purpose string, hash []byte) (AccountToken, error)
	// InsertResetToken stores a reset token, voiding the account's older
	// ones, and queues msg, in one transaction.
	InsertResetToken(ctx context.Context, t AccountToken, msg Message) error
	// ResetPassword spends the token, sets the account's password hash,
	// lifts any sign-in lock and ends its sessions; ENotFound when the
	// token is spent or expired.
	ResetPassword(ctx context.Context, tokenID int64, kind, id, hash string) error
	// ChangePassword sets the account's password hash and ends its
	// sessions but the one whose hash is keep.
	ChangePassword(ctx context.Context, kind, id, hash string, keep []byte) error
}

// PasswordService changes and resets the portals' passwords.
type PasswordService struct {
	Store PasswordStore
	Hash  Hasher
	// Verify checks an account's password under the sign-in lockout
	// (oauth.Server.SignIn): EUnauthorized when wrong, ETooMany when locked.
	Verify func(ctx context.Context, kind, email, password string) error
	Notify func()
}

// RequestReset e-mails a reset token to the portal's account with email,
// if there is one; resetURL is the reset page's address, or "" to name
// its path instead. The answer is the same whether or not it exists.
func (s *PasswordService) RequestReset(ctx context.Context, p Portal, email, resetURL string) error {
	email, ok := NormalizeEmail(email)
	if !ok {
		return Invalid("email", "Enter a valid e-mail address.")
	}
	kind := p.Kinds[0]
	if len(p.Kinds) > 1 {
		k, err := s.Store.BusinessAccountKind(ctx, email)
		if ErrorCode(err) == ENotFound {
			return nil
		} else if err != nil {
			return err
		}
		kind = k
	}
	acct, err := s.Store.PortalAccount(ctx, kind, "", email)
	if ErrorCode(err) == ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	now := s.Store.Now()
	if n, err := s.Store.CountAccountTokens(ctx, acct.Kind, acct.ID, TokenReset, now.Add(-time.Hour)); err != nil || n >= maxResets {
		return err
	}
	token := newToken()
	t := AccountToken{Hash: s.Hash.Token(token), Purpose: TokenReset, AccountKind: acct.Kind, AccountID: acct.ID, ExpiresAt: now.Add(PasswordResetTTL)}
	if err := s.Store.InsertResetToken(ctx, t, passwordResetMessage(p.Name, acct.Email, resetURL, p.ResetPath, token)); err != nil {
		return err
	}
	if s.Notify != nil {
		s.Notify()
	}
	return nil
}

var errResetGone = Errorf(ENotFound, "This reset link is no longer valid: it was used, replaced or has expired (after one hour). Ask for a new one.")

// ResetAccount returns the account a live reset token of the portal opens.
func (s *PasswordService) ResetAccount(ctx context.Context, p Portal, token string) (PortalAccount, AccountToken, error) {
	if token == "" {
		return PortalAccount{}, AccountToken{}, errResetGone
	}
	t, err := s.Store.AccountToken(ctx, TokenReset, s.Hash.Token(token))
	if ErrorCode(err) == ENotFound || (err == nil && (!slices.Contains(p.Kinds, t.AccountKind) || !t.ExpiresAt.After(s.Store.Now()))) {
		return PortalAccount{}, t, errResetGone
	} else if err != nil {
		return PortalAccount{}, t, err
	}
	acct, err := s.Store.PortalAccount(ctx, t.AccountKind, t.AccountID, "")
	if ErrorCode(err) == ENotFound {
		return acct, t, errResetGone
	}
	return acct, t, err
}

// Reset sets a new password with a reset token, which works once; the
// account's sign-in lock is lifted and its sessions end.
func (s *PasswordService) Reset(ctx context.Context, p Portal, token, password string) (PortalAccount, error) {
	if err := checkPassword(password); err != nil {
		return PortalAccount{}, err
	}
	acct, t, err := s.ResetAccount(ctx, p, token)
	if err != nil {
		return acct, err
	}
	hash, err := s.Hash.Password(ctx, password)
	if err != nil {
		return acct, err
	}
	reset := func(ctx context.Context) error { return s.Store.ResetPassword(ctx, t.ID, acct.Kind, acct.ID, hash) }
	if acct.BusinessID != "" {
		err = audited(ctx, acct.actor(), AuditPasswordReset, acct.Email, nil, nil, reset)
	} else {
		err = reset(ctx)
	}
	if ErrorCode(err) == ENotFound {
		return acct, errResetGone
	}
	return acct, err
}

// Change sets a signed-in account's new password after checking the
// current one (wrong ones count toward the sign-in lockout); the
// account's other sessions end, the one whose hash is keep stays.
func (s *PasswordService) Change(ctx context.Context, acct PortalAccount, current, password string, keep []byte) error {
	v := Validation{}
	if err := s.Verify(ctx, acct.Kind, acct.Email, current); ErrorCode(err) == EUnauthorized {
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
	change := func(ctx context.Context) error { return s.Store.ChangePassword(ctx, acct.Kind, acct.ID, hash, keep) }
	if acct.BusinessID != "" {
		return audited(ctx, acct.actor(), AuditPasswordChanged, acct.Email, nil, nil, change)
	}
	return change(ctx)
}
