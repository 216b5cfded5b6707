package web

import (
	"net/http"
	"slices"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// businessSignIn is the business console's sign-in form.
var businessSignIn = signInForm{
	Heading: "Sign in to your business",
	Intro:   "The business console, for the owner and the staff of a business.",
	Action:  "/business/signin",
	Owner:   true,
}

func (s *Server) businessRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business", s.page(s.businessHome))
	// Any other address under /business is the console's: a mistyped one
	// answers the console's own "Page not found", not the API's JSON.
	mux.Handle("GET /business/", s.page(func(http.ResponseWriter, *http.Request) error {
		return loyalty.Errorf(loyalty.ENotFound, "Page not found.")
	}))
	mux.Handle("POST /business/signin", s.page(s.signInHandler(business, businessSignIn)))
	mux.Handle("POST /business/signout", s.page(s.signOutHandler(business)))
	mux.Handle("GET /business/key", s.console(loyalty.PermKeys, s.rotateKeyConfirm))
	mux.Handle("POST /business/key", s.console(loyalty.PermKeys, s.rotateKey))
	mux.Handle("GET /business/apps/{app_id}/revoke", s.console(loyalty.PermKeys, s.revokeAppConfirm))
	mux.Handle("POST /business/apps/{app_id}/revoke", s.console(loyalty.PermKeys, s.revokeApp))
	mux.Handle("GET /business/dashboard", s.console(loyalty.PermManage, s.dashboard))
	mux.Handle("GET /business/audit", s.console(loyalty.PermManage, s.auditLog))
	mux.Handle("GET /business/profile", s.console(loyalty.PermManage, s.profile))
	mux.Handle("POST /business/profile", s.console(loyalty.PermManage, s.profileSave))
	s.staffRoutes(mux)
	s.counterRoutes(mux)
	s.customerRoutes(mux)
	s.segmentRoutes(mux)
	s.campaignRoutes(mux)
	s.automationRoutes(mux)
	s.enrolRoutes(mux)
	s.programRoutes(mux)
	s.exportRoutes(mux)
	s.importRoutes(mux)
}

// businessPage is the body of the business template.
type businessPage struct {
	Name        string
	Key         string
	Connections []oauth.Connection
}

// businessHome shows the owner the Application Key and the connected
// apps (Settings, Apps & key; the owner lands on the dashboard after
// signing in); other roles go to where they start, and a browser not
// signed in gets the sign-in form.
func (s *Server) businessHome(w http.ResponseWriter, r *http.Request) error {
	a, ok, err := s.actor(r)
	if err != nil {
		return err
	}
	if !ok {
		s.renderSignIn(w, r, business, http.StatusOK, businessSignIn, "")
		return nil
	}
	if !a.Can(loyalty.PermKeys) {
		redirect(w, home(a))
		return nil
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	p := businessPage{Name: b.Name}
	if p.Key, err = s.Console.Access.Key(r.Context(), a); err != nil {
		return err
	}
	if p.Connections, err = s.OAuth.Connections(r.Context(), a.BusinessID); err != nil {
		return err
	}
	v := s.consoleView(r, a, b.Name)
	v.Data = p
	s.render(w, r, http.StatusOK, "business", v)
	return nil
}

// rotateKeyConfirm asks before the Application Key is replaced.
func (s *Server) rotateKeyConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{
		Heading: "Rotate the Application Key?",
		Message: "A new Application Key is issued in place of the current one.",
		Effects: []string{"The current key stops working immediately, for every app and device that uses it.",
			"Each of them must be given the new key."},
		Submit: "Rotate key", Back: "/business"})
	return nil
}

func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	if err := s.Console.Access.RotateKey(r.Context(), a); err != nil {
		return err
	}
	redirect(w, "/business?notice=rotated")
	return nil
}

// connection returns the app with access to the actor's business that the
// path names.
func (s *Server) connection(r *http.Request, a loyalty.Actor) (oauth.Connection, error) {
	conns, err := s.OAuth.Connections(r.Context(), a.BusinessID)
	if err != nil {
		return oauth.Connection{}, err
	}
	i := slices.IndexFunc(conns, func(c oauth.Connection) bool { return c.App.ID == r.PathValue("app_id") })
	if i < 0 {
		return oauth.Connection{}, loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return conns[i], nil
}

// revokeAppConfirm asks before a connected app loses its access.
func (s *Server) revokeAppConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	c, err := s.connection(r, a)
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{
		Heading: "Revoke the access of " + c.App.Name + "?",
		Message: c.App.Name + " will no longer act for your business.",
		Effects: []string{"Its access and refresh tokens stop working immediately.",
			"To connect it again, you approve it again."},
		Submit: "Revoke access", Back: "/business"})
	return nil
}

func (s *Server) revokeApp(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	c, err := s.connection(r, a)
	if err != nil {
		return err
	}
	if err := s.Console.Access.RevokeApp(r.Context(), a, c.App.ID, c.App.Name); err != nil {
		return err
	}
	redirect(w, "/business?notice=revoked")
	return nil
}
