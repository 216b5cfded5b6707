package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

var ctx = context.Background()

const ownerPassword = "correct horse battery"

// ownerHash is the argon2id hash of ownerPassword, computed once: hashing
// is slow on purpose.
var ownerHash = sync.OnceValues(func() (string, error) {
	return oauth.NewHasher(nil).Password(ctx, ownerPassword)
})

// authWorld is an authorization server on a real store, with a business,
// its key, and a clock the test moves.
type authWorld struct {
	db     *sqlstore.DB
	srv    *oauth.Server
	now    time.Time
	biz    loyalty.CreatedBusiness
	owner  string // owner e-mail
	tenant loyalty.Tenant
}

// eachServer runs fn as subtests on every engine, sharing one server per engine.
func eachServer(t *testing.T, subtests map[string]func(t *testing.T, w *authWorld)) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			db := testenv.Open(t, engine)
			srv, err := oauth.NewServer(ctx, db, oauth.NewHasher([]byte("test hmac key")))
			if err != nil {
				t.Fatal(err)
			}
			for name, fn := range subtests {
				t.Run(name, func(t *testing.T) {
					w := &authWorld{db: db, srv: srv, now: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
					srv.Clock = func() time.Time { return w.now }
					w.biz, w.owner = w.business(t)
					w.tenant = w.tenantOf(t, w.biz.ApplicationKey)
					fn(t, w)
				})
			}
		})
	}
}

// business creates a business whose owner signs in with ownerPassword.
func (w *authWorld) business(tb testing.TB) (loyalty.CreatedBusiness, string) {
	tb.Helper()
	hash, err := ownerHash()
	if err != nil {
		tb.Fatal(err)
	}
	id := loyalty.NewID()
	email := "owner-" + id + "@shop.example"
	cb, err := w.db.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Shop", LoyaltyType: loyalty.PerSpend, Country: "US",
		OwnerEmail: email, OwnerPassword: ownerPassword}, hash, "key-"+id)
	if err != nil {
		tb.Fatal(err)
	}
	return cb, email
}

