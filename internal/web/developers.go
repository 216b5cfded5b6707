package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

var devSignIn = signInForm{
	Heading: "Sign in to the developer portal",
	Intro:   "Register apps that use the Loyalty API, and manage their credentials.",
	Action:  "/developers/signin",
	SignUp:  true,
}

func (s *Server) developerRoutes(mux *http.ServeMux) {
	mux.Handle("GET /developers", s.page(s.devHome))
	mux.Handle("GET /developers/signup", s.page(s.devSignUpForm))
	mux.Handle("POST /developers/signup", s.page(s.devSignUp))
	mux.Handle("POST /developers/signin", s.page(s.signInHandler(developers, devSignIn)))
	mux.Handle("POST /developers/signout", s.page(s.signOutHandler(developers)))
	mux.Handle("GET /developers/apps/new", s.page(s.devNewApp))
	mux.Handle("POST /developers/apps", s.page(s.devCreateApp))
	mux.Handle("GET /developers/apps/{client_id}", s.page(s.devApp))
	mux.Handle("GET /developers/apps/{client_id}/secret", s.page(s.devRegenerateConfirm))
	mux.Handle("POST /developers/apps/{client_id}/secret", s.page(s.devRegenerate))
}

// devHome lists the developer's apps, or asks them to sign in.
func (s *Server) devHome(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.signedIn(r, developers)
	if err != nil {
		return err
	}
	if !ok {
		s.renderSignIn(w, r, developers, http.StatusOK, devSignIn, "")
		return nil
	}
	apps, err := s.OAuth.DeveloperApps(r.Context(), sess.SubjectID)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "dev_home", view{Title: "Your apps", Portal: developers, User: sess.Email,
		Notice: notice(r), Data: apps})
	return nil
}

func (s *Server) devSignUpForm(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "signup", view{Title: "Create a developer account", Portal: developers, Narrow: true})
	return nil
}

func (s *Server) devSignUp(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	form := map[string]string{"name": f.Get("name"), "email": f.Get("email")}
	fail := func(status int, msg string, fields map[string][]string) error {
		s.render(w, r, status, "signup", view{Title: "Create a developer account", Portal: developers, Narrow: true,
			Error: msg, Fields: fields, Form: form})
		return nil
	}
	if ok, _ := s.allowPost(r); !ok {
		return fail(http.StatusTooManyRequests, "Too many attempts from your network. Wait a minute and try again.", nil)
	}
	n := oauth.NewAccount{Name: f.Get("name"), Email: f.Get("email"), Password: f.Get("password")}
	login, err := s.OAuth.SignUpDeveloper(r.Context(), n)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return fail(httpapi.StatusOf(e.Code), "Please correct the fields marked below.", e.Fields)
	} else if err != nil {
		return err
	}
	if err := s.startSession(w, r, developers, login, n.Email); err != nil {
		return err
	}
	redirect(w, "/developers?notice=welcome")
	return nil
}

// appPage is the body of the app template.
type appPage struct {
	App          oauth.App
	Secret       string // shown once: at creation and after regeneration
	NewSecret    bool   // the secret was regenerated, not created
	AuthorizeURL string // an example link for authorization-code apps
}

func (s *Server) devNewApp(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, developers)
	if !ok {
		return err
	}
	s.render(w, r, http.StatusOK, "dev_new", view{Title: "Register an app", Portal: developers, User: sess.Email,
		Form: map[string]string{"api": oauth.APIBusiness, "grant": oauth.GrantCode}})
	return nil
}

