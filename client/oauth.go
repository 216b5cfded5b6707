package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Scopes of the two APIs: a business-API app asks for ScopeAdmin, a
// user-API app for ScopeUser.
const (
	ScopeAdmin = "admin"
	ScopeUser  = "user"
)

// OAuth is a registered app talking to Loyalty's authorization server
// (POST /oauth/token). Its methods start a session, a *Tokens, which New
// uses to sign API requests.
type OAuth struct {
	BaseURL        string // the service's root URL, e.g. https://loyalty.example.com
	ApplicationKey string // sent as X-Application-Key (and as the password grant's application_key)
	ClientID       string
	ClientSecret   string
	RedirectURL    string       // authorization-code apps: the registered callback URL
	HTTPClient     *http.Client // nil: http.DefaultClient

	// OnToken, when set, is called with every token pair issued to a
	// session of this OAuth, under the session's lock: refresh tokens are
	// single-use, so an app that keeps its session across restarts must
	// store each new one (and give it to Resume).
	OnToken func(*oauth2.Token)
}

// TokenError is a refusal of the token endpoint (RFC 6749 section 5.2).
type TokenError struct {
	Status      int    // HTTP status
	Code        string // invalid_grant, invalid_client, invalid_request, ...
	Description string
}

func (e *TokenError) Error() string {
	return fmt.Sprintf("loyalty: token endpoint: %d %s: %s", e.Status, e.Code, e.Description)
}

// Password signs in with the password grant: for a business-API app the
// owner's e-mail and password with ScopeAdmin, for a user-API app the
// user's e-mail or phone and PIN with ScopeUser.
func (o *OAuth) Password(ctx context.Context, username, password, scope string) (*Tokens, error) {
	tok, err := o.token(ctx, TokenRequest{GrantType: ptr("password"), Username: &username, Password: &password,
		Scope: &scope, ApplicationKey: ptr(o.ApplicationKey)})
	if err != nil {
		return nil, err
	}
	return o.session(tok), nil
}

// NewVerifier returns a fresh PKCE code verifier for AuthCodeURL and
// Exchange; keep it (with the state) until the callback comes.
func NewVerifier() string { return oauth2.GenerateVerifier() }

// AuthCodeURL is where to send the business owner's browser to approve
// the app (the authorization-code flow). state comes back unchanged to
// the callback; verifier (from NewVerifier) binds the code to this
// client with PKCE S256.
func (o *OAuth) AuthCodeURL(state, verifier string) string {
	q := url.Values{
		"client_id": {o.ClientID}, "redirect_uri": {o.RedirectURL}, "response_type": {"code"}, "scope": {ScopeAdmin},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"},
	}
	if state != "" {
		q.Set("state", state)
	}
	return strings.TrimRight(o.BaseURL, "/") + "/oauth/authorize?" + q.Encode()
}

// Exchange trades the code the callback received for a session; verifier
// is the one given to AuthCodeURL.
func (o *OAuth) Exchange(ctx context.Context, code, verifier string) (*Tokens, error) {
	req := TokenRequest{GrantType: ptr("authorization_code"), Code: &code, RedirectUri: &o.RedirectURL}
	if verifier != "" {
		req.CodeVerifier = &verifier
	}
	tok, err := o.token(ctx, req)
	if err != nil {
		return nil, err
	}
	return o.session(tok), nil
}

// Resume continues a session from a refresh token stored earlier; its
// first use refreshes it.
func (o *OAuth) Resume(refreshToken string) *Tokens {
	return o.session(&oauth2.Token{RefreshToken: refreshToken})
}

// Revoke revokes token, an access or a refresh token of this app (RFC
// 7009); revoking a refresh token revokes every token of its chain.
func (o *OAuth) Revoke(ctx context.Context, token string) error {
	resp, err := o.generated().RevokeTokenWithFormdataBodyWithResponse(ctx, RevokeTokenFormdataRequestBody{
		Token: &token, ClientId: &o.ClientID, ClientSecret: &o.ClientSecret}, o.withKey)
	if err != nil {
		return err
	}
	if resp.StatusCode() != http.StatusOK {
		return tokenError(resp.StatusCode(), resp.Body)
	}
	return nil
}

func (o *OAuth) session(tok *oauth2.Token) *Tokens {
	t := &Tokens{oauth: o, tok: tok, lock: make(chan struct{}, 1)}
	if tok.AccessToken != "" && o.OnToken != nil {
		o.OnToken(tok)
	}
	return t
}

// refresh trades a refresh token for a new pair (and spends it).
func (o *OAuth) refresh(ctx context.Context, refreshToken string) (*oauth2.Token, error) {
	return o.token(ctx, TokenRequest{GrantType: ptr("refresh_token"), RefreshToken: &refreshToken})
}

// token posts one token request with the app's credentials. It is never
// retried: a refresh token or a code is spent by the first request that
// reaches the server, and a second use revokes the chain.
func (o *OAuth) token(ctx context.Context, req TokenRequest) (*oauth2.Token, error) {
	req.ClientId, req.ClientSecret = &o.ClientID, &o.ClientSecret
	if req.ApplicationKey != nil && *req.ApplicationKey == "" {
		req.ApplicationKey = nil
	}
	resp, err := o.generated().CreateTokenWithFormdataBodyWithResponse(ctx, req, o.withKey)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode() != http.StatusOK || resp.JSON200 == nil {
		return nil, tokenError(resp.StatusCode(), resp.Body)
	}
	tr := resp.JSON200
	tok := &oauth2.Token{AccessToken: tr.AccessToken, RefreshToken: tr.RefreshToken, TokenType: string(tr.TokenType)}
	if tr.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return tok, nil
}

func (o *OAuth) generated() *ClientWithResponses {
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	// NewClientWithResponses fails only when an option does, and
	// WithHTTPClient never does.
	c, _ := NewClientWithResponses(o.BaseURL, WithHTTPClient(hc))
	return c
}

func (o *OAuth) withKey(_ context.Context, req *http.Request) error {
	if o.ApplicationKey != "" {
		req.Header.Set("X-Application-Key", o.ApplicationKey)
	}
	return nil
}

// tokenError reads an RFC 6749 error body (or says what came instead).
func tokenError(status int, body []byte) error {
	var oe OAuthError
	if err := json.Unmarshal(body, &oe); err != nil || oe.Error == "" {
		return &TokenError{Status: status, Code: "unexpected_response", Description: truncate(body, 200)}
	}
	e := &TokenError{Status: status, Code: oe.Error}
	if oe.ErrorDescription != nil {
		e.Description = *oe.ErrorDescription
	}
	return e
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }
