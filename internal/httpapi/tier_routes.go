package httpapi

import "net/http"

// tierRoutes registers tiers and referral programs.
func (s *Server) tierRoutes(m *http.ServeMux) {}
