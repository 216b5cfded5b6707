package httpapi

import "net/http"

// catalogRoutes registers branches, offers, rewards, gift cards and the
// customer's offers and coupons.
func (s *Server) catalogRoutes(m *http.ServeMux) {}
