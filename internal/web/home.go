package web

import "net/http"

// home is the landing page at /: what Loyalty is, and the way into each
// portal and the API reference. Its route matches the root alone, so the
// API's 404 for unknown paths stays as it is.
func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "home", view{Title: "Loyalty rewards for your business"})
	return nil
}
