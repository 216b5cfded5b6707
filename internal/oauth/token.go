package oauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Lifetimes and limits of the token endpoint.
const (
	AccessTTL   = 24 * time.Hour
	RefreshTTL  = 30 * 24 * time.Hour
	MaxFailures = 5
	LockFor     = 15 * time.Minute
)

// Token is an issued access and refresh token pair as stored.
type Token struct {
	ID               string
	ChainID          string
	AppID            string
	AppStatus        string
	TenantID         string // business or coalition of the Application Key it was issued under
	BusinessID       string // the owner's business, for admin tokens
	SubjectKind      string // "owner" or "user"
	SubjectID        string
	Scope            string
	AccessHash       []byte
	RefreshHash      []byte
	AccessExpiresAt  time.Time
	RefreshExpiresAt time.Time
	Key              loyalty.Tenant // the Application Key sent with the token, when the lookup resolved it
	Revoked          bool
	Spent            bool
	CreatedAt        time.Time
}

// TokenResponse is the token endpoint's reply (spec 2.11).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	TokenType    string `json:"token_type"`
}

// Error is an RFC 6749 section 5.2 error.
type Error struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
	RetryAfter  int    `json:"-"`
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Description }

func errInvalidRequest(d string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_request", Description: d}
}
func errInvalidClient() *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "invalid_client", Description: "Client authentication failed."}
}
func errInvalidGrant(d string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_grant", Description: d}
}
func errUnauthorizedClient(d string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "unauthorized_client", Description: d}
}
func errInvalidScope(d string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_scope", Description: d}
}

// TokenRequest is a parsed token endpoint request.
type TokenRequest struct {
	GrantType    string
	ClientID     string
	ClientSecret string
	Username     string
	Password     string
	Scope        string
	RefreshToken string
	Code         string // authorization_code grant: the code, the callback it was sent to, the PKCE verifier
	RedirectURI  string
	CodeVerifier string
	Tenant       loyalty.Tenant // resolved from X-Application-Key or application_key; zero when neither was sent
	AppKeyForm   string         // the application_key form field
	Country      string         // how to read a local phone username
	BusinessIDs  []string       // businesses the tenant covers
}

// Server issues and checks tokens.
type Server struct {
	Store Store
	Hash  *Hasher
	Clock func() time.Time
	dummy string
}

// NewServer returns a Server. It precomputes a dummy hash so that an
// unknown username costs as much time as a wrong password.
func NewServer(ctx context.Context, store Store, h *Hasher) (*Server, error) {
	dummy, err := dummyHash(ctx, h)
	if err != nil {
		return nil, err
	}
	return &Server{Store: store, Hash: h, Clock: time.Now, dummy: dummy}, nil
}

var (
	dummyMu        sync.Mutex
	processDummies = map[Cost]string{} // the process's dummy hash of each cost, once made
)

// dummyHash returns the process's dummy hash of h's cost, made on the
// first call: it only has to cost what verifying a real one costs, so the
// Servers of one process can share it (a test process opens hundreds,
// each paying 19 MiB of argon2 for it otherwise).
func dummyHash(ctx context.Context, h *Hasher) (string, error) {
	dummyMu.Lock()
	defer dummyMu.Unlock()
	d, ok := processDummies[h.cost]
	if !ok {
		var err error
		if d, err = h.Password(ctx, RandomToken()); err != nil {
			return "", err
		}
		processDummies[h.cost] = d
	}
	return d, nil
}

func (s *Server) now() time.Time { return s.Clock().UTC().Truncate(time.Second) }

// Token answers a token request.
func (s *Server) Token(ctx context.Context, r TokenRequest) (TokenResponse, error) {
	app, err := s.client(ctx, r)
	if err != nil {
		return TokenResponse{}, err
	}
	if r.Scope != "" && r.Scope != ScopeOf(app.API) {
		return TokenResponse{}, errInvalidScope("The scope must be " + ScopeOf(app.API) + " for this app.")
	}
	switch r.GrantType {
	case GrantPassword:
		return s.password(ctx, app, r)
	case GrantRefresh:
		return s.refresh(ctx, app, r)
	case "":
		return TokenResponse{}, errInvalidRequest("The grant_type parameter is required.")
	case GrantCode:
		return s.authorizationCode(ctx, app, r)
	default:
		return TokenResponse{}, &Error{Status: http.StatusBadRequest, Code: "unsupported_grant_type", Description: "The grant type is not supported."}
	}
}

