package browser

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"
)

// callback is the third-party app's callback endpoint.
type callback struct {
	srv *httptest.Server
	got chan url.Values
}

func newCallback(t *testing.T) *callback {
	t.Helper()
	c := &callback{got: make(chan url.Values, 8)}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.got <- r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Cafe Sync</title><h1 id="callback">Back at Cafe Sync</h1>`))
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// URL is the registered callback URL.
func (c *callback) URL() string { return c.srv.URL + "/oauth/callback" }

// wait returns the query of the next request to the callback.
func (c *callback) wait(t *testing.T) url.Values {
	t.Helper()
	select {
	case q := <-c.got:
		return q
	case <-time.After(15 * time.Second):
		t.Fatal("the callback received no request")
		return nil
	}
}

// client is the third-party app as golang.org/x/oauth2 sees it.
func (s *site) client(id, secret, redirect string) *oauth2.Config {
	return &oauth2.Config{ClientID: id, ClientSecret: secret, RedirectURL: redirect, Scopes: []string{"admin"},
		Endpoint: oauth2.Endpoint{AuthURL: s.url + "/oauth/authorize", TokenURL: s.url + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInHeader}}
}

// keyed adds the business's X-Application-Key to every request.
type keyed struct{ key string }

// RoundTrip implements http.RoundTripper.
func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Application-Key", k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// exchange trades a code for tokens as the app does, with the key of the
// business whose owner approved.
func (s *site) exchange(conf *oauth2.Config, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: keyed{s.owner.Key}, Timeout: 20 * time.Second})
	return conf.Exchange(ctx, code, opts...)
}

// me reads GET /me with an access token and returns the status and body.
func (s *site) me(t *testing.T, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.url+"/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Application-Key", s.owner.Key)
	req.Header.Set("Accept", "application/vnd.loyalty.api.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /me: %v", err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// approvedApp registers an approved authorization-code app through the
// admin command line, for the tests that are not about registration.
func (s *site) approvedApp(t *testing.T, cb *callback) *oauth2.Config {
	t.Helper()
	out := s.admin(t, "admin", "app", "create", "--name", "Cafe Sync", "--api", "business", "--grant", "authorization_code",
		"--redirect-uri", cb.URL(), "--description", "Syncs your loyalty program with your till.", "--approve")
	return s.client(out["client_id"].(string), out["client_secret"].(string), cb.URL())
}

// toConsent takes the owner's browser from the app's link through the
// sign-in page to the consent page.
func (s *site) toConsent(t *testing.T, owner *tab, link string) {
	t.Helper()
	owner.open(link, "signin")
	owner.keyPage("signin")
	// With the keyboard alone: the e-mail field has the focus, Tab moves
	// to the password, Enter signs in.
	owner.do(chromedp.KeyEvent(s.owner.Email+"\t"+s.owner.Password+"\n"), waitPage("consent"))
	owner.keyPage("consent")
}

// TestAuthorizationCodeFlow is the whole story: a developer signs up and
// registers an app, support approves it, an owner signs in and approves
// it, the app exchanges the code with golang.org/x/oauth2 and reads /me.
func TestAuthorizationCodeFlow(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		cb := newCallback(t)

		dev := newTab(t, "developer")
		dev.open(s.url+"/developers/signup", "signup")
		dev.fill("#name", "Ada Dev", "#email", "ada-"+s.unique()+"@apps.example", "#password", "correct horse battery")
		dev.submit(`main button[type="submit"]`, "dev_home")
		dev.do(chromedp.Click(chromedp.CSS(`a[href="/developers/apps/new"]`), poll), waitPage("dev_new"))
		// A user-API app cannot use the authorization-code flow: the form
		// says so and keeps what was typed.
		dev.fill("#name", "Cafe Sync", "#redirect_uri", cb.URL(), "#description", "Syncs your loyalty program with your till.")
		dev.do(chromedp.Click(chromedp.CSS("#api-user"), poll))
		dev.submit(`main button[type="submit"]`, "dev_new")
		dev.keyPage("register-refused")
		if got := dev.text("#grant-error"); !strings.Contains(got, "password grant") {
			t.Errorf("grant error %q, want it to name the password grant", got)
		}
		dev.do(chromedp.Click(chromedp.CSS("#api-business"), poll))
		dev.submit(`main button[type="submit"]`, "dev_app")
		dev.keyPage("app-created")
		clientID, secret := dev.text("#client-id"), dev.text("#client-secret")
		if len(clientID) != 32 || len(secret) < 40 {
			t.Fatalf("client id %q and secret %q, want a 32-character id and a long secret", clientID, secret)
		}
		if got := dev.text(".badge"); got != "Pending approval" {
			t.Errorf("new app's status %q, want Pending approval", got)
		}

		s.admin(t, "admin", "support", "create", "--email", "help@loyalty.example", "--password", "support-pass-123")
		staff := newTab(t, "support")
		staff.open(s.url+"/support", "signin")
		staff.fill("#email", "help@loyalty.example", "#password", "support-pass-123")
		staff.submit(`main button[type="submit"]`, "support")
		staff.keyPage("pending")
		staff.do(chromedp.Click(chromedp.CSS(`form[action="/support/apps/`+clientID+`/approve"] button`), poll),
			chromedp.WaitVisible(chromedp.CSS(`.alert-ok`), poll))

		dev.open(s.url+"/developers/apps/"+clientID, "dev_app")
		if got := dev.text(".badge"); got != "Approved" {
			t.Errorf("status after approval %q, want Approved", got)
		}

		conf := s.client(clientID, secret, cb.URL())
		verifier, state := oauth2.GenerateVerifier(), "st-"+s.unique()
		owner := newTab(t, "owner")
		s.toConsent(t, owner, conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)))
		page := owner.text("main")
		for _, want := range []string{"Cafe Sync wants to access Corner Cafe", "Syncs your loyalty program with your till.", "admin"} {
			if !strings.Contains(page, want) {
				t.Errorf("consent page does not say %q:\n%s", want, page)
			}
		}
		owner.do(chromedp.Click(chromedp.CSS("#approve"), poll), chromedp.WaitVisible(chromedp.CSS("#callback"), poll))
		q := cb.wait(t)
		if q.Get("state") != state || q.Get("code") == "" {
			t.Fatalf("callback query %v, want code and state %q", q, state)
		}

		tok, err := s.exchange(conf, q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatalf("exchange the code: %v", err)
		}
		if tok.AccessToken == "" || tok.RefreshToken == "" || tok.TokenType != "Bearer" {
			t.Fatalf("token %+v, want access and refresh tokens of type Bearer", tok)
		}
		status, body := s.me(t, tok.AccessToken)
		if data, _ := body["data"].(map[string]any); status != http.StatusOK || data["id"] != s.owner.BusinessID {
			t.Fatalf("GET /me: %d %v, want 200 with business %s", status, body, s.owner.BusinessID)
		}

		// The owner finds the app among the connected ones, on a desktop
		// and on a phone (where nothing may be wider than the screen).
		owner.open(s.url+"/business", "business")
		owner.keyPage("business")
		if page := owner.text("main"); !strings.Contains(page, "Cafe Sync") || !strings.Contains(page, s.owner.Key) {
			t.Errorf("business portal shows neither the connected app nor the key:\n%s", page)
		}
		owner.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(), waitPage("business"))
		owner.keyPage("business-phone")
		if owner.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`) {
			t.Error("the business portal scrolls sideways on a 390px-wide phone")
		}
		dev.open(s.url+"/developers", "dev_home")
		dev.keyPage("apps")
	})
}

