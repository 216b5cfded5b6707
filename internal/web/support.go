package web

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/oauth"
)

// The support portal, where Loyalty's staff review the apps developers
// register: approve them, or suspend them.

// supportSignIn is the support portal's sign-in form.
var supportSignIn = signInForm{
	Heading: "Sign in to Loyalty support",
	Intro:   "Review the apps developers register, and approve or suspend them.",
	Action:  "/support/signin",
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
