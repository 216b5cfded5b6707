package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// catalog holds the handlers of branches, offers, rewards, gift cards and
// a customer's offers and coupons, with the services they call.
type catalog struct {
	s         *Server
	branches  *loyalty.BranchService
	offers    *loyalty.OfferService
	rewards   *loyalty.RewardService
	giftcards *loyalty.GiftcardService
}

// catalogRoutes registers branches, offers, rewards, gift cards and the
// customer's offers and coupons.
func (s *Server) catalogRoutes(m *http.ServeMux) {
	c := &catalog{
		s:         s,
		branches:  &loyalty.BranchService{Store: s.Store},
		offers:    &loyalty.OfferService{Store: s.Store},
		rewards:   &loyalty.RewardService{Store: s.Store},
		giftcards: &loyalty.GiftcardService{Store: s.Store},
	}
	m.Handle("GET /branches", s.business(c.listBranches))
	m.Handle("POST /branches", s.business(c.createBranch))

	m.Handle("GET /offers", s.business(c.listOffers))
	m.Handle("POST /offers", s.business(c.createOffer))
	m.Handle("GET /offers/{id}", s.business(c.getOffer))
	m.Handle("PUT /offers/{id}", s.business(c.updateOffer))
	m.Handle("DELETE /offers/{id}", s.business(c.deleteOffer))

	m.Handle("GET /rewards", s.business(c.listRewards))
	m.Handle("POST /rewards", s.business(c.createReward))
	m.Handle("GET /rewards/{id}", s.business(c.getReward))
	m.Handle("PUT /rewards/{id}", s.business(c.updateReward))
	m.Handle("DELETE /rewards/{id}", s.business(c.deleteReward))

	m.Handle("GET /giftcards", s.business(c.listGiftcards))
	m.Handle("POST /giftcards", s.business(c.createGiftcard))
	m.Handle("GET /giftcards/{id}", s.business(c.getGiftcard))
	m.Handle("PUT /giftcards/{id}", s.business(c.updateGiftcard))
	m.Handle("DELETE /giftcards/{id}", s.business(c.deleteGiftcard))

	m.Handle("GET /customers/{id}/offers", s.business(c.customerOffers))
	m.Handle("GET /customers/{id}/available-coupons", s.business(c.availableCoupons))
}
