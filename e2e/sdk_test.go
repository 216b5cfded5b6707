package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/loyalty/loyalty/client"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
	"golang.org/x/oauth2"
)

// TestSDKSession: the SDK signs in with the password grant, renews the
// session by itself when the server lets the access token expire or it
// is revoked, and resumes a session from a stored refresh token.
func TestSDKSession(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		ctx := context.Background()
		var mu sync.Mutex
		var issued []*oauth2.Token
		oa := e.sdkOAuth(t)
		oa.OnToken = func(tok *oauth2.Token) {
			mu.Lock()
			defer mu.Unlock()
			issued = append(issued, tok)
		}
		last := func() *oauth2.Token {
			mu.Lock()
			defer mu.Unlock()
			return issued[len(issued)-1]
		}
		tokens, err := oa.Password(ctx, e.biz.Email, e.biz.Password, sdk.ScopeAdmin)
		if err != nil {
			t.Fatalf("password grant: %v", err)
		}
		api := e.sdk(t, e.url, tokens)
		me := func(what string) {
			t.Helper()
			r, err := api.GetMeWithResponse(ctx, nil)
			if err != nil || r.JSON200 == nil {
				t.Fatalf("%s: GET /me: %v %v", what, err, sdk.ResponseError(r.HTTPResponse, r.Body))
			}
			if r.JSON200.Data.Id != e.biz.ID {
				t.Fatalf("%s: GET /me is business %s, want %s", what, r.JSON200.Data.Id, e.biz.ID)
			}
		}
		me("signed in")
		first := last()

		// The server's clock passes the access token's lifetime; the SDK's
		// does not, so the first it hears of it is a 401.
		e.oauth.Advance(oauth.AccessTTL + time.Minute)
		me("after the access token expired")
		second := last()
		if len(issued) != 2 || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
			t.Fatalf("after expiry: %d token pairs issued, want a second, rotated one", len(issued))
		}
		(&client{e: e, key: e.biz.Key, token: first.AccessToken}).get(t, "/me").wantError(t, http.StatusUnauthorized)

		// Concurrent requests on an expired token refresh once: a second
		// refresh with the spent refresh token would revoke the session.
		e.oauth.Advance(oauth.AccessTTL + time.Minute)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { me("concurrent, after expiry") })
		}
		wg.Wait()
		if len(issued) != 3 {
			t.Fatalf("8 concurrent requests on an expired token: %d refreshes, want 1", len(issued)-2)
		}

		// A forced refresh rotates the pair; the old access token is refused.
		third := last()
		if _, err := tokens.Refresh(ctx, third.AccessToken); err != nil || len(issued) != 4 {
			t.Fatalf("forced refresh: %v, %d pairs issued, want 4", err, len(issued))
		}
		me("after a forced refresh")
		(&client{e: e, key: e.biz.Key, token: third.AccessToken}).get(t, "/me").wantError(t, http.StatusUnauthorized)

		// An app that stored the last refresh token resumes the session.
		stored := last().RefreshToken
		api = e.sdk(t, e.url, oa.Resume(stored))
		me("resumed")
		if len(issued) != 5 || last().RefreshToken == stored {
			t.Fatalf("resume: %d token pairs issued, want a fifth", len(issued))
		}
		// The resumed session spent the stored token: the old session's
		// copy of it is refused (a TokenError), and its reuse revokes the
		// whole chain, the resumed session included, which then gets 401.
		held, err := tokens.Token(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tokens.Refresh(ctx, held.AccessToken)
		var te *sdk.TokenError
		if !errors.As(err, &te) || te.Code != "invalid_grant" {
			t.Fatalf("refresh with a spent refresh token: %v, want invalid_grant", err)
		}
		if r, err := api.GetMeWithResponse(ctx, nil); err != nil || r.StatusCode() != http.StatusUnauthorized {
			t.Fatalf("the resumed session after its chain was revoked: %v %v, want 401", err, r.StatusCode())
		}

		// Revoking the access token ends the grant: the SDK's refresh is
		// refused too, and the caller gets the 401.
		fresh, err := oa.Password(ctx, e.biz.Email, e.biz.Password, sdk.ScopeAdmin)
		if err != nil {
			t.Fatal(err)
		}
		api = e.sdk(t, e.url, fresh)
		me("signed in again")
		if err := oa.Revoke(ctx, last().AccessToken); err != nil {
			t.Fatalf("revoke: %v", err)
		}
		if r, err := api.GetMeWithResponse(ctx, nil); err != nil || r.StatusCode() != http.StatusUnauthorized {
			t.Fatalf("after revocation: %v %v, want 401", err, r.StatusCode())
		}

		// A wrong password is the token endpoint's refusal, typed.
		if _, err := oa.Password(ctx, e.biz.Email, "wrong-"+e.biz.Password, sdk.ScopeAdmin); !errors.As(err, &te) || te.Code != "invalid_grant" {
			t.Fatalf("wrong password: %v, want invalid_grant", err)
		}
	})
}

