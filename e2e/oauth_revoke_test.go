package e2e

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// postRevoke posts form to /oauth/revoke, with HTTP Basic when basicAuth
// is set (credentials form-encoded first, as RFC 6749 section 2.3.1 says).
func (e *env) postRevoke(t *testing.T, basicAuth *creds, form url.Values) *result {
	t.Helper()
	req := e.newRequest(t, http.MethodPost, "/oauth/revoke", form.Encode())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basicAuth != nil {
		req.Header.Set("Authorization", basic(formEncodeAll(basicAuth.ID), formEncodeAll(basicAuth.Secret)))
	}
	return e.send(t, req)
}

// wantRevoked fails unless the revocation answered 200 with no-store.
func (r *result) wantRevoked(t *testing.T) {
	t.Helper()
	r.want(t, http.StatusOK)
	if got := r.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", r.what, got)
	}
}

// TestRevoke (issue 16): POST /oauth/revoke (RFC 7009). A refresh token
// revokes its chain, an access token its pair, at once (this instance's
// token cache included); unknown, revoked and other clients' tokens are
// 200 and left alone.
func TestRevoke(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		app := e.dashUnderscoreApp(t)
		grant := func(t *testing.T, c creds) tokenResponse {
			t.Helper()
			var tr tokenResponse
			e.postToken(t, b.Key, with(e.passwordForm(b), "client_id", c.ID, "client_secret", c.Secret)).want(t, http.StatusOK).decode(t, &tr)
			return tr
		}
		refresh := func(t *testing.T, c creds, rt string) *result {
			t.Helper()
			return e.postToken(t, b.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt},
				"client_id": {c.ID}, "client_secret": {c.Secret}})
		}
		// working puts the token in this instance's lookup cache and checks it works.
		working := func(t *testing.T, access string) {
			t.Helper()
			e.me(t, b.Key, access).want(t, http.StatusOK)
		}

		t.Run("refresh token revokes its pair and the rotated chain", func(t *testing.T) {
			first := grant(t, app)
			var second tokenResponse
			refresh(t, app, first.RefreshToken).want(t, http.StatusOK).decode(t, &second)
			working(t, second.AccessToken)
			bystander := grant(t, app)
			working(t, bystander.AccessToken)

			// The spent first refresh token still names the chain.
			e.postRevoke(t, &app, url.Values{"token": {first.RefreshToken}, "token_type_hint": {"refresh_token"}}).wantRevoked(t)
			e.me(t, b.Key, second.AccessToken).wantChallenge(t, "invalid_token")
			refresh(t, app, second.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			// Another grant of the same client and owner lives on.
			working(t, bystander.AccessToken)

			// The current refresh token, in the body, without a hint.
			current := grant(t, app)
			working(t, current.AccessToken)
			e.postRevoke(t, nil, url.Values{"token": {current.RefreshToken}, "client_id": {app.ID}, "client_secret": {app.Secret}}).wantRevoked(t)
			e.me(t, b.Key, current.AccessToken).wantChallenge(t, "invalid_token")
			refresh(t, app, current.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		})

		t.Run("access token revokes its pair", func(t *testing.T) {
			for _, hint := range []string{"access_token", "refresh_token", "", "something_else"} {
				tr := grant(t, app)
				working(t, tr.AccessToken)
				form := url.Values{"token": {tr.AccessToken}}
				if hint != "" {
					form.Set("token_type_hint", hint)
				}
				e.postRevoke(t, &app, form).wantRevoked(t)
				e.me(t, b.Key, tr.AccessToken).wantChallenge(t, "invalid_token")
				refresh(t, app, tr.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			}
		})

		t.Run("nothing to revoke is 200", func(t *testing.T) {
			e.postRevoke(t, &app, url.Values{"token": {"not-a-token"}}).wantRevoked(t)
			tr := grant(t, app)
			e.postRevoke(t, &app, url.Values{"token": {tr.AccessToken}}).wantRevoked(t)
			e.postRevoke(t, &app, url.Values{"token": {tr.AccessToken}}).wantRevoked(t)
			e.postRevoke(t, &app, url.Values{"token": {tr.RefreshToken}}).wantRevoked(t)
		})

		t.Run("another client's token is left alone", func(t *testing.T) {
			theirs := grant(t, e.client)
			working(t, theirs.AccessToken)
			e.postRevoke(t, &app, url.Values{"token": {theirs.AccessToken}}).wantRevoked(t)
			e.postRevoke(t, &app, url.Values{"token": {theirs.RefreshToken}}).wantRevoked(t)
			working(t, theirs.AccessToken)
			refresh(t, e.client, theirs.RefreshToken).want(t, http.StatusOK)
		})

		t.Run("client authentication", func(t *testing.T) {
			tr := grant(t, app)
			wrong := creds{ID: app.ID, Secret: app.Secret + "x"}
			r := e.postRevoke(t, &wrong, url.Values{"token": {tr.AccessToken}})
			r.wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("401 WWW-Authenticate %q, want Basic", r.Header.Get("WWW-Authenticate"))
			}
			e.postRevoke(t, nil, url.Values{"token": {tr.AccessToken}}).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			e.postRevoke(t, &app, url.Values{"token": {tr.AccessToken}, "client_secret": {app.Secret}}).
				wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			e.postRevoke(t, &app, url.Values{}).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			e.postRevoke(t, &app, url.Values{"token": {tr.AccessToken, tr.AccessToken}}).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			// None of those revoked anything.
			working(t, tr.AccessToken)
		})

		t.Run("code grant chain", func(t *testing.T) {
			web := e.codeApp(t, callback)
			code := e.web(t).approve(t, b, authorizeQuery(web, callback))
			var tr tokenResponse
			e.postToken(t, "", codeForm(web, callback, code, "")).want(t, http.StatusOK).decode(t, &tr)
			var next tokenResponse
			refresh(t, web, tr.RefreshToken).want(t, http.StatusOK).decode(t, &next)
			working(t, next.AccessToken)
			e.postRevoke(t, &web, url.Values{"token": {next.RefreshToken}}).wantRevoked(t)
			e.me(t, b.Key, next.AccessToken).wantChallenge(t, "invalid_token")
		})
	})
}

