package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// CodeTTL is how long an authorization code can be exchanged.
const CodeTTL = 10 * time.Minute

// CodeChallengeMethods are the PKCE methods CheckAuthorize accepts.
var CodeChallengeMethods = []string{"S256"}

// Code is an authorization code as stored. Its id is also the chain id of
// the tokens it issues, so a reuse can revoke them.
type Code struct {
	ID            string
	Hash          []byte
	AppID         string
	BusinessID    string
	OwnerID       string
	RedirectURI   string
	Scope         string
	CodeChallenge string // PKCE S256 challenge; empty when none was sent
	CreatedAt     time.Time
	ExpiresAt     time.Time
	Used          bool
}

// CodeStore is the storage of authorization codes.
type CodeStore interface {
	// InsertCode stores a code and records the owner's consent to its app.
	InsertCode(ctx context.Context, c *Code) error
	// CodeByHash returns a code, used or not.
	CodeByHash(ctx context.Context, hash []byte) (Code, error)
	// SpendCode marks a code used. A code already used is returned with
	// Used set, the tokens it issued are revoked and the consent to its
	// app is no longer remembered.
	SpendCode(ctx context.Context, hash []byte, now time.Time) (Code, error)
	// Consented reports whether the business's owner approved the app and
	// has not revoked it since.
	Consented(ctx context.Context, appID, businessID string) (bool, error)
}

// AuthorizeRequest is the query of GET /oauth/authorize.
type AuthorizeRequest struct {
	ClientID            string
	RedirectURI         string
	ResponseType        string
	Scope               string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
	Prompt              string // "consent" shows the consent page even to an app approved before
	// Repeated names a parameter the request sent more than once (RFC
	// 6749 section 3.1 forbids it), or is empty.
	Repeated string
}

// AuthorizeError is a failed authorization request. With Redirect set it
// goes back to the app's registered callback; otherwise it is shown to the
// user and never redirected (unknown client, wrong redirect_uri).
type AuthorizeError struct {
	Code        string
	Description string
	Redirect    bool
}

// Error implements error.
func (e *AuthorizeError) Error() string { return e.Code + ": " + e.Description }

// Authorization is an authorization request whose app and callback were
// checked.
type Authorization struct {
	App     App
	Request AuthorizeRequest
}

func pageError(code, d string) *AuthorizeError { return &AuthorizeError{Code: code, Description: d} }

// CheckAuthorize checks an authorization request (spec section 5). The
// client and the callback are checked first: until both are known good,
// errors are *AuthorizeError without Redirect.
func (s *Server) CheckAuthorize(ctx context.Context, r AuthorizeRequest) (Authorization, error) {
	if r.Repeated == "client_id" || r.Repeated == "redirect_uri" {
		return Authorization{}, pageError("invalid_request", "The "+r.Repeated+" parameter is repeated.")
	}
	if !loyalty.ValidID(r.ClientID) {
		return Authorization{}, pageError("invalid_client", "The link names no app that is registered here.")
	}
	app, err := s.Store.AppByClientID(ctx, r.ClientID)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return Authorization{}, pageError("invalid_client", "The link names no app that is registered here.")
	} else if err != nil {
		return Authorization{}, err
	}
	switch {
	case app.Status != AppApproved:
		return Authorization{}, pageError("unauthorized_client", "This app has not been approved by Loyalty support, or was suspended.")
	case app.GrantType != GrantCode || app.API != APIBusiness:
		return Authorization{}, pageError("unauthorized_client", "This app is not registered for the authorization-code flow.")
	case r.RedirectURI == "" || r.RedirectURI != app.RedirectURI:
		// Exact match, scheme, case and trailing slash included (spec 5).
		return Authorization{}, pageError("invalid_request", "The redirect_uri does not match the callback URL the app registered.")
	}
	a := Authorization{App: app, Request: r}
	redirect := func(code, d string) (Authorization, error) {
		return a, &AuthorizeError{Code: code, Description: d, Redirect: true}
	}
	if r.Repeated != "" {
		return redirect("invalid_request", "The "+r.Repeated+" parameter is repeated.")
	}
	if r.ResponseType != "code" {
		return redirect("unsupported_response_type", "The response_type must be code.")
	}
	if scope := strings.Fields(r.Scope); len(scope) != 1 || scope[0] != ScopeAdmin {
		return redirect("invalid_scope", "The scope must be admin.")
	}
	if r.CodeChallenge != "" || r.CodeChallengeMethod != "" {
		if !slices.Contains(CodeChallengeMethods, r.CodeChallengeMethod) {
			return redirect("invalid_request", "The code_challenge_method must be S256.")
		}
		if !validChallenge(r.CodeChallenge) {
			return redirect("invalid_request", "The code_challenge must be the base64url SHA-256 of the verifier (43 characters).")
		}
	}
	if len(r.State) > 2000 {
		return redirect("invalid_request", "The state is too long.")
	}
	return a, nil
}

func validChallenge(c string) bool {
	b, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil && len(b) == sha256.Size && len(c) == 43
}

