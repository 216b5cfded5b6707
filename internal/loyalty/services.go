package loyalty

// Services are the domain services over one store: the service builds them
// once at start, and the APIs and the pages share the same instances.
type Services struct {
	Accounts         *AccountService
	Customers        *CustomerService
	Transactions     *TransactionService
	Tiers            *TierService
	ReferralPrograms *ReferralProgramService
	Branches         *BranchService
	Offers           *OfferService
	Rewards          *RewardService
	Giftcards        *GiftcardService
	Users            *UserService
	Events           *EventService
	Imports          *ImportService // set by whoever has an ImportBackend (the app)
	Webhooks         *WebhookService
	Points           *PointsService
}

// ServiceOptions are what some services need beyond the store.
type ServiceOptions struct {
	// Hash hashes the secrets the services keep (PINs, verification and
	// reset tokens); without it no welcome message is queued.
	Hash Hasher
	// Notify, when set, wakes the outbox worker after a change that queued
	// a message has committed.
	Notify func()
	// ResetURL is the page a PIN-reset message links to; none when empty.
	ResetURL string
	// WebhookGuard refuses the webhook URLs deliveries must not go to.
	WebhookGuard URLGuard
}

// NewServices builds every service over store. The customer service is
// shared by the services that create customers (ledger, user API).
func NewServices(store Store, opt ServiceOptions) Services {
	customers := &CustomerService{Store: store, Hash: opt.Hash, Notify: opt.Notify}
	return Services{
		Accounts:         &AccountService{Store: store},
		Customers:        customers,
		Transactions:     &TransactionService{Store: store, Customers: customers},
		Tiers:            &TierService{Store: store},
		ReferralPrograms: &ReferralProgramService{Store: store},
		Branches:         &BranchService{Store: store},
		Offers:           &OfferService{Store: store},
		Rewards:          &RewardService{Store: store},
		Giftcards:        &GiftcardService{Store: store},
		Users: &UserService{Store: store, Customers: customers, Hash: opt.Hash, Notify: opt.Notify,
			ResetURL: opt.ResetURL},
		Events:   &EventService{Store: store},
		Webhooks: &WebhookService{Store: store, Guard: opt.WebhookGuard},
		Points:   &PointsService{Store: store},
	}
}
