package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Issue 11 items 9 to 12: what strict OAuth clients and the reference
// docs' examples send to the token endpoint, and the challenge of a 401.

// formEncodeAll form-encodes s the strictest way: every byte but letters
// and digits as %XX, a space as + (RFC 6749 appendix B allows either).
func formEncodeAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// basic is an Authorization: Basic header of already encoded parts.
func basic(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
}

// dashUnderscoreApp registers approved password-grant business-API apps
// until one's client secret holds both "-" and "_" (about one in four).
func (e *env) dashUnderscoreApp(t *testing.T) creds {
	t.Helper()
	for range 100 {
		out := e.admin(t, "admin", "app", "create", "--name", "Strict "+e.unique(), "--api", "business", "--grant", "password", "--approve")
		if c := (creds{ID: str(out["client_id"]), Secret: str(out["client_secret"])}); strings.Contains(c.Secret, "-") && strings.Contains(c.Secret, "_") {
			return c
		}
	}
	t.Fatal("100 client secrets without both - and _")
	return creds{}
}

// TestTokenBasicFormEncoded (item 9): HTTP Basic client credentials are
// form-decoded (RFC 6749 section 2.3.1), and a client may use only one
// authentication method per request.
func TestTokenBasicFormEncoded(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		app := e.dashUnderscoreApp(t)
		form := e.passwordForm(b)
		form.Del("client_id")
		form.Del("client_secret")
		post := func(t *testing.T, authorization string, f url.Values) *result {
			t.Helper()
			req := e.tokenRequest(t, b.Key, f)
			req.Header.Set("Authorization", authorization)
			return e.send(t, req)
		}
		strict := strings.NewReplacer("-", "%2D", "_", "%5F", ".", "%2E", "~", "%7E")

		t.Run("percent-encoded - and _ (oauth4webapi's encoding)", func(t *testing.T) {
			var tr tokenResponse
			post(t, basic(strict.Replace(app.ID), strict.Replace(app.Secret)), form).want(t, http.StatusOK).decode(t, &tr)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
		})
		t.Run("every byte encoded", func(t *testing.T) {
			id := ""
			for _, c := range []byte(app.ID) {
				id += fmt.Sprintf("%%%02x", c) // lower-case hex decodes too
			}
			post(t, basic(id, formEncodeAll(app.Secret)), form).want(t, http.StatusOK)
		})
		t.Run("unencoded still works", func(t *testing.T) {
			post(t, basic(app.ID, app.Secret), form).want(t, http.StatusOK)
		})
		t.Run("the decoded secret is what counts", func(t *testing.T) {
			// %2D is "-": with another character there the secret is wrong.
			wrong := strings.Replace(strict.Replace(app.Secret), "%2D", "%2B", 1)
			r := post(t, basic(app.ID, wrong), form)
			r.wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("WWW-Authenticate = %q, want a Basic challenge", r.Header.Get("WWW-Authenticate"))
			}
			// "+" is a space, not a "+".
			post(t, basic(app.ID, app.Secret+"+"), form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
		})
		t.Run("malformed encoding", func(t *testing.T) {
			post(t, basic(app.ID, app.Secret+"%ZZ"), form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			post(t, "Basic "+base64.StdEncoding.EncodeToString([]byte(app.ID)), form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			post(t, "Basic not base64!", form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
		})
		t.Run("two authentication methods", func(t *testing.T) {
			both := with(form, "client_secret", app.Secret)
			r := post(t, basic(app.ID, strict.Replace(app.Secret)), both)
			r.wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			// Even when the body names the same client.
			both.Set("client_id", app.ID)
			post(t, basic(app.ID, strict.Replace(app.Secret)), both).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			// A client_id alone in the body must be the Basic client.
			post(t, basic(app.ID, strict.Replace(app.Secret)), with(form, "client_id", app.ID)).want(t, http.StatusOK)
			post(t, basic(app.ID, strict.Replace(app.Secret)), with(form, "client_id", e.client.ID)).
				wantOAuthError(t, http.StatusBadRequest, "invalid_request")
		})
	})
}

// TestTokenIgnoresAccept (item 10): the token endpoint does not negotiate
// API versions; it answers JSON whatever Accept says, errors included.
func TestTokenIgnoresAccept(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		for _, accept := range []string{"application/x-www-form-urlencoded", "text/html", "application/vnd.loyalty.api.v2+json", "application/xml"} {
			req := e.tokenRequest(t, b.Key, e.passwordForm(b))
			req.Header.Set("Accept", accept)
			r := e.send(t, req).want(t, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Accept %q: Content-Type %q", accept, ct)
			}
			var tr tokenResponse
			r.decode(t, &tr)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)

			bad := with(e.passwordForm(b), "password", "wrong-password")
			req = e.tokenRequest(t, b.Key, bad)
			req.Header.Set("Accept", accept)
			e.send(t, req).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		}

		// The reference docs' code exchange: Accept is the form type.
		app := e.codeApp(t, callback)
		code := e.web(t).approve(t, b, authorizeQuery(app, callback))
		req := e.tokenRequest(t, b.Key, codeForm(app, callback, code, ""))
		req.Header.Set("Accept", "application/x-www-form-urlencoded")
		var tr tokenResponse
		e.send(t, req).want(t, http.StatusOK).decode(t, &tr)
		e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
	})
}