// client authenticates the app and checks it may use the grant.
func (s *Server) client(ctx context.Context, r TokenRequest) (App, error) {
	if r.ClientID == "" || r.ClientSecret == "" {
		return App{}, errInvalidClient()
	}
	app, err := s.Store.AppByClientID(ctx, r.ClientID)
	if err != nil {
		if loyalty.ErrorCode(err) == loyalty.ENotFound {
			return App{}, errInvalidClient()
		}
		return App{}, err
	}
	if !equalHash(app.SecretHash, s.Hash.Token(r.ClientSecret)) {
		return App{}, errInvalidClient()
	}
	if app.Status != AppApproved {
		return App{}, errUnauthorizedClient("The app is not approved.")
	}
	if r.GrantType == GrantPassword && app.GrantType != GrantPassword {
		return App{}, errUnauthorizedClient("The app is not registered for the password grant.")
	}
	return app, nil
}

func (s *Server) password(ctx context.Context, app App, r TokenRequest) (TokenResponse, error) {
	if r.Scope == "" {
		return TokenResponse{}, errInvalidScope("The scope parameter is required.")
	}
	// The spec's password flow lists application_key among the form
	// parameters it requires; the header alone does not stand in for it.
	if r.AppKeyForm == "" {
		return TokenResponse{}, errInvalidRequest("The application_key parameter is required (the X-Application-Key header does not replace it).")
	}
	if r.AppKeyForm != r.Tenant.Key {
		return TokenResponse{}, errInvalidRequest("The application_key does not match the X-Application-Key header.")
	}
	if r.Username == "" || r.Password == "" {
		return TokenResponse{}, errInvalidRequest("The username and password parameters are required.")
	}
	var login Login
	var err error
	if app.API == APIBusiness {
		email, ok := loyalty.NormalizeEmail(r.Username)
		if ok {
			login, err = s.Store.OwnerLogin(ctx, email)
		} else {
			err = loyalty.Errorf(loyalty.ENotFound, "no such owner")
		}
		if err == nil && (r.Tenant.BusinessID != login.BusinessID) {
			err = loyalty.Errorf(loyalty.ENotFound, "owner of another business")
		}
	} else {
		login, err = s.userLogin(ctx, r)
	}
	now := s.now()
	if err := s.verifyLogin(ctx, login, err, r.Password, now); err != nil {
		return TokenResponse{}, err
	}
	t := Token{ID: loyalty.NewID(), AppID: app.ID, TenantID: r.Tenant.ID(), BusinessID: login.BusinessID,
		SubjectKind: login.Kind, SubjectID: login.ID, Scope: ScopeOf(app.API)}
	t.ChainID = t.ID
	return s.issue(ctx, t, now)
}

func (s *Server) userLogin(ctx context.Context, r TokenRequest) (Login, error) {
	name := strings.TrimSpace(r.Username)
	if strings.Contains(name, "@") {
		email, ok := loyalty.NormalizeEmail(name)
		if !ok {
			return Login{}, loyalty.Errorf(loyalty.ENotFound, "bad e-mail")
		}
		return s.Store.UserLogin(ctx, email, r.BusinessIDs)
	}
	phone, ok := loyalty.NormalizePhone(name, r.Country)
	if !ok {
		return Login{}, loyalty.Errorf(loyalty.ENotFound, "bad phone")
	}
	return s.Store.UserLogin(ctx, phone, r.BusinessIDs)
}

// issue stores a new token pair built on t and returns it.
func (s *Server) issue(ctx context.Context, t Token, now time.Time) (TokenResponse, error) {
	access, refresh := RandomToken(), RandomToken()
	t.AccessHash, t.RefreshHash = s.Hash.Token(access), s.Hash.Token(refresh)
	t.CreatedAt = now
	t.AccessExpiresAt = now.Add(AccessTTL)
	t.RefreshExpiresAt = now.Add(RefreshTTL)
	if err := s.Store.InsertToken(ctx, &t); err != nil {
		return TokenResponse{}, err
	}
	return TokenResponse{AccessToken: access, RefreshToken: refresh, ExpiresIn: int64(AccessTTL / time.Second), TokenType: "Bearer"}, nil
}

