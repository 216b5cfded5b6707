package loyalty

import "time"

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
	Products         *ProductService
	EarningRules     *EarningRuleService
	PunchCards       *PunchCardService
	Users            *UserService
	Events           *EventService
	Imports          *ImportService // set by whoever has an ImportBackend (the app)
	Webhooks         *WebhookService
	Points           *PointsService
	Vouchers         *VoucherService
	Consents         *ConsentService
	Transfers        *TransferService
	MemberCodes      *MemberCodeService
	Segments         *SegmentService
	Campaigns        *CampaignService
	Automations      *AutomationService
	// offset is the clock the services run on (ClockedBy): how far ahead
	// of the real one.
	offset time.Duration
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
	// MemberCodeKey is the server key of the members' rotating codes;
	// without it no code is issued or resolved.
	MemberCodeKey []byte
}

// NewServices builds every service over store. The customer service is
// shared by the services that create customers (ledger, user API).
func NewServices(store Store, opt ServiceOptions) Services {
	customers := &CustomerService{Store: store, Hash: opt.Hash, Notify: opt.Notify}
	transactions := &TransactionService{Store: store, Customers: customers}
	return Services{
		Accounts:         &AccountService{Store: store},
		Customers:        customers,
		Transactions:     transactions,
		Vouchers:         &VoucherService{Store: store, Transactions: transactions},
		Consents:         &ConsentService{Store: store},
		Transfers:        &TransferService{Store: store},
		MemberCodes:      &MemberCodeService{Store: store, Codes: MemberCodes{Key: opt.MemberCodeKey}},
		Tiers:            &TierService{Store: store},
		ReferralPrograms: &ReferralProgramService{Store: store},
		Branches:         &BranchService{Store: store},
		Offers:           &OfferService{Store: store},
		Rewards:          &RewardService{Store: store},
		Giftcards:        &GiftcardService{Store: store},
		Products:         &ProductService{Store: store},
		EarningRules:     &EarningRuleService{Store: store},
		PunchCards:       &PunchCardService{Store: store},
		Users: &UserService{Store: store, Customers: customers, Hash: opt.Hash, Notify: opt.Notify,
			ResetURL: opt.ResetURL},
		Events:      &EventService{Store: store},
		Webhooks:    &WebhookService{Store: store, Guard: opt.WebhookGuard},
		Points:      &PointsService{Store: store},
		Segments:    &SegmentService{Store: store},
		Campaigns:   &CampaignService{Store: store},
		Automations: &AutomationService{Store: store},
	}
}

// AuditedBy returns the services making their writes through views of
// their stores that write r's audit entry (AuditedStore): the services a
// console action's change runs through.
func (s Services) AuditedBy(r *AuditRecord) Services {
	return s.viewed(storeView{audit: r})
}

// ClockedBy returns the services on the clock of a business whose clock
// runs offset ahead of the real one (Business.ClockOffset): their stores
// are views on that clock (ClockedStore), so the "now" they compute and
// the time of each change they make are the business's. It is s itself,
// allocating nothing, when s already runs on that clock: a live business
// on the services built over the store (NewServices).
func (s Services) ClockedBy(offset time.Duration) Services {
	if offset == s.offset {
		return s
	}
	return s.viewed(storeView{clocked: true, offset: offset})
}

// storeView is the view of a store that Services.viewed asks for: one
// writing an audit record, or one on a business's clock.
type storeView struct {
	audit   *AuditRecord
	clocked bool
	offset  time.Duration
}

// viewOf is v's view of st.
func viewOf[S any](st S, v storeView) S {
	if v.clocked {
		return ClockedStore(st, v.offset)
	}
	return AuditedStore(st, v.audit)
}

// viewed returns the services over v's views of their stores, each
// service that holds another holding its view.
func (s Services) viewed(v storeView) Services {
	out := s
	if v.clocked {
		out.offset = v.offset
	}
	if s.Customers != nil {
		c := *s.Customers
		c.Store = viewOf(c.Store, v)
		out.Customers = &c
	}
	if s.Accounts != nil {
		out.Accounts = &AccountService{Store: viewOf(s.Accounts.Store, v)}
	}
	if s.Transactions != nil {
		out.Transactions = &TransactionService{Store: viewOf(s.Transactions.Store, v), Customers: out.Customers}
	}
	if s.Transfers != nil {
		out.Transfers = &TransferService{Store: viewOf(s.Transfers.Store, v)}
	}
	if s.Consents != nil {
		out.Consents = &ConsentService{Store: viewOf(s.Consents.Store, v)}
	}
	if s.MemberCodes != nil {
		out.MemberCodes = &MemberCodeService{Store: viewOf(s.MemberCodes.Store, v), Codes: s.MemberCodes.Codes}
	}
	if s.Vouchers != nil {
		out.Vouchers = &VoucherService{Store: viewOf(s.Vouchers.Store, v), Transactions: out.Transactions}
	}
	if s.Tiers != nil {
		out.Tiers = &TierService{Store: viewOf(s.Tiers.Store, v)}
	}
	if s.ReferralPrograms != nil {
		out.ReferralPrograms = &ReferralProgramService{Store: viewOf(s.ReferralPrograms.Store, v)}
	}
	if s.Branches != nil {
		out.Branches = &BranchService{Store: viewOf(s.Branches.Store, v)}
	}
	if s.Offers != nil {
		out.Offers = &OfferService{Store: viewOf(s.Offers.Store, v)}
	}
	if s.Rewards != nil {
		out.Rewards = &RewardService{Store: viewOf(s.Rewards.Store, v)}
	}
	if s.Giftcards != nil {
		out.Giftcards = &GiftcardService{Store: viewOf(s.Giftcards.Store, v)}
	}
	if s.PunchCards != nil {
		out.PunchCards = &PunchCardService{Store: viewOf(s.PunchCards.Store, v)}
	}
	if s.EarningRules != nil {
		out.EarningRules = &EarningRuleService{Store: viewOf(s.EarningRules.Store, v)}
	}
	if s.Products != nil {
		out.Products = &ProductService{Store: viewOf(s.Products.Store, v)}
	}
	if s.Users != nil {
		u := *s.Users
		u.Store, u.Customers = viewOf(u.Store, v), out.Customers
		out.Users = &u
	}
	if s.Events != nil {
		out.Events = &EventService{Store: viewOf(s.Events.Store, v), KeepTiers: s.Events.KeepTiers}
	}
	if s.Webhooks != nil {
		w := *s.Webhooks
		w.Store = viewOf(w.Store, v)
		out.Webhooks = &w
	}
	if s.Points != nil {
		out.Points = &PointsService{Store: viewOf(s.Points.Store, v)}
	}
	if s.Segments != nil {
		out.Segments = &SegmentService{Store: viewOf(s.Segments.Store, v)}
	}
	if s.Campaigns != nil {
		out.Campaigns = &CampaignService{Store: viewOf(s.Campaigns.Store, v)}
	}
	if s.Automations != nil {
		out.Automations = &AutomationService{Store: viewOf(s.Automations.Store, v)}
	}
	if s.Imports != nil {
		im := *s.Imports
		im.Store, im.Services = viewOf(im.Store, v), out
		out.Imports = &im
	}
	return out
}
