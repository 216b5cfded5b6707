package web

import "net/http"

// Destructive actions ask first. The page's button is a link to the
// action's own path: GET shows what will happen and a form that posts
// back with confirm=yes; a post without it changes nothing and is sent to
// that page. No script is needed, and a reload of either page acts never.

// confirmPage is the body of the confirm template.
type confirmPage struct {
	Heading string
	Message string   // what will happen
	Effects []string // each consequence, one per line
	Action  string   // where the confirming form posts
	Submit  string   // the danger button's label
	Back    string   // where Cancel leads
}

// confirmed reports whether a post carries the confirmation; when it does
// not, the browser is sent to the confirmation page at the same path.
func confirmed(w http.ResponseWriter, r *http.Request) bool {
	if r.PostForm.Get("confirm") == "yes" {
		return true
	}
	redirect(w, r.URL.Path)
	return false
}

// deleteConfirmed runs del once the post carries the confirmation
// (confirmed), then sends the browser to done.
func deleteConfirmed(w http.ResponseWriter, r *http.Request, del func() error, done string) error {
	if !confirmed(w, r) {
		return nil
	}
	if err := del(); err != nil {
		return err
	}
	redirect(w, done)
	return nil
}

// renderConfirm shows the confirmation page of a destructive action.
func (s *Server) renderConfirm(w http.ResponseWriter, r *http.Request, v view, p confirmPage) {
	if p.Action == "" {
		p.Action = r.URL.Path
	}
	v.Title, v.Data = p.Heading, p
	s.render(w, r, http.StatusOK, "confirm", v)
}
