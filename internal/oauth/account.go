package oauth

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Kinds of account that sign in to the web pages.
const (
	KindOwner     = "owner"     // a business owner: the business portal and the consent page
	KindDeveloper = "developer" // a third-party developer: the developer portal
	KindSupport   = "support"   // the service's support staff: app approval
	KindMember    = "member"    // a business's member: its wallet pages
)

// A browser stays signed in for SessionTTL after signing in, unless it
// makes no request for SessionIdle. Use is recorded at most once per
// sessionTouch, so reading pages does not write on every request.
const (
	SessionTTL   = 12 * time.Hour
	SessionIdle  = time.Hour
	sessionTouch = time.Minute
)

// Session is a signed-in browser, as stored (the cookie value is not).
type Session struct {
	Kind       string
	SubjectID  string
	BusinessID string // the owner's business; empty for other kinds
	Email      string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastSeen   time.Time
}

// NewAccount is a developer or support account to create.
type NewAccount struct {
	Name     string // developers only
	Email    string
	Password string
}

// Validate checks the account, naming each bad field.
func (n *NewAccount) Validate() error {
	v := loyalty.Validation{}
	n.Name = strings.TrimSpace(n.Name)
	if len(n.Name) > 100 {
		v.Add("name", "The name may not be greater than 100 characters.")
	}
	email, ok := loyalty.NormalizeEmail(n.Email)
	if !ok {
		v.Add("email", "Enter a valid e-mail address.")
	}
	n.Email = email
	if len(n.Password) < 10 || len(n.Password) > 200 {
		v.Add("password", "The password must have 10 to 200 characters.")
	}
	return v.Err()
}

// SignUpDeveloper creates a developer account.
func (s *Server) SignUpDeveloper(ctx context.Context, n NewAccount) (Login, error) {
	return s.createAccount(ctx, KindDeveloper, n)
}

// CreateSupport creates a support account (support's own CLI command).
func (s *Server) CreateSupport(ctx context.Context, n NewAccount) (Login, error) {
	n.Name = ""
	return s.createAccount(ctx, KindSupport, n)
}

func (s *Server) createAccount(ctx context.Context, kind string, n NewAccount) (Login, error) {
	if err := n.Validate(); err != nil {
		return Login{}, err
	}
	hash, err := s.Hash.Password(ctx, n.Password)
	if err != nil {
		return Login{}, err
	}
	l := Login{Kind: kind, ID: loyalty.NewID(), Hash: hash}
	if err := s.Store.InsertAccount(ctx, l, n.Email, n.Name, s.now()); err != nil {
		return Login{}, err
	}
	return l, nil
}

// SignIn checks the e-mail and password of an account of kind, under the
// password grant's lockout: MaxFailures wrong passwords lock it for
// LockFor. Wrong credentials are EUnauthorized; a locked account is
// ETooMany with RetryAfter.
func (s *Server) SignIn(ctx context.Context, kind, email, password string) (Login, error) {
	var login Login
	email, ok := loyalty.NormalizeEmail(email)
	var err error
	switch {
	case !ok:
		err = loyalty.Errorf(loyalty.ENotFound, "bad e-mail")
	case kind == KindOwner:
		login, err = s.Store.OwnerLogin(ctx, email)
	default:
		login, err = s.Store.AccountLogin(ctx, kind, email)
	}
	err = s.verifyLogin(ctx, login, err, password, s.now())
	if oe, ok := err.(*Error); ok {
		if oe.Status == http.StatusTooManyRequests {
			return Login{}, &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: oe.RetryAfter,
				Message: "Too many failed sign-in attempts. Try again later."}
		}
		return Login{}, loyalty.Errorf(loyalty.EUnauthorized, "The e-mail address or password is incorrect.")
	}
	return login, err
}

// SignInMember checks the PIN of a member of businessID, named by e-mail
// or phone (read with country), as the user API's password grant does,
// under its lockout. Wrong credentials, or a person who is not a member,
// are EUnauthorized; a locked account is ETooMany with RetryAfter. The
// login's kind is KindMember, bound to businessID, for StartSession.
func (s *Server) SignInMember(ctx context.Context, businessID, username, country, pin string) (Login, error) {
	login, err := s.userLogin(ctx, TokenRequest{Username: username, Country: country, BusinessIDs: []string{businessID}})
	err = s.verifyLogin(ctx, login, err, pin, s.now())
	if oe, ok := err.(*Error); ok {
		if oe.Status == http.StatusTooManyRequests {
			return Login{}, &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: oe.RetryAfter,
				Message: "Too many wrong PINs. Try again later, or sign in with a code."}
		}
		return Login{}, loyalty.Errorf(loyalty.EUnauthorized, "The e-mail address, phone number or PIN is incorrect.")
	}
	if err != nil {
		return Login{}, err
	}
	login.Kind, login.BusinessID = KindMember, businessID
	return login, nil
}