// TestAuthorizationDenied: the owner says no; the app hears access_denied
// with its state, and gets no code.
func TestAuthorizationDenied(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		cb := newCallback(t)
		conf := s.approvedApp(t, cb)
		owner := newTab(t, "owner")
		s.toConsent(t, owner, conf.AuthCodeURL("deny-state"))
		owner.do(chromedp.Click(chromedp.CSS("#deny"), poll), chromedp.WaitVisible(chromedp.CSS("#callback"), poll))
		q := cb.wait(t)
		if q.Get("error") != "access_denied" || q.Get("state") != "deny-state" || q.Has("code") {
			t.Fatalf("callback query %v, want error=access_denied and the state, no code", q)
		}
	})
}

// TestWrongRedirectURI: a redirect_uri that differs from the registered
// one only by a trailing slash gets an error page; nothing is redirected.
func TestWrongRedirectURI(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		cb := newCallback(t)
		conf := s.approvedApp(t, cb)
		conf.RedirectURL = cb.URL() + "/"
		owner := newTab(t, "owner")
		owner.open(conf.AuthCodeURL("x"), "error")
		owner.keyPage("error")
		if got := owner.text("h1"); got != "This authorization link can't be used" {
			t.Errorf("error page heading %q", got)
		}
		if loc, _ := owner.location(); !strings.HasPrefix(loc, s.url+"/oauth/authorize") {
			t.Errorf("the browser left the service for %s", loc)
		}
		select {
		case q := <-cb.got:
			t.Fatalf("the callback was called with %v", q)
		default:
		}
	})
}

// TestReusedCode: a code works once; its second use is refused and the
// tokens of the first use stop working.
func TestReusedCode(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		cb := newCallback(t)
		conf := s.approvedApp(t, cb)
		owner := newTab(t, "owner")
		s.toConsent(t, owner, conf.AuthCodeURL("reuse"))
		owner.do(chromedp.Click(chromedp.CSS("#approve"), poll), chromedp.WaitVisible(chromedp.CSS("#callback"), poll))
		code := cb.wait(t).Get("code")
		tok, err := s.exchange(conf, code)
		if err != nil {
			t.Fatalf("first exchange: %v", err)
		}
		if status, _ := s.me(t, tok.AccessToken); status != http.StatusOK {
			t.Fatalf("GET /me with the first token: %d", status)
		}
		_, err = s.exchange(conf, code)
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
			t.Fatalf("second exchange: %v, want invalid_grant", err)
		}
		if status, _ := s.me(t, tok.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("GET /me with the first token after the reuse: %d, want 401", status)
		}
	})
}
