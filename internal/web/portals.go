package web

import (
	"net/http"
	"slices"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

var supportSignIn = signInForm{
	Heading: "Sign in to Loyalty support",
	Intro:   "Review the apps developers register, and approve or suspend them.",
	Action:  "/support/signin",
}

var businessSignIn = signInForm{
	Heading: "Sign in to your business",
	Intro:   "Use the e-mail address and password of the business owner.",
	Action:  "/business/signin",
}

func (s *Server) supportRoutes(mux *http.ServeMux) {
	mux.Handle("GET /support", s.page(s.supportHome))
	mux.Handle("POST /support/signin", s.page(s.signInHandler(support, supportSignIn)))
	mux.Handle("POST /support/signout", s.page(s.signOutHandler(support)))
	mux.Handle("POST /support/apps/{client_id}/approve", s.page(s.setAppStatus(oauth.AppApproved)))
	mux.Handle("GET /support/apps/{client_id}/suspend", s.page(s.suspendConfirm))
	mux.Handle("POST /support/apps/{client_id}/suspend", s.page(s.setAppStatus(oauth.AppSuspended)))
}

// supportPage is the body of the support template.
type supportPage struct {
	Pending []oauth.ListedApp
	Others  []oauth.ListedApp
}

// supportHome lists the apps waiting for review, then every other app.
func (s *Server) supportHome(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.signedIn(r, support)
	if err != nil {
		return err
	}
	if !ok {
		s.renderSignIn(w, r, support, http.StatusOK, supportSignIn, "")
		return nil
	}
	apps, err := s.OAuth.ListApps(r.Context())
	if err != nil {
		return err
	}
	var p supportPage
	for _, a := range apps {
		if a.Status == oauth.AppPending {
			p.Pending = append(p.Pending, a)
		} else {
			p.Others = append(p.Others, a)
		}
	}
	s.render(w, r, http.StatusOK, "support", view{Title: "App review", Portal: support, User: sess.Email, Notice: notice(r), Data: p})
	return nil
}

// suspendConfirm asks support before an app's tokens stop.
func (s *Server) suspendConfirm(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, support)
	if !ok {
		return err
	}
	app, err := s.OAuth.App(r.Context(), r.PathValue("client_id"))
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, view{Portal: support, User: sess.Email}, confirmPage{
		Heading: "Suspend " + app.Name + "?",
		Message: "The app is suspended until support approves it again.",
		Effects: []string{"Its access and refresh tokens stop working at once, for every business.",
			"It cannot obtain new tokens."},
		Submit: "Suspend app", Back: "/support"})
	return nil
}

func (s *Server) setAppStatus(status string) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, ok, err := s.requireSession(w, r, support); !ok {
			return err
		}
		if status == oauth.AppSuspended && !confirmed(w, r) {
			return nil
		}
		if err := s.OAuth.SetAppStatus(r.Context(), r.PathValue("client_id"), status); err != nil {
			return err
		}
		redirect(w, "/support?notice="+status)
		return nil
	}
}

func (s *Server) businessRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business", s.page(s.businessHome))
	mux.Handle("POST /business/signin", s.page(s.signInHandler(business, businessSignIn)))
	mux.Handle("POST /business/signout", s.page(s.signOutHandler(business)))
	mux.Handle("GET /business/key", s.page(s.rotateKeyConfirm))
	mux.Handle("POST /business/key", s.page(s.rotateKey))
	mux.Handle("GET /business/apps/{app_id}/revoke", s.page(s.revokeAppConfirm))
	mux.Handle("POST /business/apps/{app_id}/revoke", s.page(s.revokeApp))
}

// businessPage is the body of the business template.
type businessPage struct {
	Name        string
	Key         string
	Connections []oauth.Connection
}

// businessHome shows the owner the Application Key and the connected apps.
func (s *Server) businessHome(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.signedIn(r, business)
	if err != nil {
		return err
	}
	if !ok {
		s.renderSignIn(w, r, business, http.StatusOK, businessSignIn, "")
		return nil
	}
	b, err := s.Store.Business(r.Context(), sess.BusinessID)
	if err != nil {
		return err
	}
	p := businessPage{Name: b.Name}
	if p.Key, err = s.Admin.ApplicationKey(r.Context(), sess.BusinessID); err != nil {
		return err
	}
	if p.Connections, err = s.OAuth.Connections(r.Context(), sess.BusinessID); err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "business", view{Title: b.Name, Portal: business, User: sess.Email, Notice: notice(r), Data: p})
	return nil
}

// rotateKeyConfirm asks before the Application Key is replaced.
func (s *Server) rotateKeyConfirm(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, business)
	if !ok {
		return err
	}
	s.renderConfirm(w, r, view{Portal: business, User: sess.Email}, confirmPage{
		Heading: "Rotate the Application Key?",
		Message: "A new Application Key is issued in place of the current one.",
		Effects: []string{"The current key stops working immediately, for every app and device that uses it.",
			"Each of them must be given the new key."},
		Submit: "Rotate key", Back: "/business"})
	return nil
}

func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, business)
	if !ok || !confirmed(w, r) {
		return err
	}
	if _, err := s.Admin.RotateKey(r.Context(), sess.BusinessID); err != nil {
		return err
	}
	redirect(w, "/business?notice=rotated")
	return nil
}

// revokeAppConfirm asks before a connected app loses its access.
func (s *Server) revokeAppConfirm(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, business)
	if !ok {
		return err
	}
	conns, err := s.OAuth.Connections(r.Context(), sess.BusinessID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(conns, func(c oauth.Connection) bool { return c.App.ID == r.PathValue("app_id") })
	if i < 0 {
		return loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	s.renderConfirm(w, r, view{Portal: business, User: sess.Email}, confirmPage{
		Heading: "Revoke the access of " + conns[i].App.Name + "?",
		Message: conns[i].App.Name + " will no longer act for your business.",
		Effects: []string{"Its access and refresh tokens stop working immediately.",
			"To connect it again, you approve it again."},
		Submit: "Revoke access", Back: "/business"})
	return nil
}

func (s *Server) revokeApp(w http.ResponseWriter, r *http.Request) error {
	sess, ok, err := s.requireSession(w, r, business)
	if !ok || !confirmed(w, r) {
		return err
	}
	if err := s.OAuth.RevokeConnection(r.Context(), sess.BusinessID, r.PathValue("app_id")); err != nil {
		return err
	}
	redirect(w, "/business?notice=revoked")
	return nil
}