func (w *authWorld) tenantOf(tb testing.TB, key string) loyalty.Tenant {
	tb.Helper()
	t, err := w.db.Tenant(ctx, key)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// app registers an approved app for api with grant.
func (w *authWorld) app(tb testing.TB, api, grant string) oauth.CreatedApp {
	tb.Helper()
	n := oauth.NewApp{Name: "Till", API: api, GrantType: grant, Approve: true}
	if grant == oauth.GrantCode {
		n.RedirectURI = "https://till.example/cb"
	}
	a, err := w.srv.CreateApp(ctx, n)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// ownerRequest is a password grant of the owner through app under the business key.
func (w *authWorld) ownerRequest(app oauth.CreatedApp, password string) oauth.TokenRequest {
	return oauth.TokenRequest{GrantType: oauth.GrantPassword, ClientID: app.ClientID, ClientSecret: app.ClientSecret,
		Username: w.owner, Password: password, Scope: oauth.ScopeAdmin, Tenant: w.tenant, AppKeyForm: w.tenant.Key,
		BusinessIDs: []string{w.biz.BusinessID}}
}

func (w *authWorld) signIn(tb testing.TB, app oauth.CreatedApp) oauth.TokenResponse {
	tb.Helper()
	resp, err := w.srv.Token(ctx, w.ownerRequest(app, ownerPassword))
	if err != nil {
		tb.Fatalf("password grant: %v", err)
	}
	return resp
}

func (w *authWorld) refresh(app oauth.CreatedApp, tenant loyalty.Tenant, refreshToken string) (oauth.TokenResponse, error) {
	return w.srv.Token(ctx, oauth.TokenRequest{GrantType: oauth.GrantRefresh, ClientID: app.ClientID,
		ClientSecret: app.ClientSecret, RefreshToken: refreshToken, Tenant: tenant})
}

// wantOAuthError fails the test unless err is the RFC 6749 error code with status.
func wantOAuthError(tb testing.TB, err error, code string, status int) *oauth.Error {
	tb.Helper()
	var e *oauth.Error
	if !errors.As(err, &e) || e.Code != code || e.Status != status {
		tb.Fatalf("error %v, want %s with status %d", err, code, status)
	}
	return e
}

// wantValid fails the test unless access authenticates.
func (w *authWorld) wantValid(tb testing.TB, access string) oauth.Token {
	tb.Helper()
	tok, err := w.srv.Authenticate(ctx, access)
	if err != nil {
		tb.Fatalf("Authenticate: %v, want a valid token", err)
	}
	return tok
}

// wantInvalid fails the test unless access is refused.
func (w *authWorld) wantInvalid(tb testing.TB, access string) {
	tb.Helper()
	if tok, err := w.srv.Authenticate(ctx, access); !errors.Is(err, oauth.ErrTokenInvalid) {
		tb.Fatalf("Authenticate = %+v, %v; want ErrTokenInvalid", tok, err)
	}
}

func TestServer(t *testing.T) {
	eachServer(t, map[string]func(t *testing.T, w *authWorld){
		"OwnerPasswordGrant":   testOwnerPasswordGrant,
		"PasswordGrantRefused": testPasswordGrantRefused,
		"ClientChecks":         testClientChecks,
		"RefreshRotates":       testRefreshRotates,
		"RefreshOtherClient":   testRefreshOtherClient,
		"RefreshOtherKey":      testRefreshOtherKey,
		"RefreshExpiry":        testRefreshExpiry,
		"AccessExpiry":         testAccessExpiry,
		"SuspendedApp":         testSuspendedApp,
		"Lockout":              testLockout,
		"UserPasswordGrant":    testUserPasswordGrant,
	})
}

func testOwnerPasswordGrant(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	req := w.ownerRequest(app, ownerPassword)
	req.Username = "  " + strings.ToUpper(req.Username) + " " // neither case nor surrounding spaces matter
	resp, err := w.srv.Token(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ExpiresIn != 86400 || resp.TokenType != "Bearer" || resp.AccessToken == "" || resp.RefreshToken == "" ||
		resp.AccessToken == resp.RefreshToken {
		t.Errorf("response = %+v", resp)
	}
	tok := w.wantValid(t, resp.AccessToken)
	if tok.SubjectKind != "owner" || tok.SubjectID != w.biz.OwnerID || tok.BusinessID != w.biz.BusinessID ||
		tok.TenantID != w.biz.BusinessID || tok.Scope != oauth.ScopeAdmin || !tok.AccessExpiresAt.Equal(w.now.Add(24*time.Hour)) {
		t.Errorf("token = %+v", tok)
	}
	w.wantInvalid(t, resp.RefreshToken)
	w.wantInvalid(t, "")
	w.wantInvalid(t, oauth.RandomToken())
}

func testPasswordGrantRefused(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	_, otherOwner := w.business(t)

	cases := []struct {
		name   string
		edit   func(*oauth.TokenRequest)
		code   string
		status int
	}{
		{"wrong password", func(r *oauth.TokenRequest) { r.Password = "wrong" }, "invalid_grant", 400},
		{"unknown owner", func(r *oauth.TokenRequest) { r.Username = "nobody@shop.example" }, "invalid_grant", 400},
		{"not an e-mail", func(r *oauth.TokenRequest) { r.Username = "owner" }, "invalid_grant", 400},
		{"owner of another business", func(r *oauth.TokenRequest) { r.Username = otherOwner }, "invalid_grant", 400},
		{"no application_key", func(r *oauth.TokenRequest) { r.AppKeyForm = "" }, "invalid_request", 400},
		{"application_key differs", func(r *oauth.TokenRequest) { r.AppKeyForm = "another-key" }, "invalid_request", 400},
		{"no password", func(r *oauth.TokenRequest) { r.Password = "" }, "invalid_request", 400},
		{"no scope", func(r *oauth.TokenRequest) { r.Scope = "" }, "invalid_scope", 400},
		{"user scope on the business API", func(r *oauth.TokenRequest) { r.Scope = oauth.ScopeUser }, "invalid_scope", 400},
	}
	for _, c := range cases {
		req := w.ownerRequest(app, ownerPassword)
		c.edit(&req)
		_, err := w.srv.Token(ctx, req)
		var e *oauth.Error
		if !errors.As(err, &e) || e.Code != c.code || e.Status != c.status {
			t.Errorf("%s: %v, want %s (%d)", c.name, err, c.code, c.status)
		}
	}
	// One wrong password is not a lock.
	w.signIn(t, app)
}

func testClientChecks(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	req := w.ownerRequest(app, ownerPassword)
	req.ClientSecret = oauth.RandomToken()
	_, err := w.srv.Token(ctx, req)
	wantOAuthError(t, err, "invalid_client", http.StatusUnauthorized)
	req = w.ownerRequest(app, ownerPassword)
	req.ClientID = loyalty.NewID()
	_, err = w.srv.Token(ctx, req)
	wantOAuthError(t, err, "invalid_client", http.StatusUnauthorized)
	req.ClientID, req.ClientSecret = "", ""
	_, err = w.srv.Token(ctx, req)
	wantOAuthError(t, err, "invalid_client", http.StatusUnauthorized)

	pending, err := w.srv.CreateApp(ctx, oauth.NewApp{Name: "Pending", API: oauth.APIBusiness, GrantType: oauth.GrantPassword})
	if err != nil || pending.Approved {
		t.Fatalf("CreateApp = %+v, %v", pending, err)
	}
	_, err = w.srv.Token(ctx, w.ownerRequest(pending, ownerPassword))
	wantOAuthError(t, err, "unauthorized_client", http.StatusBadRequest)
	if err := w.db.SetAppStatus(ctx, pending.ClientID, oauth.AppApproved); err != nil {
		t.Fatal(err)
	}
	w.signIn(t, pending)

	codeApp := w.app(t, oauth.APIBusiness, oauth.GrantCode)
	_, err = w.srv.Token(ctx, w.ownerRequest(codeApp, ownerPassword))
	wantOAuthError(t, err, "unauthorized_client", http.StatusBadRequest)

	req = w.ownerRequest(app, ownerPassword)
	req.GrantType = "client_credentials"
	_, err = w.srv.Token(ctx, req)
	wantOAuthError(t, err, "unsupported_grant_type", http.StatusBadRequest)
	req.GrantType = ""
	_, err = w.srv.Token(ctx, req)
	wantOAuthError(t, err, "invalid_request", http.StatusBadRequest)
}

func testRefreshRotates(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	first := w.signIn(t, app)
	w.now = w.now.Add(time.Hour)
	second, err := w.refresh(app, w.tenant, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Fatal("refresh returned the same tokens")
	}
	w.wantInvalid(t, first.AccessToken) // the old access token dies with its refresh
	tok := w.wantValid(t, second.AccessToken)
	if tok.SubjectID != w.biz.OwnerID || tok.TenantID != w.biz.BusinessID || !tok.AccessExpiresAt.Equal(w.now.Add(24*time.Hour)) {
		t.Errorf("refreshed token = %+v", tok)
	}

	// The old refresh token again: someone stole it. Everything issued from it dies.
	_, err = w.refresh(app, w.tenant, first.RefreshToken)
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	w.wantInvalid(t, second.AccessToken)
	_, err = w.refresh(app, w.tenant, second.RefreshToken)
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)

	_, err = w.refresh(app, w.tenant, oauth.RandomToken())
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	_, err = w.refresh(app, w.tenant, "")
	wantOAuthError(t, err, "invalid_request", http.StatusBadRequest)
}

func testRefreshOtherClient(t *testing.T, w *authWorld) {
	mine := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	theirs := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	resp := w.signIn(t, mine)
	_, err := w.refresh(theirs, w.tenant, resp.RefreshToken)
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	// The refused attempt did not burn the owner's session.
	w.wantValid(t, resp.AccessToken)
	if _, err := w.refresh(mine, w.tenant, resp.RefreshToken); err != nil {
		t.Errorf("the right client's refresh after another client's attempt: %v", err)
	}
}

func testRefreshOtherKey(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	resp := w.signIn(t, app)
	other, _ := w.business(t)
	_, err := w.refresh(app, w.tenantOf(t, other.ApplicationKey), resp.RefreshToken)
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	w.wantValid(t, resp.AccessToken)
	if _, err := w.refresh(app, w.tenant, resp.RefreshToken); err != nil {
		t.Errorf("refresh under the right key after a refused one: %v", err)
	}
}

func testRefreshExpiry(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	start := w.now
	resp := w.signIn(t, app)
	// 29 days later the refresh token still works (the access token does not).
	w.now = start.Add(29 * 24 * time.Hour)
	w.wantInvalid(t, resp.AccessToken)
	next, err := w.refresh(app, w.tenant, resp.RefreshToken)
	if err != nil {
		t.Fatalf("refresh after 29 days: %v", err)
	}
	// The new one lives 30 days from its own issue; 31 days unused kills it.
	w.now = w.now.Add(31 * 24 * time.Hour)
	_, err = w.refresh(app, w.tenant, next.RefreshToken)
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)

	w.now = start
	late := w.signIn(t, app)
	w.now = start.Add(30 * 24 * time.Hour)
	_, err = w.refresh(app, w.tenant, late.RefreshToken)
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
}

func testAccessExpiry(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	start := w.now
	resp := w.signIn(t, app)
	w.now = start.Add(24*time.Hour - time.Second)
	w.wantValid(t, resp.AccessToken)
	w.now = start.Add(24 * time.Hour)
	w.wantInvalid(t, resp.AccessToken)
}

func testSuspendedApp(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	resp := w.signIn(t, app)
	if err := w.db.SetAppStatus(ctx, app.ClientID, oauth.AppSuspended); err != nil {
		t.Fatal(err)
	}
	w.wantInvalid(t, resp.AccessToken)
	_, err := w.refresh(app, w.tenant, resp.RefreshToken)
	wantOAuthError(t, err, "unauthorized_client", http.StatusBadRequest)
	_, err = w.srv.Token(ctx, w.ownerRequest(app, ownerPassword))
	wantOAuthError(t, err, "unauthorized_client", http.StatusBadRequest)
}

func testLockout(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIBusiness, oauth.GrantPassword)
	for i := range oauth.MaxFailures {
		_, err := w.srv.Token(ctx, w.ownerRequest(app, "wrong"))
		if e := wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest); e.RetryAfter != 0 {
			t.Fatalf("failure %d already throttled: %+v", i+1, e)
		}
	}
	// Locked: even the right password is refused, with a Retry-After.
	w.now = w.now.Add(10 * time.Minute)
	_, err := w.srv.Token(ctx, w.ownerRequest(app, ownerPassword))
	e := wantOAuthError(t, err, "invalid_grant", http.StatusTooManyRequests)
	if e.RetryAfter < 4*60 || e.RetryAfter > 5*60+1 {
		t.Errorf("RetryAfter = %d s, want about 5 minutes (15 minutes from the last failure, 10 of them gone)", e.RetryAfter)
	}
	// After the lock, the right password works again.
	w.now = w.now.Add(5*time.Minute + time.Second)
	w.signIn(t, app)
}