func (s *Server) devCreateApp(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, developers)
	if !ok {
		return err
	}
	f := r.PostForm
	n := oauth.NewApp{Name: f.Get("name"), Description: strings.TrimSpace(f.Get("description")),
		RedirectURI: strings.TrimSpace(f.Get("redirect_uri")), API: f.Get("api"), GrantType: f.Get("grant")}
	created, err := s.OAuth.RegisterApp(r.Context(), sess.SubjectID, n)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		form := map[string]string{}
		for k := range f {
			form[k] = f.Get(k)
		}
		s.render(w, r, httpapi.StatusOf(e.Code), "dev_new", view{Title: "Register an app", Portal: developers,
			User: sess.Email, Error: "Please correct the fields marked below.", Fields: e.Fields, Form: form})
		return nil
	} else if err != nil {
		return err
	}
	s.showSecretOnce(w, r, created.ClientID, "created", created.ClientSecret)
	return nil
}

// secretFlash is the cookie that carries a new client secret to the app's
// page, the one place it is shown.
const secretFlash = "loyalty_secret"

// showSecretOnce sends the browser to the app's page, which shows secret
// once; how says whether it was created or regenerated.
func (s *Server) showSecretOnce(w http.ResponseWriter, r *http.Request, clientID, how, secret string) {
	c, _ := r.Cookie(developers.Cookie)
	path := "/developers/apps/" + clientID
	s.setFlash(w, r, secretFlash, path, c.Value, how+":"+secret)
	redirect(w, path)
}

func (s *Server) devApp(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, developers)
	if !ok {
		return err
	}
	app, err := s.OAuth.DeveloperApp(r.Context(), sess.SubjectID, r.PathValue("client_id"))
	if err != nil {
		return err
	}
	p := appPage{App: app}
	c, _ := r.Cookie(developers.Cookie)
	if how, secret, ok := strings.Cut(s.takeFlash(w, r, secretFlash, c.Value), ":"); ok {
		p.Secret, p.NewSecret = secret, how == "regenerated"
	}
	s.renderApp(w, r, sess, http.StatusOK, p)
	return nil
}

// devRegenerateConfirm asks before a new secret replaces the current one.
func (s *Server) devRegenerateConfirm(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, developers)
	if !ok {
		return err
	}
	app, err := s.OAuth.DeveloperApp(r.Context(), sess.SubjectID, r.PathValue("client_id"))
	if err != nil {
		return err
	}
	back := "/developers/apps/" + app.ClientID
	s.renderConfirm(w, r, view{Portal: developers, User: sess.Email}, confirmPage{
		Heading: "Regenerate the Client Secret of " + app.Name + "?",
		Message: "A new secret is issued and shown once.",
		Effects: []string{"The current secret stops working immediately: update every server that uses it.",
			"Tokens already issued keep working."},
		Submit: "Regenerate secret", Back: back})
	return nil
}

func (s *Server) devRegenerate(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, developers)
	if !ok {
		return err
	}
	id := r.PathValue("client_id")
	// Another developer's app is not found, confirmed or not.
	if _, err := s.OAuth.DeveloperApp(r.Context(), sess.SubjectID, id); err != nil {
		return err
	}
	if !confirmed(w, r) {
		return nil
	}
	secret, err := s.OAuth.RegenerateSecret(r.Context(), sess.SubjectID, id)
	if err != nil {
		return err
	}
	s.showSecretOnce(w, r, id, "regenerated", secret)
	return nil
}

// renderApp shows one app; the page is never cached, since it may hold
// the one showing of a secret.
func (s *Server) renderApp(w http.ResponseWriter, r *http.Request, sess oauth.Session, status int, p appPage) {
	if p.App.GrantType == oauth.GrantCode {
		scheme := "http"
		if s.Transport.IsHTTPS(r) {
			scheme = "https"
		}
		q := url.Values{"client_id": {p.App.ClientID}, "redirect_uri": {p.App.RedirectURI},
			"response_type": {"code"}, "scope": {oauth.ScopeAdmin}, "state": {"RANDOM_STATE"}}
		p.AuthorizeURL = scheme + "://" + r.Host + "/oauth/authorize?" + q.Encode()
	}
	s.render(w, r, status, "dev_app", view{Title: p.App.Name, Portal: developers, User: sess.Email, Data: p})
}