// TestTokenApplicationKey (item 11): the reference docs' password grant
// sends application_key as a form field and no header; the provider and
// sample app exchange codes and refresh tokens with no key at all. A key
// that is sent must still be the right one.
func TestTokenApplicationKey(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		other := e.newBusiness(t, "Bakery")

		t.Run("password grant with the form field only", func(t *testing.T) {
			var tr tokenResponse
			e.postToken(t, "", e.passwordForm(b)).want(t, http.StatusOK).decode(t, &tr)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
			// The token belongs to that key's business, not another's.
			e.me(t, other.Key, tr.AccessToken).wantError(t, http.StatusForbidden)

			// Another business's key in the form: its owner is not ours.
			e.postToken(t, "", with(e.passwordForm(b), "application_key", other.Key)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			e.postToken(t, "", with(e.passwordForm(b), "application_key", "no-such-key")).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			none := e.passwordForm(b)
			none.Del("application_key")
			e.postToken(t, "", none).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			// A header and a form field that disagree are refused, whichever is right.
			e.postToken(t, other.Key, e.passwordForm(b)).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			e.postToken(t, "no-such-key", e.passwordForm(b)).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
		})

		t.Run("user-API password grant with the form field only", func(t *testing.T) {
			app := e.userApp(t)
			e.register(t, b.Key, map[string]any{"email": "form.key@example.com", "pin_code": 4821})
			var tr tokenResponse
			e.postToken(t, "", url.Values{"grant_type": {"password"}, "client_id": {app.ID}, "client_secret": {app.Secret},
				"username": {"form.key@example.com"}, "password": {"4821"}, "scope": {"user"}, "application_key": {b.Key}}).
				want(t, http.StatusOK).decode(t, &tr)
			(&client{e: e, key: b.Key, token: tr.AccessToken}).get(t, "/users/me").want(t, http.StatusOK)
		})

		refresh := func(t *testing.T, key, rt string, extra ...string) *result {
			t.Helper()
			f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {e.client.ID}, "client_secret": {e.client.Secret}}
			return e.postToken(t, key, with(f, extra...))
		}
		t.Run("refresh grant without a key", func(t *testing.T) {
			first := e.tokens(t, b)
			var next tokenResponse
			refresh(t, "", first.RefreshToken).want(t, http.StatusOK).decode(t, &next)
			e.me(t, b.Key, next.AccessToken).want(t, http.StatusOK)
			e.me(t, b.Key, first.AccessToken).wantError(t, http.StatusUnauthorized)

			// A key that is sent must be the token's, in the header or the form.
			refresh(t, other.Key, next.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			refresh(t, "", next.RefreshToken, "application_key", other.Key).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			refresh(t, b.Key, next.RefreshToken, "application_key", other.Key).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			// None of those refusals spent the token.
			refresh(t, b.Key, next.RefreshToken, "application_key", b.Key).want(t, http.StatusOK)
		})

		t.Run("code grant without a key", func(t *testing.T) {
			app := e.codeApp(t, callback)
			w := e.web(t)
			code := w.approve(t, b, with(authorizeQuery(app, callback), "prompt", "consent"))
			e.postToken(t, other.Key, codeForm(app, callback, code, "")).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			e.postToken(t, "", with(codeForm(app, callback, code, ""), "application_key", other.Key)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			var tr tokenResponse
			e.postToken(t, "", codeForm(app, callback, code, "")).want(t, http.StatusOK).decode(t, &tr)
			if id := e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK).obj(t)["data"].(map[string]any)["id"]; id != b.ID {
				t.Errorf("GET /me: business %v, want %s", id, b.ID)
			}
			e.me(t, other.Key, tr.AccessToken).wantError(t, http.StatusForbidden)

			// Its refresh token, too, without a key.
			f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken}, "client_id": {app.ID}, "client_secret": {app.Secret}}
			var next tokenResponse
			e.postToken(t, "", f).want(t, http.StatusOK).decode(t, &next)
			e.me(t, b.Key, next.AccessToken).want(t, http.StatusOK)

			// With the right key in the header, as before.
			code = w.approve(t, b, with(authorizeQuery(app, callback), "prompt", "consent"))
			e.postToken(t, b.Key, codeForm(app, callback, code, "")).want(t, http.StatusOK)
		})
	})
}

