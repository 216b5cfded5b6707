package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestTokenRepeatedParameters: a parameter sent twice to the token
// endpoint (RFC 6749 section 3.2: MUST NOT be repeated) is an
// invalid_request naming it, whatever the values, and issues nothing; a
// proxy and the service must never read different credentials.
func TestTokenRepeatedParameters(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		e.postToken(t, b.Key, e.passwordForm(b)).want(t, http.StatusOK) // the form itself is good

		cases := map[string][]string{
			"grant_type":      {"password", "password"},
			"client_id":       {e.client.ID, e.client.ID},
			"client_secret":   {e.client.Secret, "wrong"},
			"username":        {b.Email, b.Email},
			"password":        {b.Password, "not-the-password"},
			"scope":           {"admin", "admin"},
			"application_key": {b.Key, b.Key},
			"refresh_token":   {"a", "b"},
			"code":            {"a", "b"},
			"redirect_uri":    {callback, callback},
			"code_verifier":   {"a", "a"},
		}
		for name, values := range cases {
			t.Run(name, func(t *testing.T) {
				for _, vs := range [][]string{values, {values[1], values[0]}} {
					form := e.passwordForm(b)
					form[name] = vs
					r := e.postToken(t, b.Key, form)
					r.wantOAuthError(t, http.StatusBadRequest, "invalid_request")
					var oe oauthError
					r.decode(t, &oe)
					if !strings.Contains(oe.Description, name) {
						t.Errorf("%s=%v: error_description %q does not name the parameter", name, vs, oe.Description)
					}
				}
			})
		}
	})
}

// TestAuthorizeRepeatedParameters: a repeated client_id or redirect_uri
// puts the callback in doubt: an error page, no redirect. Any other
// repeated parameter goes back to the callback with invalid_request.
func TestAuthorizeRepeatedParameters(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		w := e.web(t)
		base := authorizeQuery(app, callback)
		w.get(t, "/oauth/authorize?"+base.Encode()).want(t, http.StatusOK) // the query itself is good

		twice := func(name string, values ...string) url.Values {
			q := with(base)
			q[name] = values
			return q
		}
		for _, q := range []url.Values{twice("client_id", app.ID, app.ID), twice("redirect_uri", callback, callback)} {
			r := w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusBadRequest).has(t, "This authorization link can't be used", "repeated")
			if loc := r.Header.Get("Location"); loc != "" {
				t.Errorf("%s: redirected to %s", r.what, loc)
			}
		}
		for _, q := range []url.Values{twice("response_type", "code", "code"), twice("scope", "admin", "admin"),
			twice("state", "s-1", "s-2"), twice("code_challenge_method", "S256", "plain")} {
			r := w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusFound)
			to, _ := url.Parse(r.Header.Get("Location"))
			if !strings.HasPrefix(r.Header.Get("Location"), callback+"?") || to.Query().Get("error") != "invalid_request" ||
				!strings.Contains(to.Query().Get("error_description"), "repeated") {
				t.Errorf("%s: redirected to %q, want the callback with error=invalid_request", r.what, r.Header.Get("Location"))
			}
		}
	})
}