// TestAuthServerMetadata (issue 16): RFC 8414 metadata whose issuer is the
// URL the client reached, listing what the server does.
func TestAuthServerMetadata(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		var m struct {
			Issuer                string   `json:"issuer"`
			Authorization         string   `json:"authorization_endpoint"`
			Token                 string   `json:"token_endpoint"`
			Revocation            string   `json:"revocation_endpoint"`
			Grants                []string `json:"grant_types_supported"`
			ResponseTypes         []string `json:"response_types_supported"`
			PKCE                  []string `json:"code_challenge_methods_supported"`
			TokenAuthMethods      []string `json:"token_endpoint_auth_methods_supported"`
			RevocationAuthMethods []string `json:"revocation_endpoint_auth_methods_supported"`
			Scopes                []string `json:"scopes_supported"`
			ServiceDocumentation  string   `json:"service_documentation"`
		}
		r := e.get(t, "/.well-known/oauth-authorization-server").want(t, http.StatusOK)
		if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		r.decode(t, &m)
		if m.Issuer != e.url || m.Authorization != e.url+"/oauth/authorize" || m.Token != e.url+"/oauth/token" ||
			m.Revocation != e.url+"/oauth/revoke" || m.ServiceDocumentation != e.url+"/openapi.yaml" {
			t.Errorf("endpoints %+v, want them under %s", m, e.url)
		}
		for name, got := range map[string][]string{"grant_types_supported": m.Grants, "response_types_supported": m.ResponseTypes,
			"code_challenge_methods_supported": m.PKCE, "token_endpoint_auth_methods_supported": m.TokenAuthMethods,
			"revocation_endpoint_auth_methods_supported": m.RevocationAuthMethods, "scopes_supported": m.Scopes} {
			want := map[string][]string{
				"grant_types_supported":                      {"authorization_code", "password", "refresh_token"},
				"response_types_supported":                   {"code"},
				"code_challenge_methods_supported":           {"S256"},
				"token_endpoint_auth_methods_supported":      {"client_secret_basic", "client_secret_post"},
				"revocation_endpoint_auth_methods_supported": {"client_secret_basic", "client_secret_post"},
				"scopes_supported":                           {"admin", "user"},
			}[name]
			if !slices.Equal(slices.Sorted(slices.Values(got)), want) {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
		// Only S256 is listed because only S256 works.
		app := e.codeApp(t, callback)
		q := with(authorizeQuery(app, callback), "code_challenge", strings.Repeat("a", 43), "code_challenge_method", "plain")
		loc, _ := url.Parse(e.web(t).get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusFound).Header.Get("Location"))
		if loc.Query().Get("error") != "invalid_request" {
			t.Errorf("code_challenge_method=plain redirected to %s, want invalid_request", loc)
		}

		// The issuer is the host the client reached.
		req := e.newRequest(t, http.MethodGet, "/.well-known/oauth-authorization-server", nil)
		req.Host = "loyalty.example:8443"
		e.send(t, req).want(t, http.StatusOK).decode(t, &m)
		if m.Issuer != "http://loyalty.example:8443" || m.Token != "http://loyalty.example:8443/oauth/token" {
			t.Errorf("reached as loyalty.example:8443: issuer %q, token endpoint %q", m.Issuer, m.Token)
		}
	})
}