// Callback returns the registered callback URL with params added to its
// query, and the request's state when it had one.
func (a Authorization) Callback(params url.Values) string {
	u, err := url.Parse(a.App.RedirectURI)
	if err != nil {
		// Validated at registration; an unreadable one is never redirected to.
		return ""
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if a.Request.State != "" {
		q.Set("state", a.Request.State)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// ErrorCallback returns the callback URL carrying an error.
func (a Authorization) ErrorCallback(e *AuthorizeError) string {
	return a.Callback(url.Values{"error": {e.Code}, "error_description": {e.Description}})
}

// Deny returns the callback URL telling the app the owner said no.
func (a Authorization) Deny() string {
	return a.Callback(url.Values{"error": {"access_denied"}, "error_description": {"The owner denied the request."}})
}

// Remembered reports whether the owner's business already approved the
// app of a (and has not revoked it since), so the flow can skip the
// consent page; a request with prompt=consent is never remembered.
func (s *Server) Remembered(ctx context.Context, a Authorization, owner Session) (bool, error) {
	if owner.Kind != KindOwner || owner.BusinessID == "" || a.Request.Prompt == "consent" {
		return false, nil
	}
	return s.Store.Consented(ctx, a.App.ID, owner.BusinessID)
}

// Approve issues a code for the owner signed in as owner, records the
// consent, and returns the callback URL carrying the code.
func (s *Server) Approve(ctx context.Context, a Authorization, owner Session) (string, error) {
	if owner.Kind != KindOwner || owner.BusinessID == "" {
		return "", loyalty.Errorf(loyalty.EForbidden, "Only a business owner can approve an app.")
	}
	code := RandomToken()
	now := s.now()
	c := Code{ID: loyalty.NewID(), Hash: s.Hash.Token(code), AppID: a.App.ID, BusinessID: owner.BusinessID,
		OwnerID: owner.SubjectID, RedirectURI: a.Request.RedirectURI, Scope: ScopeAdmin,
		CodeChallenge: a.Request.CodeChallenge, CreatedAt: now, ExpiresAt: now.Add(CodeTTL)}
	if err := s.Store.InsertCode(ctx, &c); err != nil {
		return "", err
	}
	return a.Callback(url.Values{"code": {code}}), nil
}

// authorizationCode exchanges a code for tokens (spec section 5, step 3).
// Who may use the code is checked before it is spent, so a wrong client,
// callback, key or verifier cannot burn the owner's code.
func (s *Server) authorizationCode(ctx context.Context, app App, r TokenRequest) (TokenResponse, error) {
	if app.GrantType != GrantCode {
		return TokenResponse{}, errUnauthorizedClient("The app is not registered for the authorization_code grant.")
	}
	if r.Code == "" || r.RedirectURI == "" {
		return TokenResponse{}, errInvalidRequest("The code and redirect_uri parameters are required.")
	}
	hash := s.Hash.Token(r.Code)
	c, err := s.Store.CodeByHash(ctx, hash)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return TokenResponse{}, errInvalidGrant("The authorization code is invalid.")
	} else if err != nil {
		return TokenResponse{}, err
	}
	switch {
	case c.AppID != app.ID:
		return TokenResponse{}, errInvalidGrant("The authorization code was not issued to this client.")
	case c.RedirectURI != r.RedirectURI:
		return TokenResponse{}, errInvalidGrant("The redirect_uri does not match the one the code was issued for.")
	case r.Tenant.Key != "" && r.Tenant.BusinessID != c.BusinessID:
		return TokenResponse{}, errInvalidGrant("The code was issued for another business than the X-Application-Key's.")
	}
	// Without a key the tokens belong to the business of the code, as if
	// its own key had been sent.
	tenantID := c.BusinessID
	if err := checkVerifier(c.CodeChallenge, r.CodeVerifier); err != nil {
		return TokenResponse{}, err
	}
	now := s.now()
	reused := errInvalidGrant("The authorization code was already used; the tokens issued with it are revoked.")
	if c.Used {
		if _, err := s.Store.SpendCode(ctx, hash, now); err != nil {
			return TokenResponse{}, err
		}
		return TokenResponse{}, reused
	}
	if !c.ExpiresAt.After(now) {
		return TokenResponse{}, errInvalidGrant("The authorization code has expired.")
	}
	// The tokens are stored before the code is spent: when two exchanges
	// race, the loser's SpendCode revokes the chain with both pairs in it,
	// so no token of a reused code survives.
	t := Token{ID: loyalty.NewID(), ChainID: c.ID, AppID: app.ID, TenantID: tenantID, BusinessID: c.BusinessID,
		SubjectKind: KindOwner, SubjectID: c.OwnerID, Scope: c.Scope}
	resp, err := s.issue(ctx, t, now)
	if err != nil {
		return TokenResponse{}, err
	}
	spent, err := s.Store.SpendCode(ctx, hash, now)
	if err != nil {
		return TokenResponse{}, err
	}
	if spent.Used {
		return TokenResponse{}, reused
	}
	return resp, nil
}

// checkVerifier applies PKCE (RFC 7636, S256 only). A verifier sent for a
// code issued without a challenge is refused too: it means the request
// was altered on the way.
func checkVerifier(challenge, verifier string) error {
	if challenge == "" {
		if verifier != "" {
			return errInvalidGrant("A code_verifier was sent but the authorization request had no code_challenge.")
		}
		return nil
	}
	if len(verifier) < 43 || len(verifier) > 128 || strings.Trim(verifier, verifierChars) != "" {
		return errInvalidGrant("The code_verifier is missing or malformed.")
	}
	sum := sha256.Sum256([]byte(verifier))
	if !equalHash([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) {
		return errInvalidGrant("The code_verifier does not match the code_challenge.")
	}
	return nil
}

const verifierChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