// TestSDKAuthorizationCode: the authorization-code flow with PKCE through
// the SDK, the owner approving in the consent page.
func TestSDKAuthorizationCode(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		ctx := context.Background()
		app := e.codeApp(t, callback)
		oa := &sdk.OAuth{BaseURL: e.url, ApplicationKey: e.biz.Key, ClientID: app.ID, ClientSecret: app.Secret,
			RedirectURL: callback, HTTPClient: &http.Client{Transport: e.sdkTransport(t)}}
		verifier := sdk.NewVerifier()
		to, err := url.Parse(oa.AuthCodeURL("st-7", verifier))
		if err != nil || to.Path != "/oauth/authorize" || to.Query().Get("code_challenge_method") != "S256" {
			t.Fatalf("AuthCodeURL = %v (%v), want /oauth/authorize with an S256 challenge", to, err)
		}
		code := e.web(t).approve(t, e.biz, to.Query())

		var te *sdk.TokenError
		if _, err := oa.Exchange(ctx, code, sdk.NewVerifier()); !errors.As(err, &te) || te.Code != "invalid_grant" {
			t.Fatalf("exchange with another verifier: %v, want invalid_grant", err)
		}
		tokens, err := oa.Exchange(ctx, code, verifier)
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		r, err := e.sdk(t, e.url, tokens).GetMeWithResponse(ctx, nil)
		if err != nil || r.JSON200 == nil || r.JSON200.Data.Id != e.biz.ID {
			t.Fatalf("GET /me with the code's token: %v %s", err, r.Body)
		}
	})
}

