package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// The merchant console is the business portal as its owner and staff use
// it. Every page and action names the permission it needs; the role rules
// are the domain's (loyalty.Actor), the pages only ask.

// navItem is one link of the console's navigation.
type navItem struct {
	Href, Label string
	Perm        loyalty.Permission // "" for every role
}

// consoleNav is the console's navigation, in order.
var consoleNav = []navItem{
	{"/business/dashboard", "Dashboard", loyalty.PermManage},
	{"/business/counter", "Counter", loyalty.PermCounter},
	{"/business/customers", "Customers", loyalty.PermCounter},
	{"/business/program", "Program", loyalty.PermManage},
	{"/business/imports", "Imports", loyalty.PermManage},
	{"/business/profile", "Profile", loyalty.PermManage},
	{"/business/audit", "Audit log", loyalty.PermManage},
	{"/business/staff", "Staff", loyalty.PermStaff},
	{"/business", "Apps & key", loyalty.PermKeys},
	{"/business/password", "Password", ""},
}

// consoleBar is what the layout shows of the console: the business, the
// role and the links the role may follow.
type consoleBar struct {
	Business string
	Role     string
	Links    []navLink
}

// navLink is a link of the bar; Current marks the page shown.
type navLink struct {
	Href, Label string
	Current     bool
}

// consoleHandler is a console page or action for a signed-in actor.
type consoleHandler func(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error

// console wraps h: the browser must be signed in to the business console
// (or is sent to its sign-in page) and its role must allow perm (or the
// answer is 403).
func (s *Server) console(perm loyalty.Permission, h consoleHandler) http.Handler {
	return s.page(func(w http.ResponseWriter, r *http.Request) error {
		a, ok, err := s.actor(r)
		if err != nil {
			return err
		}
		if !ok {
			redirect(w, business.Home)
			return nil
		}
		// The business read here serves the page too (consoleBusiness).
		b, err := s.Store.Business(r.Context(), a.BusinessID)
		if err != nil {
			return err
		}
		r = r.WithContext(context.WithValue(r.Context(), businessKey{}, b))
		if perm != "" {
			if err := a.Require(perm); err != nil {
				v := s.consoleView(r, a, "Not allowed")
				v.Data = errorPage{Heading: "This page is not for your role", Message: loyalty.ErrorMessage(err)}
				s.render(w, r, http.StatusForbidden, "error", v)
				return nil
			}
		}
		return h(w, r, a)
	})
}

// businessKey carries the actor's business through a console request.
type businessKey struct{}

// consoleBusiness is the actor's business: the one console read for the
// request, or read now for a page outside console.
func (s *Server) consoleBusiness(r *http.Request, a loyalty.Actor) (loyalty.Business, error) {
	if b, ok := r.Context().Value(businessKey{}).(loyalty.Business); ok && b.ID == a.BusinessID {
		return b, nil
	}
	return s.Store.Business(r.Context(), a.BusinessID)
}

// actor returns who the browser is signed in to the console as: the
// business's owner, or a member of its staff.
func (s *Server) actor(r *http.Request) (loyalty.Actor, bool, error) {
	c, err := r.Cookie(business.Cookie)
	if err != nil {
		return loyalty.Actor{}, false, nil
	}
	var sess oauth.Session
	for _, kind := range []string{oauth.KindOwner, loyalty.AccountStaff} {
		sess, err = s.OAuth.Session(r.Context(), kind, c.Value)
		if loyalty.ErrorCode(err) != loyalty.EUnauthorized {
			break
		}
	}
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		return loyalty.Actor{}, false, nil
	} else if err != nil {
		return loyalty.Actor{}, false, err
	}
	a, err := s.Console.Staff.Actor(r.Context(), sess.Kind, sess.SubjectID, sess.BusinessID, sess.Email)
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		return loyalty.Actor{}, false, nil
	}
	return a, err == nil, err
}

// consoleView is the view of a console page for a, with the navigation
// its role may follow.
func (s *Server) consoleView(r *http.Request, a loyalty.Actor, title string) view {
	bar := &consoleBar{Role: a.Role}
	if b, err := s.consoleBusiness(r, a); err == nil {
		bar.Business = b.Name
	}
	for _, n := range consoleNav {
		if n.Perm == "" || a.Can(n.Perm) {
			bar.Links = append(bar.Links, navLink{Href: n.Href, Label: n.Label, Current: current(r.URL.Path, n.Href)})
		}
	}
	return view{Title: title, Portal: business, User: a.Email, Notice: notice(r), Console: bar}
}

// current reports whether the page at path belongs to the section href.
func current(path, href string) bool {
	if href == business.Home {
		return path == href || strings.HasPrefix(path, "/business/key") || strings.HasPrefix(path, "/business/apps/")
	}
	return path == href || strings.HasPrefix(path, href+"/")
}

// home is where a role starts: the owner at the Application Key and
// apps (the dashboard is the first link of the bar), a manager at the
// dashboard, a cashier at the counter.
func home(a loyalty.Actor) string {
	switch {
	case a.Can(loyalty.PermKeys):
		return business.Home
	case a.Can(loyalty.PermManage):
		return "/business/dashboard"
	}
	return "/business/counter"
}
