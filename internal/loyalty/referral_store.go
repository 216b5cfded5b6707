package loyalty

import "context"

// ReferralReader reads referral programs and referrals outside a
// transaction.
type ReferralReader interface {
	// ReferralPrograms lists the referral programs of a business.
	ReferralPrograms(ctx context.Context, businessID string) ([]ReferralProgram, error)
	// ReferralProgramByID returns a referral program whatever its
	// business (a referral link names only the program), or ENotFound.
	ReferralProgramByID(ctx context.Context, id int64) (ReferralProgram, error)
	// ReferralProgram returns one referral program of a business, or ENotFound.
	ReferralProgram(ctx context.Context, businessID string, id int64) (ReferralProgram, error)
	// ReferralProgramPage pages the referral programs of a business,
	// oldest first.
	ReferralProgramPage(ctx context.Context, businessID string, q ListQuery) ([]ReferralProgram, int, error)
	// CustomerReferrals returns the referral that brought a customer
	// (nil when none) and the referrals the customer made, newest first.
	CustomerReferrals(ctx context.Context, businessID, customerID string) (*Referral, []Referral, error)
}

// ReferralTx is the part of a transaction that reads and changes
// referral programs and referrals.
type ReferralTx interface {
	ReferralProgram(ctx context.Context, businessID string, id int64) (ReferralProgram, error)
	HasReferral(ctx context.Context, businessID, refereeID string) (bool, error)
	InsertReferral(ctx context.Context, r *Referral) error
	// InsertReferralProgram stores a new referral program, setting its ID.
	InsertReferralProgram(ctx context.Context, p *ReferralProgram) error
	// UpdateReferralProgram stores a referral program's fields.
	UpdateReferralProgram(ctx context.Context, p *ReferralProgram) error
	// DisableReferralPrograms disables every referral program of the
	// business but exceptID.
	DisableReferralPrograms(ctx context.Context, businessID string, exceptID int64) error
}