// TestSDKCustomersAndRetriedReward: customers created through the SDK are
// each seen once by the paging iterator; a reward whose reply is lost on
// the network is retried by the SDK with the same Idempotency-Key and
// acts once.
func TestSDKCustomersAndRetriedReward(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		ctx := context.Background()
		api := e.sdkOwner(t)

		created := map[string]bool{}
		for i := range 7 {
			email := "sdk-" + e.unique() + "@guest.example"
			r, err := api.CreateCustomerWithResponse(ctx, sdk.CustomerCreate{Email: &email, FirstName: ptrTo("Guest")})
			if err != nil || r.JSON200 == nil {
				t.Fatalf("create customer %d: %v %s", i, err, r.Body)
			}
			created[r.JSON200.Data.Id] = true
		}
		bad := "not-an-email"
		r, err := api.CreateCustomerWithResponse(ctx, sdk.CustomerCreate{Email: &bad})
		var ae *sdk.APIError
		if err != nil || !errors.As(sdk.ResponseError(r.HTTPResponse, r.Body), &ae) || ae.Status != http.StatusUnprocessableEntity || len(ae.Fields["email"]) == 0 {
			t.Fatalf("bad e-mail: %v, %v; want a 422 naming email", err, sdk.ResponseError(r.HTTPResponse, r.Body))
		}

		seen := map[string]int{}
		for c, err := range api.AllCustomers(ctx, sdk.ListCustomersParams{PerPage: ptrTo(3)}) {
			if err != nil {
				t.Fatalf("iterating customers: %v", err)
			}
			seen[c.Id]++
		}
		if len(seen) != len(created) {
			t.Errorf("the iterator saw %d customers, want the %d created", len(seen), len(created))
		}
		for id, n := range seen {
			if n != 1 || !created[id] {
				t.Errorf("customer %s seen %d times (created here: %v), want once", id, n, created[id])
			}
		}

		// The reward goes through a proxy that drops the connection once
		// the service has acted, before its reply leaves.
		var customer string
		for id := range created {
			customer = id
			break
		}
		lossy := newLossyFront(t, e.app.Handler())
		reward := sdk.TransactionCreate{Intent: ptrTo(sdk.TransactionCreateIntentReward), Points: ptrTo(40),
			Customer: &sdk.TransactionCreate_Customer{Id: &customer}}
		tr, err := e.sdk(t, lossy.url, tokensOf(t, e)).CreateTransactionWithResponse(ctx, nil, reward)
		if err != nil || tr.JSON200 == nil {
			t.Fatalf("reward through the lossy proxy: %v %s", err, tr.Body)
		}
		if got := lossy.posts.Load(); got < 2 {
			t.Fatalf("the service got %d POST /transactions, want the lost one and its retry", got)
		}
		if tr.JSON200.Data.Id != lossy.firstID() {
			t.Errorf("the retry answered transaction %d, want the first attempt's %d", tr.JSON200.Data.Id, lossy.firstID())
		}
		var entries int
		for tx, err := range api.AllCustomerTransactions(ctx, customer, sdk.ListCustomerTransactionsParams{PerPage: ptrTo(1)}) {
			if err != nil {
				t.Fatalf("iterating the customer's transactions: %v", err)
			}
			entries++
			if tx.Points != 40 {
				t.Errorf("transaction %d of %d points, want 40", tx.Id, tx.Points)
			}
		}
		cr, err := api.GetCustomerWithResponse(ctx, customer, &sdk.GetCustomerParams{Include: ptrTo("balance")})
		if err != nil || cr.JSON200 == nil {
			t.Fatalf("GET /customers/%s: %v %s", customer, err, cr.Body)
		}
		if entries != 1 || cr.JSON200.Included == nil || cr.JSON200.Included.Balance == nil || cr.JSON200.Included.Balance.Points != 40 {
			t.Errorf("after a retried reward of 40: %d transactions, customer %s; want one, and a balance of 40", entries, cr.Body)
		}
	})
}

// lossyFront serves the service behind a testenv.Proxy and cuts the
// proxy's connections once the first POST /transactions has been
// handled: the service acted, the client never hears of it.
type lossyFront struct {
	url   string
	posts atomic.Int32
	first atomic.Value // the first attempt's transaction id
}

func newLossyFront(t *testing.T, h http.Handler) *lossyFront {
	l := &lossyFront{}
	var proxy *testenv.Proxy
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/transactions" || l.posts.Add(1) > 1 {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var reply sdk.TransactionResponse
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &reply) != nil {
			t.Errorf("the lost attempt: %d %s", rec.Code, rec.Body)
		}
		l.first.Store(reply.Data.Id)
		proxy.Cut()
		proxy.Restore()
	}))
	// The proxy is made before the server starts serving, which reads it.
	proxy = testenv.NewProxy(t, srv.Listener.Addr().String())
	srv.Start()
	t.Cleanup(srv.Close)
	l.url = "http://" + proxy.Addr()
	return l
}

func (l *lossyFront) firstID() int {
	id, _ := l.first.Load().(int)
	return id
}

// tokensOf signs the env's owner in with a fresh SDK session.
func tokensOf(t *testing.T, e *env) *sdk.Tokens {
	t.Helper()
	tokens, err := e.sdkOAuth(t).Password(context.Background(), e.biz.Email, e.biz.Password, sdk.ScopeAdmin)
	if err != nil {
		t.Fatalf("password grant: %v", err)
	}
	return tokens
}

func ptrTo[T any](v T) *T { return &v }