func testUserPasswordGrant(t *testing.T, w *authWorld) {
	app := w.app(t, oauth.APIUser, oauth.GrantPassword)
	b, err := w.db.Business(ctx, w.biz.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	svc := loyalty.CustomerService{Store: w.db}
	c, err := svc.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@example.com"),
		Phone: loyalty.Some("(650) 253-0000"), CountryCode: loyalty.Some("US")})
	if err != nil {
		t.Fatal(err)
	}
	pin, err := w.srv.Hash.Password(ctx, "4321")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.SQL().ExecContext(ctx, `UPDATE users SET pin_hash = $1 WHERE id = $2`, pin, c.ID); err != nil {
		t.Fatal(err)
	}
	req := func(username, password string, businesses ...string) oauth.TokenRequest {
		return oauth.TokenRequest{GrantType: oauth.GrantPassword, ClientID: app.ClientID, ClientSecret: app.ClientSecret,
			Username: username, Password: password, Scope: oauth.ScopeUser, Tenant: w.tenant, AppKeyForm: w.tenant.Key,
			Country: "US", BusinessIDs: businesses}
	}
	for _, username := range []string{"Ann@Example.com", "650.253.0000", "+1 650 253 0000"} {
		resp, err := w.srv.Token(ctx, req(username, "4321", w.biz.BusinessID))
		if err != nil {
			t.Errorf("user %q: %v", username, err)
			continue
		}
		tok := w.wantValid(t, resp.AccessToken)
		if tok.SubjectKind != "user" || tok.SubjectID != c.ID || tok.Scope != oauth.ScopeUser || tok.BusinessID != "" {
			t.Errorf("user %q: token %+v", username, tok)
		}
	}
	other, _ := w.business(t)
	_, err = w.srv.Token(ctx, req("ann@example.com", "4321", other.BusinessID))
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	_, err = w.srv.Token(ctx, req("ann@example.com", "1234", w.biz.BusinessID))
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	// A customer whose PIN was never set cannot sign in with any PIN.
	if _, err := svc.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("nopin@example.com")}); err != nil {
		t.Fatal(err)
	}
	_, err = w.srv.Token(ctx, req("nopin@example.com", "0000", w.biz.BusinessID))
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	// An owner's password does not open the user API.
	_, err = w.srv.Token(ctx, req(w.owner, ownerPassword, w.biz.BusinessID))
	wantOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
}