func (s *Server) refresh(ctx context.Context, app App, r TokenRequest) (TokenResponse, error) {
	if r.RefreshToken == "" {
		return TokenResponse{}, errInvalidRequest("The refresh_token parameter is required.")
	}
	now := s.now()
	hash := s.Hash.Token(r.RefreshToken)
	// Whom the token belongs to is checked before it is used, so a request
	// from the wrong client or key cannot burn someone else's token.
	found, err := s.Store.Refresh(ctx, hash)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return TokenResponse{}, errInvalidGrant("The refresh token is invalid.")
	} else if err != nil {
		return TokenResponse{}, err
	}
	switch {
	case found.AppID != app.ID:
		return TokenResponse{}, errInvalidGrant("The refresh token was not issued to this client.")
	case r.Tenant.Key != "" && r.Tenant.ID() != found.TenantID:
		// Without a key the token's own tenant stands; a key that is sent
		// must be the one the token was issued under.
		return TokenResponse{}, errInvalidGrant("The refresh token belongs to another Application Key.")
	}
	old, err := s.Store.SpendRefresh(ctx, hash, now)
	if err != nil {
		return TokenResponse{}, err
	}
	switch {
	case old.Spent:
		return TokenResponse{}, errInvalidGrant("The refresh token was already used; every token issued from it is revoked.")
	case old.Revoked:
		return TokenResponse{}, errInvalidGrant("The refresh token is revoked.")
	case !old.RefreshExpiresAt.After(now):
		return TokenResponse{}, errInvalidGrant("The refresh token has expired.")
	}
	next := old
	next.ID = loyalty.NewID()
	next.Revoked, next.Spent = false, false
	return s.issue(ctx, next, now)
}

// ErrTokenInvalid is returned by Authenticate for a missing, unknown,
// expired or revoked token, or one of a suspended app.
var ErrTokenInvalid = errors.New("oauth: invalid access token")

// Authenticate returns the token an access token string stands for.
func (s *Server) Authenticate(ctx context.Context, access string) (Token, error) {
	return s.AuthenticateForKey(ctx, access, "")
}

// AuthenticateForKey is Authenticate that also resolves the Application
// Key sent with the token into Token.Key, in the same lookup.
func (s *Server) AuthenticateForKey(ctx context.Context, access, appKey string) (Token, error) {
	return s.AuthenticateWith(ctx, access, func(ctx context.Context, accessHash []byte) (Token, error) {
		return s.Store.AccessForKey(ctx, accessHash, appKey)
	})
}

// AuthenticateWith is Authenticate through the caller's own lookup of the
// token by its access hash, for a caller that reads more in the same query
// (the ledger routes read the token's business with it): the token is
// checked as Authenticate checks it.
func (s *Server) AuthenticateWith(ctx context.Context, access string, lookup func(ctx context.Context, accessHash []byte) (Token, error)) (Token, error) {
	if access == "" {
		return Token{}, ErrTokenInvalid
	}
	t, err := lookup(ctx, s.Hash.Token(access))
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return Token{}, ErrTokenInvalid
	} else if err != nil {
		return Token{}, err
	}
	if t.Revoked || t.AppStatus != AppApproved || !t.AccessExpiresAt.After(s.Clock()) {
		return Token{}, ErrTokenInvalid
	}
	return t, nil
}

// CreateApp registers an app and returns its one-time client secret.
func (s *Server) CreateApp(ctx context.Context, n NewApp) (CreatedApp, error) {
	if err := n.Validate(); err != nil {
		return CreatedApp{}, err
	}
	secret := RandomToken()
	a := App{ID: loyalty.NewID(), ClientID: loyalty.NewID(), SecretHash: s.Hash.Token(secret),
		Name: n.Name, Description: n.Description, RedirectURI: n.RedirectURI, GrantType: n.GrantType, API: n.API,
		Status: AppPending, DeveloperID: n.DeveloperID, CreatedAt: s.now()}
	if n.Approve {
		a.Status = AppApproved
	}
	if err := s.Store.InsertApp(ctx, &a); err != nil {
		return CreatedApp{}, err
	}
	return CreatedApp{ClientID: a.ClientID, ClientSecret: secret, Approved: n.Approve}, nil
}
