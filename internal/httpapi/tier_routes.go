package httpapi

import "net/http"

// tierRoutes registers tiers and referral programs.
func (s *Server) tierRoutes(m *http.ServeMux) {
	m.Handle("GET /tiers", s.business(s.listTiers))
	m.Handle("POST /tiers", s.business(s.createTier))
	m.Handle("GET /tiers/{id}", s.business(s.getTier))
	m.Handle("PUT /tiers/{id}", s.business(s.updateTier))
	m.Handle("GET /referral-programs", s.business(s.listReferralPrograms))
	m.Handle("POST /referral-programs", s.business(s.createReferralProgram))
	m.Handle("GET /referral-programs/{id}", s.business(s.getReferralProgram))
	m.Handle("PUT /referral-programs/{id}", s.business(s.updateReferralProgram))
}