// CheckMemberPIN checks the PIN of userID, a member of businessID signed
// in already, before an action that asks for it again (erasing the
// account), under the same lockout as SignInMember. A wrong PIN is
// EUnauthorized; a locked account is ETooMany with RetryAfter.
func (s *Server) CheckMemberPIN(ctx context.Context, businessID, userID, pin string) error {
	login, err := s.Store.UserLoginByID(ctx, userID, []string{businessID})
	err = s.verifyLogin(ctx, login, err, pin, s.now())
	if oe, ok := err.(*Error); ok {
		if oe.Status == http.StatusTooManyRequests {
			return &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: oe.RetryAfter,
				Message: "Too many wrong PINs. Try again later."}
		}
		return loyalty.Errorf(loyalty.EUnauthorized, "The PIN is incorrect.")
	}
	return err
}

// MemberLogin is the login of a member of businessID whose identity was
// proved another way (a one-time code), for StartSession.
func MemberLogin(businessID, userID string) Login {
	return Login{Kind: KindMember, ID: userID, BusinessID: businessID}
}

// verifyLogin checks password against a sign-in candidate (lookupErr is
// the lookup's error: ENotFound when nobody matched). A locked account is a
// 429 *Error and wrong credentials an invalid_grant *Error; an unknown
// account costs as much time as a known one.
func (s *Server) verifyLogin(ctx context.Context, login Login, lookupErr error, password string, now time.Time) error {
	if lookupErr != nil && loyalty.ErrorCode(lookupErr) != loyalty.ENotFound {
		return lookupErr
	}
	found := lookupErr == nil
	if found && login.LockedUntil.After(now) {
		secs := int(login.LockedUntil.Sub(now).Seconds()) + 1
		return &Error{Status: http.StatusTooManyRequests, Code: "invalid_grant",
			Description: "Too many failed attempts; try again later.", RetryAfter: secs}
	}
	hash := login.Hash
	if !found || hash == "" {
		hash = s.dummy
	}
	ok, err := s.Hash.VerifyPassword(ctx, hash, password)
	if err != nil {
		return err
	}
	if !found || login.Hash == "" {
		return errInvalidGrant("The user credentials were incorrect.")
	}
	if err := s.Store.RecordLogin(ctx, login.Kind, login.ID, ok, now); err != nil {
		return err
	}
	if !ok {
		return errInvalidGrant("The user credentials were incorrect.")
	}
	return nil
}

// StartSession signs a browser in as login and returns the cookie value;
// only its hash is stored, so a copy of the database opens no session.
func (s *Server) StartSession(ctx context.Context, login Login, email string) (string, Session, error) {
	token := RandomToken()
	now := s.now()
	sess := Session{Kind: login.Kind, SubjectID: login.ID, BusinessID: login.BusinessID, Email: email,
		CreatedAt: now, ExpiresAt: now.Add(SessionTTL), LastSeen: now}
	if err := s.Store.InsertSession(ctx, s.Hash.Token(token), sess); err != nil {
		return "", Session{}, err
	}
	return token, sess, nil
}

// Session returns the live session of kind that the cookie value opens;
// a missing, expired or other-kind session is EUnauthorized.
func (s *Server) Session(ctx context.Context, kind, token string) (Session, error) {
	if token == "" {
		return Session{}, loyalty.Errorf(loyalty.EUnauthorized, "Not signed in.")
	}
	hash := s.Hash.Token(token)
	sess, err := s.Store.SessionByHash(ctx, hash)
	now := s.now()
	if loyalty.ErrorCode(err) == loyalty.ENotFound || (err == nil && (sess.Kind != kind || !sess.ExpiresAt.After(now) ||
		!sess.LastSeen.Add(SessionIdle).After(now))) {
		return Session{}, loyalty.Errorf(loyalty.EUnauthorized, "Not signed in.")
	} else if err != nil {
		return Session{}, err
	}
	if now.Sub(sess.LastSeen) >= sessionTouch {
		if err := s.Store.TouchSession(ctx, hash, now); err != nil {
			return Session{}, err
		}
		sess.LastSeen = now
	}
	return sess, nil
}

// EndSession signs the browser holding token out.
func (s *Server) EndSession(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return s.Store.DeleteSession(ctx, s.Hash.Token(token))
}
