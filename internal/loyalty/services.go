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

// AuditedBy returns the services making their writes through views of
// their stores that write r's audit entry (AuditedStore): the services a
// console action's change runs through.
func (s Services) AuditedBy(r *AuditRecord) Services {
	out := s
	if s.Customers != nil {
		c := *s.Customers
		c.Store = AuditedStore(c.Store, r)
		out.Customers = &c
	}
	if s.Accounts != nil {
		out.Accounts = &AccountService{Store: AuditedStore(s.Accounts.Store, r)}
	}
	if s.Transactions != nil {
		out.Transactions = &TransactionService{Store: AuditedStore(s.Transactions.Store, r), Customers: out.Customers}
	}
	if s.Tiers != nil {
		out.Tiers = &TierService{Store: AuditedStore(s.Tiers.Store, r)}
	}
	if s.ReferralPrograms != nil {
		out.ReferralPrograms = &ReferralProgramService{Store: AuditedStore(s.ReferralPrograms.Store, r)}
	}
	if s.Branches != nil {
		out.Branches = &BranchService{Store: AuditedStore(s.Branches.Store, r)}
	}
	if s.Offers != nil {
		out.Offers = &OfferService{Store: AuditedStore(s.Offers.Store, r)}
	}
	if s.Rewards != nil {
		out.Rewards = &RewardService{Store: AuditedStore(s.Rewards.Store, r)}
	}
	if s.Giftcards != nil {
		out.Giftcards = &GiftcardService{Store: AuditedStore(s.Giftcards.Store, r)}
	}
	if s.Users != nil {
		u := *s.Users
		u.Store, u.Customers = AuditedStore(u.Store, r), out.Customers
		out.Users = &u
	}
	if s.Events != nil {
		out.Events = &EventService{Store: AuditedStore(s.Events.Store, r)}
	}
	if s.Webhooks != nil {
		w := *s.Webhooks
		w.Store = AuditedStore(w.Store, r)
		out.Webhooks = &w
	}
	if s.Points != nil {
		out.Points = &PointsService{Store: AuditedStore(s.Points.Store, r)}
	}
	if s.Imports != nil {
		im := *s.Imports
		im.Store, im.Services = AuditedStore(im.Store, r), out
		out.Imports = &im
	}
	return out
}
