package web

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The unsubscribe page is where a campaign message's link leads: it names
// the business and withdraws the member's marketing consent on every
// channel with one button. Mail programs post to the same address without
// a page (RFC 8058's one-click List-Unsubscribe-Post), so the post needs
// no form token: the signed link is the authority, and all it can do is
// stop marketing.

func (s *Server) unsubscribeRoutes(mux *http.ServeMux) {
	if s.Consents == nil {
		return
	}
	mux.Handle("GET /unsubscribe/{token}", s.page(s.unsubscribeForm))
	mux.Handle("POST /unsubscribe/{token}", s.page(s.unsubscribe, pageNoCSRF))
}

// unsubscribePage is the body of the unsubscribe template.
type unsubscribePage struct {
	Name       string // the business's
	Subscribed bool
	Done       bool // it was just withdrawn
	Action     string
}

func (s *Server) unsubscribeView(r *http.Request, u loyalty.Unsubscription, done bool) view {
	return view{Title: "Stop messages from " + u.Business.Name, Narrow: true, Public: true,
		Data: unsubscribePage{Name: u.Business.Name, Subscribed: u.Subscribed, Done: done, Action: r.URL.Path}}
}

func (s *Server) unsubscribeForm(w http.ResponseWriter, r *http.Request) error {
	u, err := s.Consents.Unsubscribed(r.Context(), s.UnsubscribeKey, r.PathValue("token"))
	if err != nil {
		return err
	}
	v := s.unsubscribeView(r, u, false)
	v.CSRF = s.csrfToken(w, r)
	s.render(w, r, http.StatusOK, "unsubscribe", v)
	return nil
}

func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	u, err := s.Consents.Unsubscribe(r.Context(), s.UnsubscribeKey, r.PathValue("token"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "unsubscribe", s.unsubscribeView(r, u, true))
	return nil
}
