package httpapi

import "net/http"

// userRoutes registers the user API.
func (s *Server) userRoutes(m *http.ServeMux) {}