// challenge is a parsed WWW-Authenticate challenge: its scheme and
// attributes.
type authChallenge struct {
	Scheme string
	Params map[string]string
}

// parseChallenge reads one challenge of the form
// `Scheme a="x", b="y"` (quoted values without escapes).
func parseChallenge(t *testing.T, h string) authChallenge {
	t.Helper()
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	c := authChallenge{Scheme: scheme, Params: map[string]string{}}
	for rest = strings.TrimSpace(rest); rest != ""; {
		name, after, ok := strings.Cut(rest, `="`)
		value, tail, ok2 := strings.Cut(after, `"`)
		if !ok || !ok2 {
			t.Fatalf("WWW-Authenticate %q is not a challenge of quoted attributes", h)
		}
		c.Params[strings.TrimSpace(name)] = value
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(tail), ","))
	}
	return c
}

// wantChallenge fails unless the 401 carries a Bearer challenge with the
// error attribute errCode ("" for none at all).
func (r *result) wantChallenge(t *testing.T, errCode string) {
	t.Helper()
	r.want(t, http.StatusUnauthorized)
	h := r.Header.Values("WWW-Authenticate")
	if len(h) != 1 {
		t.Fatalf("%s: WWW-Authenticate %q, want one challenge", r.what, h)
	}
	c := parseChallenge(t, h[0])
	if c.Scheme != "Bearer" || c.Params["realm"] == "" {
		t.Errorf("%s: challenge %q, want Bearer with a realm", r.what, h[0])
	}
	if errCode == "" {
		if _, has := c.Params["error"]; has || c.Params["error_description"] != "" {
			t.Errorf("%s: challenge %q has error attributes; none expected", r.what, h[0])
		}
		return
	}
	if c.Params["error"] != errCode || c.Params["error_description"] == "" {
		t.Errorf("%s: challenge %q, want error=%q with a description", r.what, h[0], errCode)
	}
}

// TestBearerChallenge (item 12): every 401 of both APIs carries a Bearer
// challenge (RFC 6750 section 3): error="invalid_token" for a token that
// does not work, no error attributes when there was no token.
func TestBearerChallenge(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		owner := e.owner(t, b)
		app := e.userApp(t)
		e.register(t, b.Key, map[string]any{"email": "challenged@example.com", "pin_code": 1357})
		user := e.asUser(t, app, b.Key, "challenged@example.com", "1357")
		user.get(t, "/users/me").want(t, http.StatusOK)

		t.Run("no token", func(t *testing.T) {
			(&client{e: e, key: b.Key}).get(t, "/me").wantChallenge(t, "")
			(&client{e: e, key: b.Key}).get(t, "/users/me").wantChallenge(t, "")
			(&client{e: e, key: b.Key}).do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 1}).wantChallenge(t, "")
		})
		t.Run("bad token", func(t *testing.T) {
			(&client{e: e, key: b.Key, token: "made-up"}).get(t, "/customers").wantChallenge(t, "invalid_token")
			(&client{e: e, key: b.Key, token: "made-up"}).get(t, "/users/me").wantChallenge(t, "invalid_token")
			(&client{e: e, key: b.Key, token: "made-up"}).do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 1}).wantChallenge(t, "invalid_token")
		})
		t.Run("the key, not the token, failed", func(t *testing.T) {
			(&client{e: e, token: owner.token}).get(t, "/me").wantChallenge(t, "")
			(&client{e: e, key: "no-such-key", token: owner.token}).get(t, "/me").wantChallenge(t, "")
		})
		t.Run("revoked token", func(t *testing.T) {
			tr := e.tokens(t, b)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
			e.postToken(t, b.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken},
				"client_id": {e.client.ID}, "client_secret": {e.client.Secret}}).want(t, http.StatusOK)
			e.me(t, b.Key, tr.AccessToken).wantChallenge(t, "invalid_token")
		})
		t.Run("a good token has no challenge", func(t *testing.T) {
			if r := owner.get(t, "/me").want(t, http.StatusOK); r.Header.Get("WWW-Authenticate") != "" {
				t.Errorf("200 with WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
			}
		})
		// Last: it moves the clock past the tokens' lifetime.
		t.Run("expired token", func(t *testing.T) {
			e.oauth.Advance(25 * time.Hour)
			owner.get(t, "/me").wantChallenge(t, "invalid_token")
			user.get(t, "/users/me").wantChallenge(t, "invalid_token")
		})
	})
}
