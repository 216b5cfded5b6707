package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// routes registers every route of the service on s.mux: operations, the
// OAuth endpoints, the business API, the user API and, when set, the pages.
//
// Wrappers: s.business checks a business token; s.ledger does the same
// for POST /transactions, reading the business with the token; s.userAPI
// checks a user token; s.userOpen needs only the Application Key.
func (s *Server) routes() {
	m := s.mux
	u := &users{s: s}

	// Operations and the OAuth endpoints.
	m.HandleFunc("GET /healthz", s.health)
	m.HandleFunc("GET /readyz", s.ready)
	m.Handle("GET /metrics", s.metricsHandler())
	m.HandleFunc("GET /openapi.yaml", s.openAPI)
	m.Handle("POST /oauth/token", s.tokenEndpoint())
	m.Handle("POST /oauth/revoke", s.revokeEndpoint())
	m.HandleFunc("GET /.well-known/oauth-authorization-server", s.authServerMetadata)

	// Business API: the account and its earning rules.
	m.Handle("GET /me", s.business(s.getAccount))
	m.Handle("GET /rules", s.business(s.getRules))
	m.Handle("PATCH /rules", s.business(s.patchRules))
	m.Handle("GET /sandbox/clock", s.business(s.getSandboxClock))
	m.Handle("POST /sandbox/clock", s.business(s.moveSandboxClock))
	m.Handle("GET /reports/points", s.business(s.pointsReport))

	// Business API: customers.
	m.Handle("GET /customers", s.business(s.listCustomers))
	m.Handle("POST /customers", s.business(s.createCustomer))
	m.Handle("GET /customers/{id}", s.business(s.getCustomer))
	m.Handle("PUT /customers/{id}", s.business(s.updateCustomer))
	m.Handle("DELETE /customers/{id}", s.business(s.deleteCustomer))
	m.Handle("GET /customers/{id}/transactions", s.business(s.customerTransactions))
	m.Handle("GET /customers/{id}/points", s.business(s.customerPoints))
	m.Handle("GET /customers/{id}/offers", s.business(s.customerOffers))
	m.Handle("GET /customers/{id}/targeted-offers", s.business(s.targetedOffers))
	m.Handle("GET /customers/{id}/claimable-offers", s.business(s.claimableOffers))
	m.Handle("GET /customers/{id}/available-coupons", s.business(s.availableCoupons))
	m.Handle("GET /customers/{id}/rewards", s.business(s.customerRewards))
	m.Handle("GET /customers/{id}/tags", s.business(s.customerTags))
	m.Handle("PUT /customers/{id}/tags", s.business(s.setCustomerTags))
	m.Handle("GET /customers/{id}/consents", s.business(s.customerConsents))
	m.Handle("POST /customers/{id}/consents", s.business(s.createConsent))

	// Business API: the ledger.
	m.Handle("POST /transactions", s.withBusiness(s.createTransaction))
	m.Handle("GET /transactions", s.business(s.listTransactions))
	m.Handle("DELETE /transactions/{id}", s.business(s.cancelTransaction))
	m.Handle("PATCH /transactions/{id}/details", s.business(s.updateTransactionDetails))

	// Business API: CSV imports.
	m.Handle("POST /imports/uploads", s.withBusiness(s.uploadImport))
	m.Handle("POST /imports", s.business(s.startImport))
	m.Handle("GET /imports", s.business(s.listImports))
	m.Handle("GET /imports/{id}", s.business(s.getImport))
	m.Handle("GET /imports/{id}/errors", s.business(s.importErrors))

	// Business API: the catalog.
	m.Handle("GET /branches", s.business(s.listBranches))
	m.Handle("POST /branches", s.business(s.createBranch))
	m.Handle("PUT /branches/{id}", s.business(s.updateBranch))
	m.Handle("GET /offers", s.business(s.listOffers))
	m.Handle("POST /offers", s.business(s.createOffer))
	m.Handle("POST /offers/images", s.business(s.uploadCatalogImages))
	m.Handle("GET /offers/{id}", s.business(s.getOffer))
	m.Handle("PUT /offers/{id}", s.business(s.updateOffer))
	m.Handle("DELETE /offers/{id}", s.business(s.deleteOffer))
	m.Handle("GET /rewards", s.business(s.listRewards))
	m.Handle("POST /rewards", s.business(s.createReward))
	m.Handle("POST /rewards/images", s.business(s.uploadCatalogImages))
	m.Handle("GET /rewards/{id}", s.business(s.getReward))
	m.Handle("PUT /rewards/{id}", s.business(s.updateReward))
	m.Handle("DELETE /rewards/{id}", s.business(s.deleteReward))
	m.Handle("GET /giftcards", s.business(s.listGiftcards))
	m.Handle("POST /giftcards", s.business(s.createGiftcard))
	m.Handle("GET /giftcards/{id}", s.business(s.getGiftcard))
	m.Handle("PUT /giftcards/{id}", s.business(s.updateGiftcard))
	m.Handle("DELETE /giftcards/{id}", s.business(s.deleteGiftcard))
	m.Handle("GET /products", s.business(s.listProducts))
	m.Handle("GET /punch-cards", s.business(s.listPunchCards))
	m.Handle("POST /punch-cards", s.business(s.savePunchCard))
	m.Handle("GET /punch-cards/{id}", s.business(s.getPunchCard))
	m.Handle("PUT /punch-cards/{id}", s.business(s.savePunchCard))
	m.Handle("DELETE /punch-cards/{id}", s.business(s.deletePunchCard))
	m.Handle("GET /earning-rules", s.business(s.listEarningRules))
	m.Handle("POST /earning-rules", s.business(s.saveEarningRule))
	m.Handle("GET /earning-rules/{id}", s.business(s.getEarningRule))
	m.Handle("PUT /earning-rules/{id}", s.business(s.saveEarningRule))
	m.Handle("DELETE /earning-rules/{id}", s.business(s.deleteEarningRule))
	m.Handle("POST /products", s.business(s.createProduct))
	m.Handle("POST /products/batch", s.business(s.batchProducts))
	m.Handle("GET /products/{id}", s.business(s.getProduct))
	m.Handle("PUT /products/{id}", s.business(s.updateProduct))
	m.Handle("DELETE /products/{id}", s.business(s.deleteProduct))
	m.Handle("GET /automations", s.business(s.listAutomations))
	m.Handle("POST /automations", s.business(s.saveAutomation))
	m.Handle("GET /automations/{id}", s.business(s.getAutomation))
	m.Handle("PUT /automations/{id}", s.business(s.saveAutomation))
	m.Handle("DELETE /automations/{id}", s.business(s.deleteAutomation))
	m.Handle("GET /campaigns", s.business(s.listCampaigns))
	m.Handle("POST /campaigns", s.business(s.saveCampaign))
	m.Handle("GET /campaigns/{id}", s.business(s.getCampaign))
	m.Handle("PUT /campaigns/{id}", s.business(s.saveCampaign))
	m.Handle("DELETE /campaigns/{id}", s.business(s.deleteCampaign))
	m.Handle("POST /campaigns/{id}/send", s.business(s.sendCampaign))
	m.Handle("GET /campaigns/{id}/report", s.business(s.campaignReport))
	m.Handle("GET /segments", s.business(s.listSegments))
	m.Handle("POST /segments", s.business(s.saveSegment))
	m.Handle("POST /segments/count", s.business(s.countSegment))
	m.Handle("GET /segments/{id}", s.business(s.getSegment))
	m.Handle("PUT /segments/{id}", s.business(s.saveSegment))
	m.Handle("DELETE /segments/{id}", s.business(s.deleteSegment))
	m.Handle("GET /segments/{id}/customers", s.business(s.segmentCustomers))
	m.Handle("GET /product-categories", s.business(s.listCategories))
	m.Handle("POST /product-categories", s.business(s.saveCategory))
	m.Handle("GET /product-categories/{id}", s.business(s.getCategory))
	m.Handle("PUT /product-categories/{id}", s.business(s.saveCategory))
	m.Handle("DELETE /product-categories/{id}", s.business(s.deleteCategory))
	m.Handle("POST /baskets/evaluate", s.withBusiness(s.evaluateBasket))
	m.Handle("GET /vouchers/{code}", s.business(s.voucher))
	m.Handle("POST /vouchers/{code}/handover", s.business(s.handOver))

	// Business API: tier and referral programs.
	m.Handle("GET /tiers", s.business(s.listTiers))
	m.Handle("POST /tiers", s.business(s.createTier))
	m.Handle("GET /tiers/{id}", s.business(s.getTier))
	m.Handle("PUT /tiers/{id}", s.business(s.updateTier))
	m.Handle("GET /referral-programs", s.business(s.listReferralPrograms))
	m.Handle("POST /referral-programs", s.business(s.createReferralProgram))
	m.Handle("GET /referral-programs/{id}", s.business(s.getReferralProgram))
	m.Handle("PUT /referral-programs/{id}", s.business(s.updateReferralProgram))

	// Business API: the event feed.
	m.Handle("GET /events", s.business(s.listEvents))

	// Business API: webhook endpoints and their delivery logs.
	m.Handle("GET /webhooks", s.business(s.listWebhooks))
	m.Handle("POST /webhooks", s.business(s.createWebhook))
	m.Handle("GET /webhooks/{id}", s.business(s.getWebhook))
	m.Handle("PUT /webhooks/{id}", s.business(s.updateWebhook))
	m.Handle("DELETE /webhooks/{id}", s.business(s.deleteWebhook))
	m.Handle("POST /webhooks/{id}/rotate-secret", s.business(s.rotateWebhookSecret))
	m.Handle("GET /webhooks/{id}/deliveries", s.business(s.listWebhookDeliveries))
	m.Handle("POST /webhooks/{id}/deliveries/{event_id}/retry", s.business(s.retryWebhookDelivery))

	// User API.
	m.Handle("GET /users", s.userAPI(u.listUsers))
	m.Handle("POST /users", s.userOpen(u.createUser))
	m.Handle("POST /users/credentials/verification", s.userOpen(u.verify))
	m.Handle("POST /users/pincode/reset-request", s.userOpen(u.resetRequest))
	m.Handle("POST /users/pincode/reset", s.userOpen(u.reset))
	m.Handle("GET /users/{user_id}", s.userAPI(u.getUser))
	m.Handle("PATCH /users/{user_id}", s.userAPI(u.updateUser))
	m.Handle("DELETE /users/{user_id}", s.userAPI(u.erase))
	m.Handle("GET /users/{user_id}/export", s.userAPI(u.export))
	m.Handle("POST /users/{user_id}/images", s.userAPI(u.uploadImage))
	m.Handle("GET /users/{user_id}/rewards", s.userAPI(u.rewards))
	m.Handle("GET /users/{user_id}/offers", s.userAPI(u.offers))
	m.Handle("GET /users/{user_id}/offers/{offer_id}", s.userAPI(u.offer))
	m.Handle("POST /users/{user_id}/offers/{offer_id}/claim", s.userAPI(u.claimOffer))
	m.Handle("POST /users/{user_id}/redemptions", s.userAPI(u.redeem))
	m.Handle("GET /users/{user_id}/redemptions", s.userAPI(u.redemptions))
	m.Handle("POST /users/{user_id}/transfers", s.userAPI(u.sendTransfer))
	m.Handle("GET /users/{user_id}/transfers", s.userAPI(u.transfers))
	m.Handle("POST /users/{user_id}/transfers/{transfer_id}/recall", s.userAPI(u.recallTransfer))
	m.Handle("GET /users/{user_id}/consents", s.userAPI(u.userChoices(loyalty.ConsentMarketing)))
	m.Handle("PATCH /users/{user_id}/consents", s.userAPI(u.changeUserChoice(loyalty.ConsentMarketing)))
	m.Handle("GET /users/{user_id}/notification-preferences", s.userAPI(u.userChoices(loyalty.ConsentNotifications)))
	m.Handle("PATCH /users/{user_id}/notification-preferences", s.userAPI(u.changeUserChoice(loyalty.ConsentNotifications)))
	m.Handle("GET /users/{user_id}/giftcards", s.userAPI(u.giftcards))
	m.Handle("GET /users/{user_id}/giftcards/{giftcard_id}", s.userAPI(u.giftcard))
	m.Handle("GET /users/{user_id}/businesses", s.userAPI(u.businesses))
	m.Handle("GET /users/{user_id}/businesses/{business_id}", s.userAPI(u.business))
	m.Handle("GET /users/{user_id}/preferences", s.userAPI(u.preferences))
	m.Handle("GET /users/{user_id}/passes/apple", s.userAPI(u.applePass))
	m.Handle("GET /users/{user_id}/passes/google", s.userAPI(u.googlePass))
	m.Handle("PATCH /users/{user_id}/preferences", s.userAPI(u.setPreferences))
	m.Handle("GET /images/{name}", http.HandlerFunc(u.serveImage))

	if s.Pages != nil {
		s.Pages.Register(m)
	}
}
