package web

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// customerTags replaces a customer's tags with those ticked among the
// business's and those typed, comma-separated, in "Add tags"; a refusal
// is shown beside that box.
func (s *Server) customerTags(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	tags := append([]string{}, f["tag"]...)
	for _, t := range strings.Split(f.Get("new_tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if _, err := s.Desk.SetTags(r.Context(), a, r.PathValue("id"), tags); err != nil {
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid && len(e.Fields["tags"]) > 0 {
			e = &loyalty.Error{Code: e.Code, Message: e.Message, Fields: map[string][]string{"new_tags": e.Fields["tags"]}}
			err = e
		}
		// The page again as it was posted: what was typed, and ticked.
		form := map[string]string{"new_tags": f.Get("new_tags"), "tags_posted": "1"}
		for _, t := range f["tag"] {
			form["tag:"+t] = "on"
		}
		return s.customerFailed(w, r, a, err, form)
	}
	redirect(w, customerPath(r)+"?notice=customer_saved")
	return nil
}
