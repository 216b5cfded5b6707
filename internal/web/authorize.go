package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// authorizeParams are the query parameters of GET /oauth/authorize that
// the sign-in and consent forms carry along.
var authorizeParams = []string{"client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method", "prompt"}

func authorizeRequest(v url.Values) oauth.AuthorizeRequest {
	r := oauth.AuthorizeRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		ResponseType: v.Get("response_type"), Scope: v.Get("scope"), State: v.Get("state"),
		CodeChallenge: v.Get("code_challenge"), CodeChallengeMethod: v.Get("code_challenge_method"), Prompt: v.Get("prompt")}
	for _, name := range authorizeParams {
		if len(v[name]) > 1 {
			r.Repeated = name
			break
		}
	}
	return r
}

// carried returns the authorization parameters of v that were sent.
func carried(v url.Values) (url.Values, []hidden) {
	q := url.Values{}
	var h []hidden
	for _, name := range authorizeParams {
		if val := v.Get(name); val != "" {
			q.Set(name, val)
			h = append(h, hidden{name, val})
		}
	}
	return q, h
}

// authorize serves GET /oauth/authorize: the owner's sign-in page when
// needed, then the consent page, unless the business approved the app
// before and has not revoked it: then the code goes back to the app at
// once, as after an approval (prompt=consent asks again).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) error {
	authz, err := s.OAuth.CheckAuthorize(r.Context(), authorizeRequest(r.URL.Query()))
	if done, err := s.authorizeFailed(w, r, authz, err); done {
		return err
	}
	sess, ok, err := s.signedIn(r, business)
	if err != nil {
		return err
	}
	if !ok {
		s.renderSignIn(w, r, business, http.StatusOK, s.authorizeSignIn(r.URL.Query(), authz), "")
		return nil
	}
	remembered, err := s.OAuth.Remembered(r.Context(), authz, sess)
	if err != nil {
		return err
	}
	if remembered {
		to, err := s.OAuth.Approve(r.Context(), authz, sess)
		if err != nil {
			return err
		}
		redirectTo(w, to, http.StatusFound)
		return nil
	}
	return s.renderConsent(w, r, authz, sess)
}

// authorizePost serves the forms of the flow: the owner's sign-in, and the
// approve or deny decision. Everything is checked again: a form is only
// as trustworthy as the request that posts it.
func (s *Server) authorizePost(w http.ResponseWriter, r *http.Request) error {
	authz, err := s.OAuth.CheckAuthorize(r.Context(), authorizeRequest(r.PostForm))
	if done, err := s.authorizeFailed(w, r, authz, err); done {
		return err
	}
	if r.PostForm.Get("step") == "signin" {
		f := s.authorizeSignIn(r.PostForm, authz)
		if _, err := s.signIn(w, r, business, false); err != nil {
			return s.signInFailed(w, r, business, f, err)
		}
		q, _ := carried(r.PostForm)
		redirect(w, "/oauth/authorize?"+q.Encode())
		return nil
	}
	sess, ok, err := s.signedIn(r, business)
	if err != nil {
		return err
	}
	if !ok {
		s.renderSignIn(w, r, business, http.StatusUnauthorized, s.authorizeSignIn(r.PostForm, authz),
			"You are no longer signed in. Sign in again to continue.")
		return nil
	}
	switch r.PostForm.Get("decision") {
	case "approve":
		to, err := s.OAuth.Approve(r.Context(), authz, sess)
		if err != nil {
			return err
		}
		redirectTo(w, to, http.StatusFound)
	case "deny":
		redirectTo(w, authz.Deny(), http.StatusFound)
	default:
		return loyalty.Errorf(loyalty.EBadRequest, "Choose Approve or Deny.")
	}
	return nil
}

// authorizeFailed answers a request that failed its check: on an error
// page when the client or callback is in doubt, otherwise back to the app.
func (s *Server) authorizeFailed(w http.ResponseWriter, r *http.Request, authz oauth.Authorization, err error) (bool, error) {
	var ae *oauth.AuthorizeError
	if !errors.As(err, &ae) {
		return err != nil, err
	}
	if ae.Redirect {
		redirectTo(w, authz.ErrorCallback(ae), http.StatusFound)
		return true, nil
	}
	s.render(w, r, http.StatusBadRequest, "error", view{Title: "Authorization failed", Narrow: true, Data: errorPage{
		Heading: "This authorization link can't be used",
		Message: ae.Description + " Contact the developer of the app that sent you here.",
		Code:    ae.Code}})
	return true, nil
}

// authorizeSignIn is the owner's sign-in form inside the flow.
func (s *Server) authorizeSignIn(v url.Values, authz oauth.Authorization) signInForm {
	_, h := carried(v)
	return signInForm{
		Heading: "Sign in to connect " + authz.App.Name,
		Intro:   authz.App.Name + " wants to access your Loyalty business account. Sign in as the business owner to review the request.",
		Action:  "/oauth/authorize",
		Submit:  "Sign in and continue",
		Hidden:  append(h, hidden{"step", "signin"}),
	}
}

// consentPage is the body of the consent template.
type consentPage struct {
	App      oauth.App
	Initial  string
	Business string
	Callback string // the host the browser goes back to
	Hidden   []hidden
	Next     string // this page, for "Not you?"
	Email    string // the signed-in owner
}

func (s *Server) renderConsent(w http.ResponseWriter, r *http.Request, authz oauth.Authorization, sess oauth.Session) error {
	b, err := s.Store.Business(r.Context(), sess.BusinessID)
	if err != nil {
		return err
	}
	q, h := carried(r.URL.Query())
	p := consentPage{App: authz.App, Business: b.Name, Hidden: h, Next: "/oauth/authorize?" + q.Encode(), Email: sess.Email}
	if c, _ := utf8.DecodeRuneInString(authz.App.Name); c != utf8.RuneError {
		p.Initial = string(unicode.ToUpper(c))
	}
	cb, err := url.Parse(authz.App.RedirectURI)
	if err != nil {
		return err
	}
	p.Callback = cb.Host
	// The decision's redirect to the app's callback must pass form-action.
	origin := cspOrigin(cb)
	if origin == "" {
		origin = "https: http:"
	}
	w.Header().Set("Content-Security-Policy", csp(origin))
	s.render(w, r, http.StatusOK, "consent", view{Title: "Connect " + authz.App.Name, Portal: business, Narrow: true, Data: p})
	return nil
}

// cspOrigin is the origin of u written for a CSP source list, or "" when
// it holds a character a source list cannot (so nothing can be injected).
func cspOrigin(u *url.URL) string {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	host := strings.ToLower(u.Host)
	if host == "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-:[]") != "" {
		return ""
	}
	return u.Scheme + "://" + host
}
