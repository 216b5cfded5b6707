package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// The merchant console is the business portal as its owner and staff use
// it. Every page and action names the permission it needs; the role rules
// are the domain's (loyalty.Actor), the pages only ask.

// navItem is one link of the console's navigation; Group names the menu
// it is folded into ("" for the bar itself).
type navItem struct {
	Href, Label string
	Perm        loyalty.Permission // "" for every role
	Group       string
}

// Menus of the console's navigation: a few links on the bar, the rest
// folded into menus by what they are for, so that the bar fits one row on
// a desktop.
const (
	menuProgram   = "Program"
	menuData      = "Data"
	menuSettings  = "Settings"
	menuMarketing = "Marketing" // segments, campaigns and automations
)

// consoleNav is the console's navigation, in order; the program's parts
// (programNav) follow its overview.
var consoleNav = []navItem{
	{"/business/dashboard", "Dashboard", loyalty.PermManage, ""},
	{"/business/counter", "Counter", loyalty.PermCounter, ""},
	{"/business/customers", "Customers", loyalty.PermCounter, ""},
	{"/business/segments", "Segments", loyalty.PermManage, menuMarketing},
	{"/business/campaigns", "Campaigns", loyalty.PermManage, menuMarketing},
	{"/business/automations", "Automations", loyalty.PermManage, menuMarketing},
	{"/business/program", "Overview", loyalty.PermManage, menuProgram},
	{"/business/program/rules", "Points per spend", loyalty.PermManage, menuProgram},
	{"/business/imports", "Imports", loyalty.PermManage, menuData},
	{"/business/audit", "Audit log", loyalty.PermManage, menuData},
	{"/business/profile", "Business profile", loyalty.PermManage, menuSettings},
	{"/business/staff", "Staff", loyalty.PermStaff, menuSettings},
	{"/business", "Apps & key", loyalty.PermKeys, menuSettings},
	{"/business/password", "Password", "", menuSettings},
}

// navItems is consoleNav with a link to each part of the program after
// its overview and rules.
func navItems() []navItem {
	out := make([]navItem, 0, len(consoleNav)+len(setupKinds))
	for _, n := range consoleNav {
		out = append(out, n)
		if n.Href == "/business/program/rules" {
			for _, k := range setupKinds {
				out = append(out, navItem{"/business/program/" + k.Path, k.Title, loyalty.PermManage, menuProgram})
			}
		}
	}
	return out
}

// consoleBar is what the layout shows of the console: the business, the
// role, the links the role may follow and where the role starts.
type consoleBar struct {
	Business string
	Role     string
	Home     string    // the role's landing page, where the brand leads
	Items    []navMenu // the bar: links and menus
	Dev      bool      // the role holds the keys: the footer shows the developer portal
}

// navMenu is a link of the bar, or a menu of links (Links set).
type navMenu struct {
	navLink
	Links []navLink
}

// navLink is a link of the bar; Current marks the page shown (on a menu:
// a page of the menu).
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

// businessIn is the console's business and its time zone, which the
// pages that show or take times in the business's day read together.
func (s *Server) businessIn(r *http.Request, a loyalty.Actor) (loyalty.Business, *time.Location, error) {
	loc, err := s.location(r, a)
	if err != nil {
		return loyalty.Business{}, nil, err
	}
	b, err := s.consoleBusiness(r, a)
	return b, loc, err
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
	bar := &consoleBar{Role: a.Role, Home: home(a), Dev: a.Can(loyalty.PermKeys)}
	if b, err := s.consoleBusiness(r, a); err == nil {
		bar.Business = b.Name
	}
	bar.Items = consoleMenus(r.URL.Path, a)
	return view{Title: title, Portal: business, User: a.Email, Notice: notice(r), Console: bar}
}

// consoleMenus lays out the links a may follow: each in its menu, a menu
// with one link shown as that link.
func consoleMenus(path string, a loyalty.Actor) []navMenu {
	var out []navMenu
	at := map[string]int{}
	for _, n := range navItems() {
		if n.Perm != "" && !a.Can(n.Perm) {
			continue
		}
		l := navLink{Href: n.Href, Label: n.Label, Current: current(path, n.Href)}
		if n.Group == "" {
			out = append(out, navMenu{navLink: l})
			continue
		}
		i, ok := at[n.Group]
		if !ok {
			i = len(out)
			at[n.Group] = i
			out = append(out, navMenu{navLink: navLink{Label: n.Group}})
		}
		out[i].Links = append(out[i].Links, l)
		out[i].Current = out[i].Current || l.Current
	}
	for i, m := range out {
		if len(m.Links) == 1 {
			out[i] = navMenu{navLink: m.Links[0]}
		}
	}
	return out
}

// current reports whether the page at path belongs to the section href.
func current(path, href string) bool {
	switch href {
	case business.Home:
		return path == href || strings.HasPrefix(path, "/business/key") || strings.HasPrefix(path, "/business/apps/")
	case programHome:
		return path == href // its parts have links of their own
	}
	return path == href || strings.HasPrefix(path, href+"/")
}

// Console pages a role starts at or the menu singles out.
const (
	dashboardHome = "/business/dashboard"
	programHome   = "/business/program"
)

// home is where a role starts: the owner and managers at the dashboard,
// a cashier at the counter.
func home(a loyalty.Actor) string {
	if a.Can(loyalty.PermManage) {
		return dashboardHome
	}
	return "/business/counter"
}
