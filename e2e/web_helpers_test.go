package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
)

// webClient is a browser without a screen: it keeps cookies, follows no
// redirects, and posts the CSRF token of the last page it loaded.
type webClient struct {
	e    *env
	base string
	c    *http.Client
	csrf string
}

// web returns a new browser for the env's server.
func (e *env) web(t *testing.T) *webClient {
	t.Helper()
	return e.webAt(t, e.url, nil)
}

// webAt returns a browser for the server at base (with its own transport
// when rt is set, such as a TLS test server's).
func (e *env) webAt(t *testing.T, base string, rt http.RoundTripper) *webClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &webClient{e: e, base: base, c: &http.Client{Jar: jar, Transport: rt, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// do sends req; responses of /oauth/authorize are validated against the
// OpenAPI document. An HTML page's CSRF token is kept for the next post.
func (w *webClient) do(t *testing.T, req *http.Request) *result {
	t.Helper()
	resp, err := w.c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.RequestURI(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	res := &result{Status: resp.StatusCode, Header: resp.Header, Body: body, what: req.Method + " " + req.URL.RequestURI()}
	if req.URL.Path == "/oauth/authorize" {
		w.e.v.Check(t, req, &http.Response{StatusCode: res.Status, Header: res.Header, Request: req}, body)
	}
	if m := csrfField.FindSubmatch(body); m != nil {
		w.csrf = html.UnescapeString(string(m[1]))
	}
	return res
}

func (w *webClient) get(t *testing.T, path string) *result {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, w.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.do(t, req)
}

// post sends form, adding the page's CSRF token unless form has its own
// csrf_token entry (even an empty one).
func (w *webClient) post(t *testing.T, path string, form url.Values) *result {
	t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	if _, ok := form["csrf_token"]; !ok {
		f.Set("csrf_token", w.csrf)
	}
	req, err := http.NewRequest(http.MethodPost, w.base+path, strings.NewReader(f.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return w.do(t, req)
}

// signIn signs in to a portal ("/business", "/developers", "/support").
func (w *webClient) signIn(t *testing.T, portal, email, password string) {
	t.Helper()
	w.get(t, portal).want(t, http.StatusOK)
	r := w.post(t, portal+"/signin", url.Values{"email": {email}, "password": {password}})
	// The business console's owner lands on the dashboard; its staff go
	// to the console's home, which sends each role to its page.
	if loc := r.Header.Get("Location"); r.Status != http.StatusSeeOther || (loc != portal && !(portal == "/business" && loc == "/business/dashboard")) {
		t.Fatalf("sign in to %s: %d %s: %s", portal, r.Status, r.Header.Get("Location"), r.Body)
	}
}

// cookie returns the browser's cookie called name.
func (w *webClient) cookie(name string) string {
	u, _ := url.Parse(w.base)
	for _, c := range w.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// has fails unless the page body contains every one of words.
func (r *result) has(t *testing.T, words ...string) *result {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(html.UnescapeString(string(r.Body)), w) {
			t.Errorf("%s: page does not contain %q", r.what, w)
		}
	}
	return r
}

// codeApp registers an approved authorization-code app for the business
// API with the given callback.
func (e *env) codeApp(t *testing.T, redirect string) creds {
	t.Helper()
	out, err := e.app.OAuth.CreateApp(context.Background(), oauth.NewApp{Name: "Till Sync " + e.unique(), API: oauth.APIBusiness,
		GrantType: oauth.GrantCode, RedirectURI: redirect, Description: "Keeps the till and the program in step.", Approve: true})
	if err != nil {
		t.Fatalf("CreateApp: %v", err)
	}
	return creds{ID: out.ClientID, Secret: out.ClientSecret}
}

// authorizeQuery is a well-formed authorization request of app.
func authorizeQuery(app creds, redirect string) url.Values {
	return url.Values{"client_id": {app.ID}, "redirect_uri": {redirect}, "response_type": {"code"}, "scope": {"admin"}, "state": {"s-1"}}
}

// with returns a copy of q with name-value pairs added.
func with(q url.Values, pairs ...string) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = v
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		out.Set(pairs[i], pairs[i+1])
	}
	return out
}

// flowSignIn posts the flow's sign-in form for query with the owner
// credentials email and password.
func (w *webClient) flowSignIn(t *testing.T, query url.Values, email, password string) *result {
	t.Helper()
	return w.post(t, "/oauth/authorize", with(query, "step", "signin", "email", email, "password", password))
}

// approve walks the owner of b through sign-in and consent with query and
// returns the code the callback receives.
func (w *webClient) approve(t *testing.T, b *business, query url.Values) string {
	t.Helper()
	page := w.get(t, "/oauth/authorize?"+query.Encode()).want(t, http.StatusOK)
	if strings.Contains(string(page.Body), `name="step" value="signin"`) {
		w.flowSignIn(t, query, b.Email, b.Password).want(t, http.StatusSeeOther)
		w.get(t, "/oauth/authorize?"+query.Encode()).want(t, http.StatusOK)
	}
	r := w.post(t, "/oauth/authorize", with(query, "decision", "approve")).want(t, http.StatusFound)
	to, err := url.Parse(r.Header.Get("Location"))
	if err != nil || to.Query().Get("code") == "" || to.Query().Get("state") != query.Get("state") {
		t.Fatalf("approve: redirected to %q, want the callback with a code and the state", r.Header.Get("Location"))
	}
	return to.Query().Get("code")
}

// codeForm is the token request exchanging code.
func codeForm(app creds, redirect, code, verifier string) url.Values {
	f := url.Values{"grant_type": {"authorization_code"}, "client_id": {app.ID}, "client_secret": {app.Secret},
		"redirect_uri": {redirect}, "code": {code}}
	if verifier != "" {
		f.Set("code_verifier", verifier)
	}
	return f
}

// challenge is the PKCE S256 challenge of verifier.
func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
