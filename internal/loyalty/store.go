package loyalty

import (
	"context"
	"strconv"
	"time"
)

// Store is the storage the domain services need. Reads run on their own;
// every change runs inside WithTx, as one database transaction.
type Store interface {
	AccountStore
	CustomerReader
	TransactionReader
	CatalogReader
	TierReader
	UserReader
	EventStore
	WebhookStore
	LotReader
	LotStore
	ReportStore
	NoticeStore
	TierRollStore
	// WithTx runs fn in one transaction, committing when fn returns nil.
	// The Tx carries one fixed Now for the whole change.
	WithTx(ctx context.Context, fn func(Tx) error) error
	// AppendAlone writes an entry without catalog items and moves the
	// balance as a change of its own, outside WithTx, when the customer
	// allows it as it stands: an active customer of the business with no
	// referral waiting, a balance that stays at or above zero, and the
	// entry's branch (if any) one of the business's. Otherwise it writes
	// nothing and reports false, and the caller takes the transactional
	// path, which explains the refusal or does what else the entry needs.
	// It sets t.ID and t.Balance. When t.Event is set, the event it
	// builds is written with the entry, in the same change.
	AppendAlone(ctx context.Context, t *Transaction) (bool, error)
}

// CustomerReader reads customers and what hangs off them.
type CustomerReader interface {
	// Customer returns an active customer of the business, or ENotFound.
	Customer(ctx context.Context, businessID, customerID string) (Customer, error)
	// CustomerNeverExpiring is Customer for a business none of whose
	// points has ever had an expiry (Business.NeverExpires): it does not
	// look for expiring points, leaving the balance's next expiry empty.
	CustomerNeverExpiring(ctx context.Context, businessID, customerID string) (Customer, error)
	// Customers lists the active customers of a business.
	Customers(ctx context.Context, businessID string, q ListQuery) ([]Customer, int, error)
	// Tiers lists the tiers of a business, with their levels.
	Tiers(ctx context.Context, businessID string) ([]Tier, error)
	// ReferralPrograms lists the referral programs of a business.
	ReferralPrograms(ctx context.Context, businessID string) ([]ReferralProgram, error)
	// ReferralProgramByID returns a referral program whatever its
	// business (a referral link names only the program), or ENotFound.
	ReferralProgramByID(ctx context.Context, id int64) (ReferralProgram, error)
}

// Tx is one transaction: the small steps the services combine.
type Tx interface {
	// Now is the time of the whole change, in UTC.
	Now() time.Time
	UserByEmail(ctx context.Context, email string) (User, error)
	UserByPhone(ctx context.Context, phone string) (User, error)
	InsertUser(ctx context.Context, u *User) error
	UpdateUser(ctx context.Context, u *User) error
	// CustomerAny returns a membership even when deleted (Deleted is set).
	CustomerAny(ctx context.Context, businessID, userID string) (Customer, error)
	// CustomerByContact finds an active customer of a business by the
	// e-mail of its profile, or by phone when email is empty.
	CustomerByContact(ctx context.Context, businessID, email, phone string) (Customer, error)
	// PersonReach counts the businesses that know a person and tells
	// whether the person claimed the account with a PIN.
	PersonReach(ctx context.Context, userID string) (memberships int, hasPIN bool, err error)
	InsertCustomer(ctx context.Context, c *Customer) error
	UpdateCustomer(ctx context.Context, c *Customer) error
	ReferralProgram(ctx context.Context, businessID string, id int64) (ReferralProgram, error)
	HasReferral(ctx context.Context, businessID, refereeID string) (bool, error)
	InsertReferral(ctx context.Context, r *Referral) error
	TransactionTx
	CatalogTx
	TierTx
	TierKeepTx
	UserTx
	EventTx
	LotTx
	NoticeTx
}

// Tier is a business's tier program: how levels are reached and when
// progress resets.
type Tier struct {
	ID                 int64
	BusinessID         string
	Sequence           []string // tiers_sequence: the criteria counted (Criterion*); empty for a program stored before it, see Criteria
	TiersRelation      int      // 0: any criterion reaches a level, 1: all are needed
	ResetType          int
	ResetPeriodMonth   int
	BasePreviousPeriod int
	// DowngradePolicy is what a calendar period's end does to the levels
	// held (Downgrade*).
	DowngradePolicy string
	Enabled         bool
	Levels          []TierLevel
	// TimeZone is the business's (its profile's time_zone), in which
	// calendar periods begin; read with the program, never written by it.
	TimeZone string
}

// TierLevel is one level of a tier program.
type TierLevel struct {
	ID          int64
	Name        string
	ReachSpend  Money
	ReachVisits int64
	ReachPoints int64
}

// ReferralProgram pays a referee and a referrer for a qualifying first purchase.
type ReferralProgram struct {
	ID                  int64
	BusinessID          string
	RuleName            string
	CondMinAmount       Money
	RefereeEarns        int64
	RefererEarns        int64
	ExpiresIn           int64 // days
	Enabled             bool
	LinkReferralEnabled bool
}

// How a referral was settled.
const (
	ReferralPaid      = "paid"      // both were paid on a qualifying purchase
	ReferralExpired   = "expired"   // no qualifying purchase within the program's days
	ReferralForfeited = "forfeited" // the program was disabled before it qualified
)

// Referral links a referee to the customer who referred them.
type Referral struct {
	ID         int64
	BusinessID string
	ProgramID  int64
	ReferrerID string
	RefereeID  string
	CreatedAt  time.Time
	Paid       bool
}

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return itoa(int(n)) }
