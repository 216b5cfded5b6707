package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

func (s *Server) staffRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/staff", s.console(loyalty.PermStaff, s.staffHome))
	mux.Handle("POST /business/staff", s.console(loyalty.PermStaff, s.staffInvite))
	mux.Handle("POST /business/staff/{id}/role", s.console(loyalty.PermStaff, s.staffRole))
	mux.Handle("POST /business/staff/{id}/invitation", s.console(loyalty.PermStaff, s.staffReinvite))
	mux.Handle("GET /business/staff/{id}/remove", s.console(loyalty.PermStaff, s.staffRemoveConfirm))
	mux.Handle("POST /business/staff/{id}/remove", s.console(loyalty.PermStaff, s.staffRemove))
	mux.Handle("GET /business/invitation", s.page(s.invitationForm))
	mux.Handle("POST /business/invitation", s.page(s.invitationAccept))
}

// staffPage is the body of the staff template.
type staffPage struct {
	Owner   string // the owner's e-mail, shown first
	Members []loyalty.StaffMember
	Roles   []roleChoice
}

// roleChoice is a role as the forms offer it.
type roleChoice struct{ Value, Label, Hint string }

var roleChoices = []roleChoice{
	{loyalty.RoleManager, "Manager", "Everything but the Application Key, the apps and the staff."},
	{loyalty.RoleCashier, "Cashier", "The counter and the customer look-up only."},
}

func (s *Server) staffHome(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderStaff(w, r, a, http.StatusOK, nil, map[string]string{"role": loyalty.RoleCashier}, "")
}

func (s *Server) renderStaff(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, fields map[string][]string, form map[string]string, msg string) error {
	members, err := s.Console.Staff.List(r.Context(), a)
	if err != nil {
		return err
	}
	v := s.consoleView(r, a, "Staff")
	v.Fields, v.Form, v.Error = fields, form, msg
	v.Data = staffPage{Owner: a.Email, Members: members, Roles: roleChoices}
	s.render(w, r, status, "staff", v)
	return nil
}

// acceptURL is the invitation page's address for the e-mail: the public
// address when configured, otherwise the host the owner's browser used.
func (s *Server) acceptURL(r *http.Request) string {
	return s.siteURL(r, true) + "/business/invitation"
}

// siteURL is the service's address for links in e-mails; without
// PublicURL, the request's host when it may be trusted (a signed-in
// request), "" otherwise.
func (s *Server) siteURL(r *http.Request, trustHost bool) string {
	if s.PublicURL != "" {
		return strings.TrimSuffix(s.PublicURL, "/")
	}
	if !trustHost || r.Host == "" {
		return ""
	}
	scheme := "http"
	if s.Transport.IsHTTPS(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) staffInvite(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	in := console.StaffInvite{Email: f.Get("email"), Role: f.Get("role")}
	_, err := s.Console.Staff.Invite(r.Context(), a, in, s.acceptURL(r))
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderStaff(w, r, a, httpapi.StatusOf(e.Code), e.Fields,
			map[string]string{"email": in.Email, "role": in.Role}, "Please correct the fields marked below.")
	} else if err != nil {
		return err
	}
	redirect(w, "/business/staff?notice=invited")
	return nil
}

func (s *Server) staffRole(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if _, err := s.Console.Staff.SetRole(r.Context(), a, r.PathValue("id"), r.PostForm.Get("role")); err != nil {
		return err
	}
	redirect(w, "/business/staff?notice=role")
	return nil
}

func (s *Server) staffReinvite(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if _, err := s.Console.Staff.Reinvite(r.Context(), a, r.PathValue("id"), s.acceptURL(r)); err != nil {
		return err
	}
	redirect(w, "/business/staff?notice=reinvited")
	return nil
}

func (s *Server) staffRemoveConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	m, err := s.Console.Staff.Member(r.Context(), a, r.PathValue("id"))
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{
		Heading: "Remove " + m.Email + " from your staff?",
		Message: m.Email + " (" + m.Role + ") will no longer be able to sign in to the console.",
		Effects: []string{"They are signed out of every browser at once.",
			"Their entries in the audit log stay. To have them back, invite them again."},
		Submit: "Remove from staff", Back: "/business/staff"})
	return nil
}

func (s *Server) staffRemove(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	if _, err := s.Console.Staff.Remove(r.Context(), a, r.PathValue("id")); err != nil {
		return err
	}
	redirect(w, "/business/staff?notice=removed")
	return nil
}

// invitationPage is the body of the invitation template.
type invitationPage struct {
	Business string
	Email    string
	Role     string
	Token    string
}

// invitationForm shows an invitation to the person it was sent to, with
// the form to choose a password.
func (s *Server) invitationForm(w http.ResponseWriter, r *http.Request) error {
	return s.renderInvitation(w, r, http.StatusOK, r.URL.Query().Get("token"), nil, "")
}

func (s *Server) renderInvitation(w http.ResponseWriter, r *http.Request, status int, token string, fields map[string][]string, msg string) error {
	inv, err := s.Console.Staff.Invitation(r.Context(), token)
	if code := loyalty.ErrorCode(err); code == loyalty.ENotFound {
		s.render(w, r, httpapi.StatusOf(code), "error", view{Title: "Invitation not valid", Narrow: true,
			Data: errorPage{Heading: "This invitation cannot be used", Message: loyalty.ErrorMessage(err)}})
		return nil
	} else if err != nil {
		return err
	}
	s.render(w, r, status, "invitation", view{Title: "Join " + inv.Business.Name, Portal: business, Narrow: true,
		Fields: fields, Error: msg, Data: invitationPage{Business: inv.Business.Name, Email: inv.Member.Email,
			Role: inv.Member.Role, Token: token}})
	return nil
}

// invitationAccept sets the new member's password; the invitation works
// once. Posts are budgeted per client IP like sign-in: each hashes a
// password.
func (s *Server) invitationAccept(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	token := f.Get("token")
	if ok, retry := s.allowPost(r); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		return s.renderInvitation(w, r, http.StatusTooManyRequests, token, nil, "Too many attempts from your network. Wait a minute and try again.")
	}
	if f.Get("password") != f.Get("password_again") {
		return s.renderInvitation(w, r, http.StatusUnprocessableEntity, token,
			map[string][]string{"password_again": {"The two passwords differ."}}, "Please correct the fields marked below.")
	}
	_, err := s.Console.Staff.Accept(r.Context(), token, f.Get("password"))
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderInvitation(w, r, httpapi.StatusOf(e.Code), token, e.Fields, "Please correct the fields marked below.")
	} else if err != nil {
		return err
	}
	redirect(w, "/business?notice=joined")
	return nil
}
